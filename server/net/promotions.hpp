// The node's promotions that span loops: the schedule of waiting publishes and the reach of a
// message in history. `server` forwards the node_promotions calls here. Alone, the schedule waits
// on loop 0's wheel (core/schedule) and reach counts this node's clients; with --redis both are the
// cluster's, in Redis (cluster_promotions). Either way every call runs on loop 0.
#pragma once

#include <boost/asio/any_io_executor.hpp>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "admin_request.hpp"
#include "node_promotions.hpp"
#include "schedule.hpp"

namespace ringcast {

class cluster_promotions;
class event_loop;
class redis_bus;

class promotions {
 public:
  using outcome = node_promotions::promotion_outcome;
  // `publish` publishes a due request at once, as POST /admin/publish without "at"/"delay" does.
  promotions(event_loop& home, std::size_t limit,
             std::function<void(const publish_request&)> publish);
  ~promotions();

  // With --redis, before anything was scheduled: from now on the schedule and reach are the
  // cluster's. On loop 0, as the bus; `history`: the stream's length (--history).
  void join_cluster(redis_bus& bus, std::size_t history);

  void add(std::string request_json, std::int64_t at_ms, boost::asio::any_io_executor origin,
           std::function<void(outcome, std::string)> done);
  void list(
      boost::asio::any_io_executor origin,
      std::function<void(std::optional<std::vector<node_promotions::scheduled_promotion>>)> done);
  void cancel(std::string id, boost::asio::any_io_executor origin,
              std::function<void(outcome)> done);
  void reach(std::uint64_t id, boost::asio::any_io_executor origin,
             std::function<void(outcome, node_promotions::message_reach)> done);
  // The `limit` newest messages in history, newest first, each with its reach as reach() gives it.
  void recent(std::size_t limit, boost::asio::any_io_executor origin,
              std::function<void(outcome, std::vector<node_promotions::message_reach>)> done);
  // How many wait (read on any thread); with --redis, in the cluster at the last claim or add.
  std::size_t waiting() const { return waiting_.load(std::memory_order_relaxed); }

 private:
  void publish_due(const std::string& request_json);

  event_loop& home_;
  std::size_t limit_;
  std::function<void(const publish_request&)> publish_;
  std::atomic<std::size_t> waiting_{0};
  std::unique_ptr<schedule> schedule_;           // alone; on home_'s thread only
  std::unique_ptr<cluster_promotions> cluster_;  // with --redis; on home_'s thread only
};

}  // namespace ringcast
