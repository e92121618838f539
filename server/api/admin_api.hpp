// The operations endpoints (docs/protocol.md, "Admin and operations"): /healthz and /metrics
// (open), /admin/stats, /admin/publish and /admin/kick (the admin token: route_table checks it).
#pragma once

#include "api/node_snapshots.hpp"
#include "api/route_table.hpp"
#include "core/node_health.hpp"
#include "core/node_messages.hpp"
#include "core/node_promotions.hpp"

namespace ringcast {

// GET /healthz, GET /metrics, GET /admin/stats.
void add_operations_routes(route_table& routes, node_health& health, node_snapshots& snapshots);
// POST /admin/publish (at once, or with "at"/"delay" in the future: scheduled, promotion_api) and
// POST /admin/kick.
void add_message_routes(route_table& routes, node_messages& messages, node_promotions& promotions,
                        node_health& health);

}  // namespace ringcast
