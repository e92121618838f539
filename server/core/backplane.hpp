// What the nodes of a deployment share (docs/architecture.md, "Backplane"): the numbering and
// fan-out of publishes (and so the history a resume reads), the schedule of promotions, reach,
// presence, kicks, take-downs and who holds a session. One interface, two implementations:
// `local_backplane` (one node: everything is this process's) and `redis_backplane` (--redis:
// shared through Redis, docs/scaling.md). The node above it never asks which one it has.
//
// Threads: unless a method says otherwise it is called on the home loop (loop 0) and its `done`
// runs there. The backplane tells the node what it must do through `backplane_node`.
#pragma once

#include <boost/asio/any_io_executor.hpp>

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/message.hpp"
#include "core/presence.hpp"
#include "core/pusher_channels.hpp"
#include "core/session.hpp"
#include "core/session_events.hpp"
#include "protocol/admin_request.hpp"
#include "protocol/presence_query.hpp"
#include "upgrade/handover_state.hpp"

namespace ringcast {

// The answer of a promotion call (docs/protocol.md, "Promotions"): `unavailable` only when the
// schedule or reach is shared and Redis is unreachable.
enum class promotion_outcome { ok, not_found, too_many, unavailable };

struct scheduled_promotion {
  std::string id;
  std::int64_t at_ms;
  std::string request_json;  // the request as posted
};

// What the backplane asks of this node. Called on the home loop, except deliver (see there).
class backplane_node {
 public:
  // At start-up, before any live message: the retained messages, oldest first, then the sticky
  // messages in force that history no longer holds.
  virtual void seed_history(std::vector<message_ptr> retained) = 0;
  virtual void seed_in_force(std::vector<message_ptr> in_force) = 0;
  // Hand `m` to this node's clients on every loop; done(recipients here) runs on `where`. Called
  // under the node's sequencer (core/sequencer.hpp: number or take), so in id order.
  virtual void deliver(const message_ptr& m, boost::asio::any_io_executor where,
                       std::function<void(std::size_t)> done) = 0;
  // Another node kicked `user` (close its sessions here) / took session `key` ("user/sid") over.
  virtual void close_user(std::string user) = 0;
  virtual void evict(std::string key) = 0;
  // A take-down: expire message `id` on every loop, if it is held and in force.
  virtual void expire_message(std::uint64_t id) = 0;
  // A scheduled promotion came due and this node publishes it (the request as posted).
  virtual void publish_scheduled(const std::string& request_json) = 0;
  // The messages in this node's history (home loop's), for reach.
  virtual std::vector<message_ptr> retained() = 0;

 protected:
  ~backplane_node() = default;
};

// Every backplane hears this node's session events (any loop): a shared one mirrors presence.
class backplane : public session_events {
 public:
  virtual ~backplane() = default;

  // On the home loop, once, before any client.
  virtual void start() = 0;

  struct status {
    bool shared = false;    // several nodes share it (--redis)
    bool reachable = true;  // it can be used now (/healthz)
    std::string problem;    // why not, for the 503s ("redis 127.0.0.1:6379: …"); else empty
    std::string node_id;    // this node's id among the nodes; empty alone
    std::uint64_t reconnects = 0;
  };
  // Any thread.
  virtual status state() const = 0;

  struct published {
    std::uint64_t id;
    std::size_t recipients;  // on this node
  };
  // Numbers `req` (through the node's sequencer: alone by number(), shared by Redis and then
  // take()) and has every node deliver it (this one through backplane_node::deliver).
  // Any thread; `done` runs on `origin` (nullopt: unreachable, nothing was published).
  virtual void publish(const publish_request& req, boost::asio::any_io_executor origin,
                       std::function<void(std::optional<published>)> done) = 0;
  // The other nodes close `user`'s connections (this node closes its own).
  virtual void announce_kick(const std::string& user) = 0;
  // Message `id` (held here and in force) is taken down on every node, this one included;
  // done(false): unreachable.
  virtual void take_down(std::uint64_t id, std::function<void(bool)> done) = 0;
  // Session `key` is held here from now on (another node holding it closes it); done(known
  // elsewhere before) runs on `origin`, at once when the answer is known at once. Any loop.
  virtual void claim_session(std::string key, boost::asio::any_io_executor origin,
                             std::function<void(bool)> done) = 0;
  // `s` lost its last connection here. Any loop.
  virtual void release_session(const session& s) = 0;

  // Promotions: add waits `request_json` (a valid publish request) until `at_ms`.
  virtual void schedule_add(std::string request_json, std::int64_t at_ms,
                            std::function<void(promotion_outcome, std::string id)> done) = 0;
  virtual void schedule_list(
      std::function<void(std::optional<std::vector<scheduled_promotion>>)> done) = 0;
  virtual void schedule_cancel(const std::string& id,
                               std::function<void(promotion_outcome)> done) = 0;
  // How many wait (shared: at the last claim or add). Any thread.
  virtual std::size_t scheduled() const = 0;

  struct reach_counts {
    std::uint64_t recipients = 0, delivered = 0, acked = 0;
  };
  // Of `m`, held in this node's history; nullopt: unreachable.
  virtual void reach(const message_ptr& m,
                     std::function<void(std::optional<reach_counts>)> done) = 0;

  // nullopt: unreachable.
  virtual void presence(const presence_query& q,
                        std::function<void(std::optional<presence_figures>)> done) = 0;

  // Before start(): the Pusher door's channels shared with the other nodes (they outlive the
  // backplane's use of them); alone there is nothing to share (null).
  virtual pusher_cluster* share_pusher_channels(pusher_channels& /*channels*/) { return nullptr; }

  // Upgrade in place (docs/operations.md, "Upgrading"; core/node_handover.cpp). Alone, the
  // backplane keeps the schedule, which moves with the process; shared through Redis it stays
  // there, and these carry nothing. (The ids are the node's sequencer's, whichever numbers them.)
  // Before start(): go on as node `id` of the nodes sharing it (an upgraded process keeps its
  // predecessor's id). Alone there is no id, and nothing to keep.
  virtual void keep_node_id(const std::string& /*id*/) {}
  // With every loop stopped: the waiting promotions into `state`.
  virtual void capture(upgrade::handover_state& /*state*/, timing_wheel::time_point /*now*/) {}
  // Before the loops run: the promotions wait again.
  virtual void restore(const upgrade::handover_state& /*state*/, timing_wheel::time_point /*now*/) {
  }
};

}  // namespace ringcast
