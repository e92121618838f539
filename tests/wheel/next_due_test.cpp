// next_due(): the instant the owner arms its one event-loop timer for.
#include <gtest/gtest.h>

#include <optional>
#include <vector>

#include "ringcast/wheel/timing_wheel.hpp"
#include "wheel_test_support.hpp"

namespace ringcast::test {
namespace {

TEST(NextDue, NothingArmedMeansNoWakeUp) {
  timing_wheel wheel(t0, one_tick, 16);
  EXPECT_EQ(wheel.next_due(), std::nullopt);
  timer_node node;
  wheel.schedule(node, at(5));
  wheel.cancel(node);
  EXPECT_EQ(wheel.next_due(), std::nullopt);
}

TEST(NextDue, IsTheEarliestDeadlineInLevelZero) {
  timing_wheel wheel(t0, one_tick, 64);
  timer_node late;
  timer_node early;
  wheel.schedule(late, at(40));
  wheel.schedule(early, at(9));
  EXPECT_EQ(wheel.next_due(), at(9));
  wheel.cancel(early);
  EXPECT_EQ(wheel.next_due(), at(40));
  wheel.advance(at(30), [](timer_node&) {});
  EXPECT_EQ(wheel.next_due(), at(40));
  wheel.advance(at(40), [](timer_node&) {});
  EXPECT_EQ(wheel.next_due(), std::nullopt);
}

TEST(NextDue, SeesTheLastSlotOfTheRing) {
  timing_wheel wheel(t0, one_tick, 64);
  timer_node node;
  wheel.schedule(node, at(63));
  EXPECT_EQ(wheel.next_due(), at(63));
  wheel.advance(at(62), [](timer_node&) {});
  EXPECT_EQ(wheel.next_due(), at(63));
  wheel.cancel(node);
}

// A far node is reported at its cascade boundary: never later than its own deadline, and in
// front of any level-0 node due after that boundary.
TEST(NextDue, AFarNodeWakesAtItsCascadeBoundary) {
  timing_wheel wheel(t0, one_tick, 16);
  timer_node node;
  wheel.schedule(node, at(16 * 3 + 5));
  EXPECT_EQ(wheel.next_due(), at(16 * 3));
  wheel.advance(at(16 * 3), [](timer_node&) {});
  EXPECT_EQ(wheel.next_due(), at(16 * 3 + 5));
  wheel.cancel(node);
}

TEST(NextDue, NeverLaterThanTheEarliestDeadline) {
  timing_wheel wheel(t0, one_tick, 16);
  std::vector<timer_node> nodes(6);
  const std::int64_t deadlines[] = {1'000'000, 70'000, 4097, 300, 31, 2};
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    wheel.schedule(nodes[i], at(deadlines[i]));
    ASSERT_TRUE(wheel.next_due());
    EXPECT_LE(*wheel.next_due(), at(deadlines[i]));
    EXPECT_GT(*wheel.next_due(), at(0));
  }
  for (auto& node : nodes)
    wheel.cancel(node);
}

// The server's loop: sleep until next_due(), advance to it, repeat. Every node fires at exactly
// its due time, and the number of wake-ups is bounded by the cascades, not by the ticks.
TEST(NextDue, DrivingTheWheelByNextDueFiresEverythingOnTime) {
  timing_wheel wheel(t0, one_tick, 16);
  const std::int64_t deadlines[] = {3, 3, 17, 4096 + 7, 1'000'000, 65'536, 900};
  std::vector<timer_node> nodes(std::size(deadlines));
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    nodes[i].tag = static_cast<std::uint32_t>(i);
    wheel.schedule(nodes[i], at(deadlines[i]));
  }
  std::size_t wake_ups = 0;
  std::size_t fired = 0;
  while (const auto due = wheel.next_due()) {
    ++wake_ups;
    wheel.advance(*due, [&](timer_node& node) {
      EXPECT_EQ(*due, at(deadlines[node.tag])) << "tag " << node.tag;
      ++fired;
    });
  }
  EXPECT_EQ(fired, nodes.size());
  EXPECT_LT(wake_ups, 40u);
}

}  // namespace
}  // namespace ringcast::test
