// Presence summed over the nodes of a cluster (docs/scaling.md, "Presence").
//
//   {ringcast}:presence:nodes             sorted set: node -> its last heartbeat (Redis TIME, ms)
//   {ringcast}:presence:<node>:u          hash: user -> online sessions on that node
//   {ringcast}:presence:<node>:c:<chan>   hash: user -> online sessions listening to chan there
//   {ringcast}:presence:<node>:channels   sorted set: chan -> online sessions there (for ?top=)
// Each node changes its own keys as its sessions come and go (HINCRBY, no scan), writes them all
// and beats each time the bus connects, then beats every third of the session TTL; a query sums
// the nodes whose beat is younger than one session TTL, so a node that dies stops counting within
// one TTL, and its keys expire after two.
// The session events arrive on every loop and are posted to the bus's io_context, where all of
// this runs. A change that fails (Redis unreachable) marks the node's keys stale: the next beat
// writes them again from this node's own counts (presence_counts).
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/presence.hpp"
#include "core/session_events.hpp"
#include "protocol/presence_query.hpp"

namespace ringcast {

class redis_bus;

class redis_presence final : public session_events {
 public:
  redis_presence(boost::asio::io_context& bus_ctx, redis_bus& bus, const presence_counts& local,
                 std::chrono::milliseconds session_ttl);
  void start();  // the heartbeat, on the bus's io_context
  void stop();

  // On the bus's io_context; done(nullopt) when Redis is unreachable.
  void query(const presence_query& q, std::function<void(std::optional<presence_figures>)> done);

  // session_events, from any loop.
  void on_connect(const session& s, bool resumed) override;
  void on_disconnect(const session& s, std::string_view reason) override;
  void on_subscribe(const session& s, const std::vector<std::string>& channels) override;
  void on_unsubscribe(const session& s, const std::vector<std::string>& channels) override;

 private:
  void change(const std::string& user, bool whole_session, int delta,
              const std::vector<std::string>& channels);
  void beat();
  void rewrite();

  boost::asio::io_context& ctx_;
  redis_bus& bus_;
  const presence_counts& local_;
  std::chrono::milliseconds ttl_;
  boost::asio::steady_timer timer_;
  bool stale_ = false;               // a change was lost: the next beat writes every key again
  std::uint64_t written_up_to_ = 0;  // the changes the last rewrite included
};

}  // namespace ringcast
