// The node's promotions that span loops: the schedule of waiting publishes and the reach of a
// message in history. The node (core/node.hpp) forwards the node_promotions calls here; each runs
// on loop 0, where the backplane keeps the schedule and counts reach (alone on loop 0's wheel and
// from this node's counters; with --redis in Redis), and answers on the caller's loop.
#pragma once

#include <boost/asio/any_io_executor.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "core/backplane.hpp"
#include "core/every_loop.hpp"
#include "core/node_promotions.hpp"

namespace ringcast {

class promotions {
 public:
  using outcome = node_promotions::promotion_outcome;
  promotions(const node_loop& home, backplane& shared);

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
  std::size_t waiting() const { return backplane_.scheduled(); }

 private:
  node_loop home_;
  backplane& backplane_;
};

}  // namespace ringcast
