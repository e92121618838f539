#pragma once

#include <boost/json/value.hpp>
#include <chrono>
#include <cstdint>
#include <map>
#include <optional>
#include <string>

#include "connector.hpp"
#include "flags.hpp"

namespace ringcast::load {

// One blocking admin request on a private io_context, for the moments when nothing else runs
// (before the clients start, after they stop): GET /admin/stats and friends.
struct admin_reply {
  unsigned status = 0;
  std::string body;
};
std::optional<admin_reply> admin_request(const connector& net, const target& server,
                                         const std::string& token, const std::string& method,
                                         const std::string& path,
                                         std::chrono::milliseconds timeout);

// The /admin/stats counters the report takes deltas of (docs/admin-stats.md).
struct server_counters {
  std::uint64_t sessions_reused = 0;
  std::uint64_t connections = 0;
  std::map<std::string, std::uint64_t> expirations;
  void add(const server_counters& other);
};
std::optional<server_counters> parse_stats(const boost::json::value& stats);
// Summed over every target; nullopt when any one cannot be read.
std::optional<server_counters> scrape_stats(const options& opts, std::string* why);

}  // namespace ringcast::load
