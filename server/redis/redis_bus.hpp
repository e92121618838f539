// Several ringcast nodes sharing one message stream through Redis (docs/scaling.md).
//
//   keys             all under the hash tag {ringcast}, so that a Redis Cluster keeps them in one
//                    slot (the bus follows MOVED to its primary);
//   ids and history  a Lua script numbers each publish and appends it to the Stream
//                    `{ringcast}:stream` (MAXLEN ~ --history); ids never go backwards, even if
//                    Redis loses its data (the script takes the larger of last id + 1 and the
//                    publishing node's clock in microseconds, like the single-node ids).
//   fan-out          every node reads the stream with XREAD BLOCK, in stream order = id order,
//                    and delivers each entry to its own clients; after a lost connection it goes on
//                    from the last entry it read, so nothing is delivered twice or skipped.
//   sessions         `{ringcast}:session:<user/sid>` names the node holding the session (expires
//                    with the session TTL once it has no connection). A connect elsewhere takes the
//                    session over and tells the old node, over pub/sub `ringcast:control`, to close
//                    its connection `replaced`.
//   kick             sent to every node over `ringcast:control`.
// The stream's format is redis_stream.hpp; presence, scheduled publishes and reach keep keys of
// their own through command() (redis_presence, redis_schedule, redis_reach).
// Everything runs on one io_context (loop 0's); no call blocks.
#pragma once

#include <atomic>
#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>
#include <cstdint>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "core/loop_timers.hpp"
#include "core/message.hpp"
#include "protocol/admin_request.hpp"
#include "redis/redis_connection.hpp"
#include "redis/redis_sentinel.hpp"

namespace ringcast {

// The pub/sub channel the nodes announce kicks and session claims on (redis_bus_control.cpp).
inline const std::string control_channel = "ringcast:control";

class redis_bus {
 public:
  // What the bus needs from the server; called on the bus's io_context.
  struct node_hooks {
    // The retained messages at start-up, oldest first, before any live one.
    std::function<void(std::vector<message_ptr>)> seed_history;
    // At start-up too, after seed_history: sticky messages in force that the stream no longer
    // holds (evicted by its MAXLEN).
    std::function<void(std::vector<message_ptr>)> seed_in_force;
    // Deliver to this node's clients; `done(recipients)`.
    std::function<void(const message_ptr&, std::function<void(std::size_t)>)> deliver;
    // Another node kicked `user` / took over session `key` ("user/sid").
    std::function<void(std::string user)> kick;
    std::function<void(std::string key)> evict;
    // A take-down of message `id` read from the stream (any node's, this one's included).
    std::function<void(std::uint64_t id)> take_down;
    // A Pusher presence member added or removed for the cluster (redis_pusher.hpp), any node's,
    // this one's included: its JSON.
    std::function<void(std::string_view change)> pusher_member;
  };

  // `clock`: the node's (it outlives the bus): publish times, ids' floor, log pacing.
  redis_bus(boost::asio::io_context& ctx, const loop_clock& clock, redis_url url,
            std::size_t history, std::chrono::milliseconds session_ttl, node_hooks hooks);

  void start();
  // `f` runs on the bus's io_context each time the bus connects (at start-up and after every
  // loss), after the connections are up: presence rewrites its keys then, not a heartbeat later.
  void on_connected(std::function<void()> f) { connected_listeners_.push_back(std::move(f)); }
  bool up() const { return up_.load(std::memory_order_relaxed); }
  // Why Redis cannot be used now ("redis 127.0.0.1:6379: auth failed (WRONGPASS …)"), for the
  // 503s; empty while up. Safe from any thread.
  std::string problem() const;
  // Times the connection to Redis was lost.
  std::uint64_t reconnects() const { return reconnects_.load(std::memory_order_relaxed); }
  const std::string& node_id() const { return node_id_; }
  // Before start(): this node is `id` (an upgrade in place keeps the id its claims name).
  void keep_node_id(std::string id) { node_id_ = std::move(id); }
  const loop_clock& clock() const { return clock_; }

  struct receipt {
    std::uint64_t id;
    std::size_t recipients;  // on this node
  };
  // nullopt: Redis is unreachable and nothing was published.
  void publish(const publish_request& req, std::function<void(std::optional<receipt>)> done);
  // Tells the other nodes; false if Redis is unreachable.
  void announce_kick(const std::string& user, std::function<void(bool)> done);
  // Appends a take-down of message `id` to the stream, which every node reads in order; false
  // if Redis is unreachable.
  void announce_take_down(std::uint64_t id, std::function<void(bool)> done);
  // This node now holds session `key`; `done(existed)`: the session was known to Redis (on this or
  // another node). Unreachable Redis: done(false).
  void claim_session(const std::string& key, std::function<void(bool)> done);
  // Any command on the bus's connection to the master (presence); done(nullptr) when Redis is
  // unreachable or the connection is lost before the reply.
  void command(const std::vector<std::string>& args, std::function<void(const redisReply*)> done);
  // Session `key` lost its last connection here: its record expires with the session TTL.
  void release_session(const std::string& key);

 private:
  void connect_all();
  void connect_to_master();
  void on_lost(std::string why);
  // Logs a failed attempt: a new cause at once, the same one again at most every
  // `repeat_same_cause` (the longest back-off step), with how many attempts failed meanwhile.
  void log_failure(const std::string& why);
  void on_switch(const redis_endpoint& master);
  void drop_connections();
  bool follow_moved(const struct redisReply* r);
  void load_history();
  void load_in_force(std::vector<message_ptr> retained);
  void read_stream();
  void on_entries(const struct redisReply* reply);
  void on_control(const struct redisReply* reply);

  boost::asio::io_context& ctx_;
  const loop_clock& clock_;
  redis_url url_;
  std::size_t history_;
  std::chrono::milliseconds session_ttl_;
  node_hooks hooks_;
  std::string node_id_;

  std::unique_ptr<redis_connection> commands_, reader_, control_;
  std::unique_ptr<redis_sentinel> sentinel_;  // with sentinel://
  redis_endpoint given_;                      // the address in --redis (redis://)
  bool following_moved_ = false;              // reconnecting to the address of a MOVED answer
  boost::asio::steady_timer retry_;
  std::chrono::milliseconds backoff_{100};
  std::atomic<bool> up_{false};
  std::atomic<std::uint64_t> reconnects_{0};
  mutable std::mutex problem_mutex_;
  std::string problem_;  // guarded by problem_mutex_
  std::string last_logged_;
  loop_clock::time_point last_logged_at_;
  std::uint64_t unlogged_failures_ = 0;  // same cause as last logged, not logged again
  std::uint64_t failed_attempts_ = 0;    // since the bus was last up
  std::vector<std::function<void()>> connected_listeners_;
  bool seeded_ = false;
  std::string last_entry_ = "0-0";  // the last stream entry read
  bool retry_pending_ = false;
  std::uint64_t publish_seq_ = 0;
  // Publishes of this node waiting to be read back from the stream, by token.
  std::map<std::string, std::function<void(std::optional<receipt>)>> awaiting_delivery_;
};

}  // namespace ringcast
