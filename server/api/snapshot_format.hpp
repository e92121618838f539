// /admin/stats (JSON, docs/admin-stats.md) and /metrics (Prometheus text) from one snapshot.
#pragma once

#include <string>

#include "api/node_snapshots.hpp"

namespace ringcast {

std::string stats_json(const server_snapshot& s);
std::string prometheus_text(const server_snapshot& s);

}  // namespace ringcast
