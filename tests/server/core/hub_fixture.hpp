// One event loop's hub for unit tests: the settings, a simulated clock, the loop's timers and
// counters, and the hub over them, with the ways a test moves time (as the loop's timer would).
// The hub tests derive their fixtures from it; the tests of the hub's parts alone derive theirs
// from the same loop with the parts over it instead (core/parts_fixture.hpp).
#pragma once

#include <algorithm>
#include <chrono>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

#include "core/hub.hpp"

namespace ringcast::test {

// `Held` is made as the hub is: (settings, timers, counters, floor id).
template <class Held>
class loop_fixture : public ::testing::Test {
 protected:
  using time_point = hub::time_point;

  // Made on first use, so a test may change `cfg` first. `cfg` outlives it.
  Held& held() {
    if (!held_) make_held();
    return *held_;
  }
  // A new one (and timers, counters) from `cfg` as it is now, on the same clock.
  void make_held(std::uint64_t floor_id = 0) {
    held_.reset();
    timers_ = std::make_unique<loop_timers>(clock, epoch, cfg.tick, cfg.wheel_slots,
                                            [this](time_point t) { wakes.push_back(t); });
    stats = {};
    held_ = std::make_unique<Held>(cfg, *timers_, stats, floor_id);
  }
  loop_timers& timers() {
    held();
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
  std::unique_ptr<Held> held_;  // after timers_: destroyed first
};

class hub_fixture : public loop_fixture<hub> {
 protected:
  hub& the_hub() { return held(); }
  void make_hub(std::uint64_t floor_id = 0) { make_held(floor_id); }
};

}  // namespace ringcast::test
