// The figures of the whole node, gathered from every loop, for /metrics and /admin/stats
// (snapshot_format writes them). Implemented by `server`.
#pragma once

#include <boost/asio/any_io_executor.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/loop_stats.hpp"
#include "hooks/connect_gate.hpp"
#include "hooks/hook_outbox.hpp"
#include "ringcast/wheel/timing_wheel.hpp"

namespace ringcast {

// A snapshot of one loop, taken on that loop's thread.
struct loop_snapshot {
  loop_stats stats;
  std::size_t sessions = 0;
  std::size_t connected = 0;
  std::size_t paced_in_flight = 0;  // paced messages whose window is still open on this loop
  std::size_t sticky_in_force = 0;  // sticky messages in force on this loop
  std::uint64_t tick = 0;
  std::size_t armed = 0;
  timing_wheel::counters wheel;
  std::uint32_t levels = 0;
  std::vector<std::uint32_t> level0, level1;
  hook_counters hooks;                           // with --hook-url
  connect_hook_counters connect_hook;            // with --connect-hook
  std::optional<hook_counters> hooks_of_pusher;  // loop 0, with --pusher-webhook-url
};

struct server_snapshot {
  std::string address;  // the listening "host:port": which node of several answered
  std::string node_id;  // with --redis, the node's id in the cluster
  std::vector<loop_snapshot> loops;
  std::chrono::milliseconds tick{0};
  bool clustered = false;     // --redis
  bool hooks = false;         // --hook-url
  bool connect_hook = false;  // --connect-hook
  // --pusher-webhook-url: every URL's outbox summed (backend_up: every URL's last POST accepted).
  std::optional<hook_counters> pusher_webhooks;
  bool redis_up = false;
  std::uint64_t redis_reconnects = 0;
  std::uint64_t published = 0;
  std::uint64_t last_id = 0;
  std::size_t scheduled = 0;  // promotions waiting (with --redis: the cluster's, at the last claim)
  std::uint64_t sticky_refused = 0;  // sticky publishes refused with 429 (--max-sticky)
  std::size_t open_connections = 0;
  std::chrono::milliseconds uptime{0};
  std::uint64_t upgrades = 0;            // upgrades in place this process has been through
  std::uint64_t upgrade_reconnects = 0;  // native-TLS connections they told to reconnect
  // --max-connections-per-ip / --connect-rate-per-ip: refusals, and addresses in the table.
  std::uint64_t refused_per_ip_connections = 0;
  std::uint64_t refused_per_ip_rate = 0;
  std::size_t client_addresses = 0;
};

class node_snapshots {
 public:
  // `done` runs on `origin`.
  virtual void snapshot(boost::asio::any_io_executor origin,
                        std::function<void(server_snapshot)> done) = 0;

 protected:
  ~node_snapshots() = default;
};

}  // namespace ringcast
