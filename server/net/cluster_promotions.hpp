// Promotions with --redis (docs/scaling.md, "Scheduled publishes" and "Reach"): the schedule is
// the cluster's, in Redis (redis_schedule), claimed by whichever node asks first when a promotion
// is due (the asking paced by schedule_poll on loop 0's wheel); reach is summed over the nodes
// (redis_reach). Lives on loop 0, where the bus runs, and outlives the bus (which answers what is
// pending when it goes), so the callbacks it gives the bus may refer to it.
#pragma once

#include <atomic>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "node_promotions.hpp"
#include "redis_reach.hpp"
#include "redis_schedule.hpp"
#include "schedule_poll.hpp"

namespace ringcast {

class event_loop;
class redis_bus;

class cluster_promotions {
 public:
  using outcome = node_promotions::promotion_outcome;
  // How often a node asks for due promotions whatever it expects: what a promotion whose
  // accepting node died can be late by.
  static constexpr std::chrono::milliseconds poll_period{250};

  // `waiting` is kept at the cluster's count as the last claim or add saw it.
  cluster_promotions(event_loop& home, redis_bus& bus, std::size_t limit, std::size_t history,
                     std::atomic<std::size_t>& waiting);
  ~cluster_promotions();

  void add(std::string request_json, std::int64_t at_ms,
           std::function<void(outcome, std::string)> done);
  void list(
      std::function<void(std::optional<std::vector<node_promotions::scheduled_promotion>>)> done);
  void cancel(const std::string& id, std::function<void(outcome)> done);
  // `m` is in this node's history.
  void reach(const message_ptr& m,
             std::function<void(outcome, node_promotions::message_reach)> done);

 private:
  void claim(std::function<void(schedule_poll::answer)> done);

  event_loop& home_;
  std::atomic<std::size_t>& waiting_;
  redis_schedule store_;
  redis_reach reach_;
  std::unique_ptr<schedule_poll> poll_;
};

}  // namespace ringcast
