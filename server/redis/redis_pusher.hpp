// The Pusher door's channels across the nodes of a cluster (docs/pusher.md, "Several nodes";
// core/pusher_channels.hpp): occupancy and presence members decided in Redis, so that each
// channel_occupied / vacated and member_added / removed happens once for the cluster, on the
// node whose change made it (Reverb's reverb#273 is getting this wrong).
//
//   {ringcast}:pusher:nodes          sorted set: node -> its last beat (Redis TIME, ms)
//   {ringcast}:pusher:<node>:occ     set: the channels with an online session on that node
//   {ringcast}:pusher:<node>:mc      set: the presence channels with a member on that node
//   {ringcast}:pusher:<node>:m:<c>   set: the users with a connection on channel c there
//   {ringcast}:pusher:info:<c>       hash: user -> user_info, the cluster's members of c
// A node's change is one Lua script (atomic): it changes the node's sets and, when the node's
// first (last) makes the cluster's first (last), returns the change, for this node's webhooks,
// and publishes a member's on `ringcast:control`, where every node's door hears it once.
// Each node beats every third of the session TTL; a beat also reaps the nodes silent for longer
// than a session TTL: their channels and members leave as if each had left (vacated and
// member_removed, once, from the reaping node), and their keys go. Keys live three TTLs past the
// last beat, so a dead node's are still there when it is reaped. A node whose keys may be wrong
// (the bus reconnected, or it was reaped while alive) writes its whole state again in one
// script that adds what is missing and removes what is gone, with their changes.
// subscription_count is presence's, summed over the live nodes (redis_presence.hpp).
// Bounds: a node holds in Redis what it holds itself (core/pusher_channels.hpp).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <atomic>
#include <chrono>
#include <string>
#include <vector>

#include "core/pusher_channels.hpp"

struct redisReply;  // hiredis

namespace ringcast {

class redis_bus;

class redis_pusher final : public pusher_cluster {
 public:
  redis_pusher(boost::asio::io_context& bus_ctx, redis_bus& bus, pusher_channels& channels,
               std::chrono::milliseconds session_ttl);
  void start();  // the heartbeat, on the bus's io_context
  void stop();

  // pusher_cluster, from any thread.
  void node_occupancy(const std::string& channel, bool occupied) override;
  void node_member(const std::string& channel, const pusher_member& member, bool joined) override;
  void channel(const std::string& name, boost::asio::any_io_executor origin,
               std::function<void(std::optional<pusher::channel_counts>)> done) override;
  void channels(
      const std::string& prefix, boost::asio::any_io_executor origin,
      std::function<void(std::optional<std::vector<pusher::channel_counts>>)> done) override;
  void members(const std::string& channel, boost::asio::any_io_executor origin,
               std::function<void(std::optional<std::vector<pusher_member>>)> done) override;

  bool settled() const override { return in_flight_.load(std::memory_order_acquire) == 0; }

  // A member change another node (or this one) published: the door's connections here hear it.
  void on_published(std::string_view payload);

 private:
  void change(std::vector<std::string> args);  // on the bus's context
  void beat();
  void rewrite();
  void on_changes(const redisReply* r);

  boost::asio::io_context& ctx_;
  redis_bus& bus_;
  pusher_channels& channels_;
  std::chrono::milliseconds ttl_;
  boost::asio::steady_timer timer_;
  bool stale_ = false;  // a change was lost: the next beat writes the whole state again
  bool listed_ = false;
  std::atomic<std::size_t> in_flight_{
      0};  // changes told and not yet answered  // a beat succeeded: a later one that finds the
           // node unlisted is a loss
};

}  // namespace ringcast
