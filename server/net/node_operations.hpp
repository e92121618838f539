// What the admin API asks of the node as a whole (every event loop, and Redis with --redis).
// Implemented by `server`; admin_api and snapshot_format see only this.
#pragma once

#include <boost/asio/any_io_executor.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "admin_request.hpp"
#include "backplane.hpp"
#include "connect_gate.hpp"
#include "hook_outbox.hpp"
#include "loop_stats.hpp"
#include "presence.hpp"
#include "presence_query.hpp"
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
  hook_counters hooks;                 // with --hook-url
  connect_hook_counters connect_hook;  // with --connect-hook
};

struct server_snapshot {
  std::string address;  // the listening "host:port": which node of several answered
  std::string node_id;  // with --redis, the node's id in the cluster
  std::vector<loop_snapshot> loops;
  std::chrono::milliseconds tick{0};
  bool clustered = false;     // --redis
  bool hooks = false;         // --hook-url
  bool connect_hook = false;  // --connect-hook
  bool redis_up = false;
  std::uint64_t redis_reconnects = 0;
  std::uint64_t published = 0;
  std::uint64_t last_id = 0;
  std::size_t scheduled = 0;  // promotions waiting (with --redis: the cluster's, at the last claim)
  std::uint64_t sticky_refused = 0;  // sticky publishes refused with 429 (--max-sticky)
  std::size_t open_connections = 0;
  std::chrono::milliseconds uptime{0};
  // --max-connections-per-ip / --connect-rate-per-ip: refusals, and addresses in the table.
  std::uint64_t refused_per_ip_connections = 0;
  std::uint64_t refused_per_ip_rate = 0;
  std::size_t client_addresses = 0;
};

class node_operations {
 public:
  struct publish_receipt {
    std::uint64_t id;
    std::size_t recipients;  // live sessions it was queued to (with --redis: on this node)
    bool too_many = false;   // a sticky publish refused: --max-sticky are in force; no id
  };
  // Numbers the message and delivers it on every loop in id order (with --redis: through the
  // shared stream, on every node). `done` runs on `origin`; nullopt means Redis is unreachable
  // and nothing was published.
  virtual void publish(const publish_request& req, boost::asio::any_io_executor origin,
                       std::function<void(std::optional<publish_receipt>)> done) = 0;
  // Closes the user's live connections (close/kicked) on every node; `done(closed here)`.
  virtual void kick(std::string user, boost::asio::any_io_executor origin,
                    std::function<void(std::size_t)> done) = 0;

  // Promotions (docs/protocol.md, "Promotions"). Every `done` runs on `origin`. With --redis the
  // schedule and the reach are the cluster's, in Redis: `unavailable` when it is unreachable.
  using promotion_outcome = ringcast::promotion_outcome;      // core/backplane.hpp
  using scheduled_promotion = ringcast::scheduled_promotion;  // core/backplane.hpp
  // Waits `request_json` (a valid publish request) until `at_ms`; done(ok, id), or too_many when
  // --max-scheduled promotions already wait.
  virtual void schedule_publish(std::string request_json, std::int64_t at_ms,
                                boost::asio::any_io_executor origin,
                                std::function<void(promotion_outcome, std::string id)> done) = 0;
  // nullopt: unavailable.
  virtual void list_scheduled(
      boost::asio::any_io_executor origin,
      std::function<void(std::optional<std::vector<scheduled_promotion>>)> done) = 0;
  // ok: it was waiting and now will not be published; not_found: published, cancelled or unknown.
  virtual void cancel_scheduled(std::string id, boost::asio::any_io_executor origin,
                                std::function<void(promotion_outcome)> done) = 0;
  struct message_reach {
    std::uint64_t id = 0;
    std::int64_t published_ms = 0;
    std::uint64_t recipients = 0, delivered = 0, acked = 0;
    bool expired = false;
    std::chrono::milliseconds spread{0};  // of a paced publish: delivered rises over it
    bool sticky = false;                  // in force for connects without `since`
  };
  // not_found: the message is not (or no longer) in history.
  virtual void reach(std::uint64_t id, boost::asio::any_io_executor origin,
                     std::function<void(promotion_outcome, message_reach)> done) = 0;
  // Expires the message at once on every node (docs/protocol.md, "Promotions in force"): ok, or
  // not_found when no loop holds it or it is already expired, or unavailable (--redis).
  virtual void take_down(std::uint64_t id, boost::asio::any_io_executor origin,
                         std::function<void(promotion_outcome)> done) = 0;
  // The `limit` newest messages in history with their reach, newest first (ok or unavailable).
  virtual void recent_messages(
      std::size_t limit, boost::asio::any_io_executor origin,
      std::function<void(promotion_outcome, std::vector<message_reach>)> done) = 0;

  virtual void snapshot(boost::asio::any_io_executor origin,
                        std::function<void(server_snapshot)> done) = 0;
  // Online users and sessions (with --redis: of every live node). `done` runs on `origin`;
  // nullopt means Redis is unreachable.
  virtual void presence(const presence_query& q, boost::asio::any_io_executor origin,
                        std::function<void(std::optional<presence_figures>)> done) = 0;
  // False when this node should not be sent new clients (with --redis: Redis is unreachable).
  virtual bool healthy() const = 0;
  // Why Redis cannot be used now ("redis 127.0.0.1:6379: auth failed (WRONGPASS …)"), as the bus
  // last saw it; empty when it can, or without --redis.
  virtual std::string redis_problem() const = 0;

 protected:
  ~node_operations() = default;
};

// The message of a 503 that Redis is to blame for: why, when the bus knows.
inline std::string redis_unavailable(const node_operations& node) {
  auto why = node.redis_problem();
  return why.empty() ? "redis is unreachable" : why;
}

}  // namespace ringcast
