// The backplane of several nodes (--redis; core/backplane.hpp, docs/scaling.md): publishes are
// numbered and appended to the shared stream that every node reads in order (redis_bus) and
// hands, in that order, to the node's sequencer (core/sequencer.hpp: take), the
// schedule and reach are the cluster's (redis_promotions), presence is summed over the live nodes
// (redis_presence), and kicks, take-downs and session claims reach the other nodes through Redis.
// Everything runs on loop 0's io_context, where the bus lives; calls from other loops are posted
// there, and answers posted back.
#pragma once

#include <boost/asio/io_context.hpp>

#include <chrono>
#include <memory>

#include "core/backplane.hpp"
#include "core/sequencer.hpp"
#include "protocol/redis_url.hpp"

namespace ringcast {

class redis_bus;
class redis_presence;
class redis_pusher;
class redis_promotions;

class redis_backplane final : public backplane {
 public:
  struct settings {
    redis_url url;
    std::size_t history;                    // --history: the stream's length
    std::chrono::milliseconds session_ttl;  // --session-ttl
    std::size_t max_scheduled;              // --max-scheduled, over the cluster
  };
  // `home`: loop 0's io_context; `ids`: the node's sequencer; `counts`: this node's presence,
  // mirrored into Redis.
  redis_backplane(boost::asio::io_context& home, backplane_node& node, sequencer& ids,
                  loop_timers& timers, const presence_counts& counts, settings s);
  ~redis_backplane() override;

  void start() override;
  status state() const override;
  void keep_node_id(const std::string& id) override;

  void publish(const publish_request& req, boost::asio::any_io_executor origin,
               std::function<void(std::optional<published>)> done) override;
  void announce_kick(const std::string& user) override;
  void take_down(std::uint64_t id, std::function<void(bool)> done) override;
  void claim_session(std::string key, boost::asio::any_io_executor origin,
                     std::function<void(bool)> done) override;
  void release_session(const session& s) override;

  void schedule_add(std::string request_json, std::int64_t at_ms,
                    std::function<void(promotion_outcome, std::string)> done) override;
  void schedule_list(
      std::function<void(std::optional<std::vector<scheduled_promotion>>)> done) override;
  void schedule_cancel(const std::string& id, std::function<void(promotion_outcome)> done) override;
  std::size_t scheduled() const override;

  void reach(const message_ptr& m, std::function<void(std::optional<reach_counts>)> done) override;
  void presence(const presence_query& q,
                std::function<void(std::optional<presence_figures>)> done) override;
  pusher_cluster* share_pusher_channels(pusher_channels& channels) override;

  // session_events: mirrored into Redis (redis_presence).
  void on_connect(const session& s, bool resumed) override;
  void on_disconnect(const session& s, std::string_view reason) override;
  void on_subscribe(const session& s, const std::vector<std::string>& channels) override;
  void on_unsubscribe(const session& s, const std::vector<std::string>& channels) override;

 private:
  boost::asio::io_context& home_;
  backplane_node& node_;
  sequencer& ids_;
  std::unique_ptr<redis_bus> bus_;
  // Both refer to the bus; the destructor takes presence down first, then the bus, then these
  // (the bus answers what is pending when it goes, and the answers may reach them).
  std::unique_ptr<redis_promotions> promotions_;
  std::unique_ptr<redis_presence> presence_;
  std::unique_ptr<redis_pusher> pusher_;  // with the Pusher door
  std::chrono::milliseconds session_ttl_;
};

}  // namespace ringcast
