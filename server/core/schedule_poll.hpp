// When a node asks the cluster's schedule for what is due (with --redis; docs/scaling.md,
// "Scheduled publishes"). The schedule lives in Redis, where a claim is atomic: whichever node
// claims a due promotion publishes it, once. This decides only *when* this node asks, on its
// loop's wheel (one timer node, never one per promotion):
//   - every `period`, so that a promotion whose accepting node died is still published, at most
//     one period (plus a tick) late;
//   - at the earliest `at` still waiting, as the last claim reported it (the wait is measured on
//     Redis's clock, so the nodes' clocks need not agree), and at the `at` of a promotion this node
//     accepted: so normally at most one tick late;
//   - again at once when a claim was cut short by its batch size;
//   - never while a claim is still unanswered.
// Used from one event loop only.
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <optional>

#include "core/loop_timers.hpp"

namespace ringcast {

class schedule_poll final : public loop_timer {
 public:
  using time_point = timing_wheel::time_point;

  // What a claim answered. `ok` false: Redis was unreachable (asked again after a period).
  struct answer {
    bool ok = false;
    bool more = false;                                  // the batch was full: more may be due now
    std::optional<std::chrono::milliseconds> next_due;  // until the earliest still waiting
  };
  using claim_fn = std::function<void(std::function<void(answer)> done)>;

  // `timers`: the loop's, holding the poll's one node.
  schedule_poll(std::chrono::milliseconds period, loop_timers& timers, claim_fn claim);
  ~schedule_poll();
  schedule_poll(const schedule_poll&) = delete;
  schedule_poll& operator=(const schedule_poll&) = delete;

  // The first claim, at the next tick.
  void start();
  // A promotion accepted here is due at `due`: ask then, if that is before the next claim.
  void expect(time_point due);
  bool claiming() const { return in_flight_; }

  void on_timer(time_point now) override;

 private:
  void answered(const answer& a);
  void arm_at(time_point when);

  std::chrono::milliseconds period_;
  claim_fn claim_;
  bool in_flight_ = false;
  time_point deadline_{};               // of the armed node
  std::optional<time_point> expected_;  // an expect() that came while a claim was unanswered
  // Shared with the callback given to `claim_`: an answer after destruction touches nothing.
  std::shared_ptr<schedule_poll*> self_ = std::make_shared<schedule_poll*>(this);
};

}  // namespace ringcast
