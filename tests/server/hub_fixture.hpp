// One event loop's hub for unit tests: the settings, a simulated clock, the loop's timers and
// counters, and the hub over them, with the ways a test moves time (as the loop's timer would).
// The hub tests derive their fixtures from it.
#pragma once

#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "hub.hpp"

namespace ringcast::test {

class hub_fixture : public ::testing::Test {
 protected:
  using time_point = hub::time_point;

  // The hub is made on first use, so a test may change `cfg` first. `cfg` outlives it.
  hub& the_hub() {
    if (!hub_) make_hub();
    return *hub_;
  }
  // A new hub (and timers, counters) from `cfg` as it is now, on the same clock.
  void make_hub(std::uint64_t floor_id = 0) {
    hub_.reset();
    timers_ = std::make_unique<loop_timers>(clock, epoch, cfg.tick, cfg.wheel_slots,
                                            [this](time_point t) { wakes.push_back(t); });
    stats = {};
    hub_ = std::make_unique<hub>(cfg, *timers_, stats, floor_id);
  }
  loop_timers& timers() {
    the_hub();
    return *timers_;
  }

  // Steps the clock a tick at a time, as the event loop's timer would, up to `t`.
  void advance_to(time_point t) {
    ASSERT_GE(t, now);
    while (now < t) {
      now = std::min(t, now + cfg.tick);
      run_timers();
    }
  }
  void advance_by(std::chrono::milliseconds d) { advance_to(now + d); }
  // One advance straight to `t`, as after a stalled loop.
  void jump_to(time_point t) {
    ASSERT_GE(t, now);
    now = t;
    run_timers();
  }
  // Moves the clock (steady and wall) to `now` and runs every timer due by then.
  void run_timers() {
    clock.set(now);
    timers().advance(now);
  }

  config cfg;
  const time_point epoch = time_point{} + std::chrono::hours(1);
  time_point now = epoch;
  simulated_clock clock{epoch};
  loop_stats stats;               // the loop's counters, which the hub counts into
  std::vector<time_point> wakes;  // when the timers asked the loop to wake earlier

 private:
  std::unique_ptr<loop_timers> timers_;
  std::unique_ptr<hub> hub_;
};

}  // namespace ringcast::test
