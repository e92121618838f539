// Single operations and their edges, driven by a simulated clock (1 tick = 1 ms from t0).
#include "ringcast/wheel/timing_wheel.hpp"

#include <gtest/gtest.h>

#include <vector>

#include "wheel_test_support.hpp"

namespace ringcast::test {
namespace {

using fired_list = std::vector<firing>;

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

TEST(TimingWheel, DelayZeroFiresAtTheNextTick) {
  timing_wheel wheel(t0, one_tick, 16);
  timer_node node;
  wheel.schedule(node, t0);
  EXPECT_EQ(wheel.due_time(node), at(1));
  EXPECT_EQ(advance_recording(wheel, at(1) - 1ns), fired_list{});
  EXPECT_EQ(advance_recording(wheel, at(1)), (fired_list{{0, 1}}));

  wheel.advance(at(37), [](timer_node&) {});
  wheel.schedule(node, at(37));
  EXPECT_EQ(advance_recording(wheel, at(38)), (fired_list{{0, 38}}));
}

TEST(TimingWheel, DelayBelowOneTickRoundsUpToTheTickBoundary) {
  timing_wheel wheel(t0, one_tick, 16);
  timer_node node;
  wheel.advance(at(3), [](timer_node&) {});
  wheel.schedule(node, at(3) + 1ns);
  EXPECT_EQ(wheel.due_time(node), at(4));
  EXPECT_EQ(advance_recording(wheel, at(4) - 1ns), fired_list{});
  EXPECT_EQ(advance_recording(wheel, at(4)), (fired_list{{0, 4}}));
}

TEST(TimingWheel, DeadlineOnABoundaryFiresInThatTick) {
  timing_wheel wheel(t0, one_tick, 16);
  timer_node node;
  wheel.schedule(node, at(5));
  EXPECT_EQ(advance_recording(wheel, at(5) - 1ns), fired_list{});
  EXPECT_EQ(advance_recording(wheel, at(5)), (fired_list{{0, 5}}));
}

// Exactly one revolution lands in the hand's own slot: it must wait the whole turn.
TEST(TimingWheel, ExactlyOneRevolution) {
  for (std::int64_t start : {0, 1, 7, 15, 16, 250}) {
    SCOPED_TRACE(start);
    timing_wheel wheel(t0, one_tick, 16);
    wheel.advance(at(start), [](timer_node&) {});
    timer_node node;
    wheel.schedule(node, at(start + 16));
    const auto expected = static_cast<std::uint64_t>(start + 16);
    EXPECT_EQ(advance_recording(wheel, at(start + 15)), fired_list{});
    EXPECT_EQ(advance_recording(wheel, at(start + 16)), (fired_list{{0, expected}}));
  }
}

TEST(TimingWheel, ManyRevolutionsFireInTheirOwnTick) {
  const std::int64_t delays[] = {17, 255, 256, 257, 4096 + 3, 1'000'003, std::int64_t{1} << 40};
  for (std::int64_t delay : delays) {
    SCOPED_TRACE(delay);
    timing_wheel wheel(t0, one_tick, 16);
    wheel.advance(at(9), [](timer_node&) {});
    timer_node node;
    wheel.schedule(node, at(9 + delay));
    EXPECT_EQ(advance_recording(wheel, at(9 + delay - 1)), fired_list{});
    const auto expected = static_cast<std::uint64_t>(9 + delay);
    EXPECT_EQ(advance_recording(wheel, at(9 + delay)), (fired_list{{0, expected}}));
    EXPECT_GT(wheel.stats().cascaded, 0u);
  }
}

TEST(TimingWheel, CenturiesAheadIsHeldNotFired) {
  timing_wheel wheel(t0, 1ns, 16);
  timer_node node;
  wheel.schedule(node, timing_wheel::time_point::max());
  EXPECT_TRUE(node.armed());
  EXPECT_EQ(wheel.due_time(node), timing_wheel::time_point::max());
  EXPECT_EQ(advance_recording(wheel, t0 + std::chrono::hours(24 * 365 * 200)), fired_list{});
  EXPECT_TRUE(wheel.cancel(node));
}

// A coarse tick times a far deadline past time_point::max(): the instant saturates, never wraps.
TEST(TimingWheel, DueTimeSaturatesAtTheEndOfTime) {
  timing_wheel wheel(t0 + 1h, one_tick, 64);
  timer_node node;
  wheel.schedule(node, timing_wheel::time_point::max());
  EXPECT_EQ(wheel.due_time(node), timing_wheel::time_point::max());
  ASSERT_TRUE(wheel.next_due());
  EXPECT_GT(*wheel.next_due(), t0 + 1h);
  wheel.cancel(node);
}

TEST(TimingWheel, DeadlineInThePastFiresAtTheNextTick) {
  timing_wheel wheel(t0, one_tick, 16);
  wheel.advance(at(40), [](timer_node&) {});
  timer_node past;
  timer_node before_epoch;
  before_epoch.tag = 1;
  wheel.schedule(past, at(3));
  wheel.schedule(before_epoch, at(-1000));
  EXPECT_EQ(advance_recording(wheel, at(40)), fired_list{});
  EXPECT_EQ(advance_recording(wheel, at(41)), (fired_list{{0, 41}, {1, 41}}));
}

TEST(TimingWheel, MoveToALaterSlot) {
  timing_wheel wheel(t0, one_tick, 16);
  timer_node node;
  wheel.schedule(node, at(3));
  wheel.move(node, at(10));
  EXPECT_EQ(advance_recording(wheel, at(9)), fired_list{});
  EXPECT_EQ(advance_recording(wheel, at(10)), (fired_list{{0, 10}}));
  EXPECT_EQ(wheel.stats().scheduled, 1u);
  EXPECT_EQ(wheel.stats().moved, 1u);
}

TEST(TimingWheel, MoveToAnEarlierSlot) {
  timing_wheel wheel(t0, one_tick, 16);
  timer_node node;
  wheel.schedule(node, at(12));
  wheel.move(node, at(2));
  EXPECT_EQ(advance_recording(wheel, at(2)), (fired_list{{0, 2}}));
  EXPECT_EQ(advance_recording(wheel, at(100)), fired_list{});
}

TEST(TimingWheel, MoveBetweenLevels) {
  timing_wheel wheel(t0, one_tick, 16);
  timer_node node;
  wheel.schedule(node, at(5000));  // a coarse level
  wheel.move(node, at(4));         // level 0
  EXPECT_EQ(advance_recording(wheel, at(4)), (fired_list{{0, 4}}));
  wheel.schedule(node, at(6));
  wheel.move(node, at(70'000));  // back up to a coarse level
  EXPECT_EQ(advance_recording(wheel, at(69'999)), fired_list{});
  EXPECT_EQ(advance_recording(wheel, at(70'000)), (fired_list{{0, 70'000}}));
  EXPECT_EQ(wheel.stats().moved, 2u);
}

// Two deadlines sharing a coarse slot: the move keeps the slot but must still fire at the new tick.
TEST(TimingWheel, MoveWithinTheSameCoarseSlot) {
  timing_wheel wheel(t0, one_tick, 16);
  timer_node node;
  wheel.schedule(node, at(40));
  const auto before =
      std::vector<std::uint32_t>(wheel.occupancy(1).begin(), wheel.occupancy(1).end());
  wheel.move(node, at(45));
  EXPECT_TRUE(std::equal(before.begin(), before.end(), wheel.occupancy(1).begin()));
  EXPECT_EQ(advance_recording(wheel, at(44)), fired_list{});
  EXPECT_EQ(advance_recording(wheel, at(45)), (fired_list{{0, 45}}));
}

TEST(TimingWheel, MoveOfAnUnarmedNodeSchedulesIt) {
  timing_wheel wheel(t0, one_tick, 16);
  timer_node node;
  wheel.move(node, at(2));
  EXPECT_TRUE(node.armed());
  EXPECT_EQ(wheel.stats().scheduled, 1u);
  EXPECT_EQ(wheel.stats().moved, 0u);
  EXPECT_EQ(advance_recording(wheel, at(2)), (fired_list{{0, 2}}));
}

TEST(TimingWheel, CancelDisarmsOnce) {
  timing_wheel wheel(t0, one_tick, 16);
  timer_node node;
  EXPECT_FALSE(wheel.cancel(node));
  wheel.schedule(node, at(3000));
  EXPECT_TRUE(timing_wheel::armed(node));
  EXPECT_TRUE(wheel.cancel(node));
  EXPECT_FALSE(node.armed());
  EXPECT_FALSE(wheel.cancel(node));
  EXPECT_EQ(wheel.size(), 0u);
  EXPECT_EQ(wheel.stats().cancelled, 1u);
  EXPECT_EQ(advance_recording(wheel, at(10'000)), fired_list{});
  EXPECT_EQ(wheel.next_due(), std::nullopt);
}

TEST(TimingWheel, AFiredNodeIsUnarmedAndCanBeReused) {
  timing_wheel wheel(t0, one_tick, 16);
  timer_node node;
  wheel.schedule(node, at(1));
  wheel.advance(at(1), [&](timer_node& n) { EXPECT_FALSE(n.armed()); });
  EXPECT_FALSE(node.armed());
  wheel.schedule(node, at(3));
  EXPECT_EQ(advance_recording(wheel, at(3)), (fired_list{{0, 3}}));
  EXPECT_EQ(wheel.stats().fired, 2u);
  EXPECT_EQ(wheel.stats().scheduled, 2u);
}

// A stall: the clock jumps many revolutions at once and every missed tick is processed in order.
TEST(TimingWheel, ClockJumpCatchesUpInDeadlineOrder) {
  timing_wheel wheel(t0, one_tick, 16);
  const std::vector<std::int64_t> deadlines = {5000, 3, 16, 17, 300, 15, 4096, 299, 4095, 1};
  std::vector<timer_node> nodes(deadlines.size());
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    nodes[i].tag = static_cast<std::uint32_t>(i);
    wheel.schedule(nodes[i], at(deadlines[i]));
  }
  const fired_list fired = advance_recording(wheel, at(100'000));
  ASSERT_EQ(fired.size(), deadlines.size());
  for (std::size_t i = 0; i < fired.size(); ++i) {
    EXPECT_EQ(fired[i].tick, static_cast<std::uint64_t>(deadlines[fired[i].tag]));
    if (i > 0) {
      EXPECT_LT(fired[i - 1].tick, fired[i].tick);
    }
  }
  EXPECT_EQ(wheel.current_tick(), 100'000u);
  EXPECT_EQ(wheel.size(), 0u);
}

TEST(TimingWheel, ClockGoingBackwardsIsIgnored) {
  timing_wheel wheel(t0, one_tick, 16);
  timer_node node;
  wheel.advance(at(50), [](timer_node&) {});
  wheel.schedule(node, at(52));
  EXPECT_EQ(advance_recording(wheel, at(10)), fired_list{});
  EXPECT_EQ(wheel.current_tick(), 50u);
  EXPECT_EQ(advance_recording(wheel, at(52)), (fired_list{{0, 52}}));
}

TEST(TimingWheel, NodesOfOneTickFireInTheOrderTheyWereArmed) {
  timing_wheel wheel(t0, one_tick, 16);
  std::vector<timer_node> nodes(4);
  for (std::uint32_t i = 0; i < 4; ++i) {
    nodes[i].tag = i;
    wheel.schedule(nodes[i], at(7));
  }
  EXPECT_EQ(advance_recording(wheel, at(7)), (fired_list{{0, 7}, {1, 7}, {2, 7}, {3, 7}}));
}

TEST(TimingWheel, SlotCountIsNormalisedToAPowerOfTwo) {
  const std::pair<std::uint32_t, std::uint32_t> cases[] = {
      {0, 16}, {1, 16}, {16, 16}, {17, 32}, {100, 128}, {256, 256}, {65536, 65536}, {70000, 65536}};
  for (auto [asked, expected] : cases) {
    timing_wheel wheel(t0, one_tick, asked);
    EXPECT_EQ(wheel.slot_count(), expected) << "asked " << asked;
    EXPECT_EQ(wheel.occupancy(0).size(), expected);
  }
  // Enough levels of log2(slots) bits each to cover a 64-bit tick.
  EXPECT_EQ(timing_wheel(t0, one_tick, 16).level_count(), 16u);
  EXPECT_EQ(timing_wheel(t0, one_tick, 256).level_count(), 8u);
  EXPECT_EQ(timing_wheel(t0, one_tick, 512).level_count(), 8u);
  EXPECT_EQ(timing_wheel(t0, one_tick, 65536).level_count(), 4u);
}

TEST(TimingWheel, TickIsAtLeastOneNanosecond) {
  timing_wheel wheel(t0, timing_wheel::duration::zero(), 16);
  EXPECT_EQ(wheel.tick_length(), 1ns);
  timer_node node;
  wheel.schedule(node, t0 + 3ns);
  EXPECT_EQ(advance_recording(wheel, t0 + 3ns), (fired_list{{0, 3}}));
}

// The level is chosen by distance: a short timeout that crosses a big aligned boundary (here
// 16 * 16 ticks) stays in level 1, so that boundary does not cascade every such node at once.
TEST(TimingWheel, ATimeoutCrossingAnAlignedBoundaryStaysInTheLevelOfItsDistance) {
  timing_wheel wheel(t0, one_tick, 16);
  wheel.advance(at(16 * 16 - 5), [](timer_node&) {});
  std::vector<timer_node> nodes(40);
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    wheel.schedule(nodes[i], at(16 * 16 - 5 + 20 + i));  // 20..59 ticks away, due after tick 256
  }
  std::uint32_t above_level_1 = 0;
  for (std::uint32_t level = 2; level < wheel.level_count(); ++level) {
    for (std::uint32_t count : wheel.occupancy(level))
      above_level_1 += count;
  }
  EXPECT_EQ(above_level_1, 0u);
  // Tick 256 (the boundary) cascades only the block of 16 ticks that starts there: the one node
  // due at 271, not all 40 (placed by the highest differing digit, all 40 would sit in level 2).
  wheel.advance(at(16 * 16), [](timer_node&) {});
  EXPECT_EQ(wheel.stats().cascaded, 1u);
  std::vector<std::ptrdiff_t> fired;
  wheel.advance(at(16 * 16 - 5 + 20 + 39),
                [&](timer_node& n) { fired.push_back(&n - nodes.data()); });
  ASSERT_EQ(fired.size(), nodes.size());
  for (std::size_t i = 0; i < fired.size(); ++i)
    EXPECT_EQ(fired[i], static_cast<std::ptrdiff_t>(i));  // in deadline order
  EXPECT_EQ(wheel.stats().cascaded, nodes.size());        // each cascaded once, from level 1 to 0
}

TEST(TimingWheel, IntrospectionShowsOccupancyAndCounters) {
  timing_wheel wheel(t0, one_tick, 16);
  std::vector<timer_node> nodes(5);
  wheel.schedule(nodes[0], at(3));
  wheel.schedule(nodes[1], at(3));
  wheel.schedule(nodes[2], at(9));
  wheel.schedule(nodes[3], at(16 * 5 + 2));   // level 1, slot 5
  wheel.schedule(nodes[4], at(16 * 16 * 2));  // level 2, slot 2
  EXPECT_EQ(wheel.size(), 5u);
  EXPECT_EQ(wheel.occupancy(0)[3], 2u);
  EXPECT_EQ(wheel.occupancy(0)[9], 1u);
  EXPECT_EQ(wheel.occupancy(1)[5], 1u);
  EXPECT_EQ(wheel.occupancy(2)[2], 1u);
  std::uint32_t total = 0;
  for (std::uint32_t level = 0; level < wheel.level_count(); ++level) {
    for (std::uint32_t count : wheel.occupancy(level))
      total += count;
  }
  EXPECT_EQ(total, 5u);

  wheel.move(nodes[2], at(4));
  EXPECT_EQ(wheel.occupancy(0)[9], 0u);
  EXPECT_EQ(wheel.occupancy(0)[4], 1u);
  wheel.cancel(nodes[1]);
  EXPECT_EQ(wheel.occupancy(0)[3], 1u);

  wheel.advance(at(5), [](timer_node&) {});
  EXPECT_EQ(wheel.current_tick(), 5u);
  EXPECT_EQ(wheel.occupancy(0)[3], 0u);
  EXPECT_EQ(wheel.occupancy(0)[4], 0u);
  EXPECT_EQ(wheel.size(), 2u);

  // The level-1 node cascades into level 0 when its block begins.
  wheel.advance(at(16 * 5), [](timer_node&) {});
  EXPECT_EQ(wheel.occupancy(1)[5], 0u);
  EXPECT_EQ(wheel.occupancy(0)[2], 1u);

  const timing_wheel::counters& c = wheel.stats();
  EXPECT_EQ(c.scheduled, 5u);
  EXPECT_EQ(c.moved, 1u);
  EXPECT_EQ(c.cancelled, 1u);
  EXPECT_EQ(c.fired, 2u);
  EXPECT_EQ(c.cascaded, 1u);
  EXPECT_GT(wheel.footprint_bytes(), 16u * 16u * (sizeof(void*) + sizeof(std::uint32_t)));
  wheel.cancel(nodes[3]);
  wheel.cancel(nodes[4]);
}

TEST(TimingWheel, TagIsTheOwners) {
  timing_wheel wheel(t0, one_tick, 16);
  timer_node node;
  node.tag = 0xfeedu;
  wheel.schedule(node, at(1000));
  wheel.move(node, at(2));
  EXPECT_EQ(advance_recording(wheel, at(2)), (fired_list{{0xfeedu, 2}}));
}

TEST(TimingWheel, DestroyingTheWheelDisarmsItsNodes) {
  timer_node near_node;
  timer_node far_node;
  {
    timing_wheel wheel(t0, one_tick, 16);
    wheel.schedule(near_node, at(1));
    wheel.schedule(far_node, at(1'000'000));
  }
  EXPECT_FALSE(near_node.armed());
  EXPECT_FALSE(far_node.armed());
}

}  // namespace
}  // namespace ringcast::test
