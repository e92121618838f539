#include "ringcast/wheel/timing_wheel.hpp"

#include <gtest/gtest.h>

#include <vector>

using namespace std::chrono_literals;
using ringcast::timer_node;
using ringcast::timing_wheel;

namespace {

const timing_wheel::time_point t0{};

TEST(TimingWheel, FiresAtItsTickNotBefore) {
  timing_wheel wheel(t0, 100ms, 16);
  timer_node node;
  wheel.schedule(node, t0 + 250ms);
  std::vector<timing_wheel::time_point> fired_at;
  for (auto now = t0; now <= t0 + 1s; now += 10ms) {
    wheel.advance(now, [&](timer_node&) { fired_at.push_back(now); });
  }
  ASSERT_EQ(fired_at.size(), 1u);
  EXPECT_EQ(fired_at[0], t0 + 300ms);
}

TEST(TimingWheel, LongDelayCascadesToItsExactTick) {
  timing_wheel wheel(t0, 1ms, 16);
  timer_node node;
  wheel.schedule(node, t0 + 86'400'000ms + 7ms);
  std::size_t fired = wheel.advance(t0 + 86'400'006ms, [](timer_node&) {});
  EXPECT_EQ(fired, 0u);
  fired = wheel.advance(t0 + 86'400'007ms, [](timer_node&) {});
  EXPECT_EQ(fired, 1u);
}

}  // namespace
