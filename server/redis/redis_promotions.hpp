// Promotions with --redis (docs/scaling.md, "Scheduled publishes" and "Reach"): the schedule is
// the cluster's, in Redis (redis_schedule), claimed by whichever node asks first when a promotion
// is due (the asking paced by schedule_poll on loop 0's wheel); reach is summed over the nodes
// (redis_reach). Part of redis_backplane; lives on loop 0, where the bus runs, and outlives the
// bus (which answers what is pending when it goes), so the callbacks it gives the bus may refer
// to it.
#pragma once

#include <boost/asio/io_context.hpp>

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/backplane.hpp"
#include "core/schedule_poll.hpp"
#include "redis/redis_reach.hpp"
#include "redis/redis_schedule.hpp"

namespace ringcast {

class redis_bus;

class redis_promotions {
 public:
  // How often a node asks for due promotions whatever it expects: what a promotion whose
  // accepting node died can be late by.
  static constexpr std::chrono::milliseconds poll_period{250};

  // `limit`: --max-scheduled; `history`: the stream's length (--history).
  redis_promotions(boost::asio::io_context& home, redis_bus& bus, loop_timers& timers,
                   std::size_t limit, std::size_t history, redis_reach::retained_fn retained);
  ~redis_promotions();

  // On the home loop: the first claim at the next tick, and reach's flushes.
  void start();

  void add(std::string request_json, std::int64_t at_ms,
           std::function<void(promotion_outcome, std::string)> done);
  void list(std::function<void(std::optional<std::vector<scheduled_promotion>>)> done);
  void cancel(const std::string& id, std::function<void(promotion_outcome)> done);
  // The cluster's count at the last claim or add. Any thread.
  std::size_t waiting() const { return waiting_.load(std::memory_order_relaxed); }
  // `m` is in this node's history.
  void reach(const message_ptr& m,
             std::function<void(std::optional<backplane::reach_counts>)> done);

 private:
  void claim(std::function<void(schedule_poll::answer)> done);

  loop_timers& timers_;  // loop 0's
  std::atomic<std::size_t> waiting_{0};
  redis_schedule store_;
  redis_reach reach_;
  std::unique_ptr<schedule_poll> poll_;
};

}  // namespace ringcast
