// What on_expire may do while a tick is being expired: schedule, cancel or move any node.
#include <gtest/gtest.h>

#include <vector>

#include "ringcast/wheel/timing_wheel.hpp"
#include "wheel_test_support.hpp"

namespace ringcast::test {
namespace {

using fired_list = std::vector<firing>;

// Three nodes: a and b share tick 5 (a first), c waits at tick 9.
struct InsideCallback : ::testing::Test {
  timer_node a, b, c;
  timing_wheel wheel{t0, one_tick, 16};
  fired_list fired;

  void SetUp() override {
    a.tag = 0;
    b.tag = 1;
    c.tag = 2;
    wheel.schedule(a, at(5));
    wheel.schedule(b, at(5));
    wheel.schedule(c, at(9));
  }
  template <class F>
  void advance_to(std::int64_t tick, F&& on_a) {
    wheel.advance(at(tick), [&](timer_node& node) {
      fired.push_back({node.tag, wheel.current_tick()});
      if (&node == &a) on_a();
    });
  }
  void TearDown() override {
    wheel.cancel(a);
    wheel.cancel(b);
    wheel.cancel(c);
  }
};

TEST_F(InsideCallback, CancelItselfIsANoOp) {
  advance_to(5, [&] { EXPECT_FALSE(wheel.cancel(a)); });
  EXPECT_EQ(fired, (fired_list{{0, 5}, {1, 5}}));
  EXPECT_EQ(wheel.stats().cancelled, 0u);
}

TEST_F(InsideCallback, CancelTheNextNodeInTheSameSlot) {
  advance_to(20, [&] { EXPECT_TRUE(wheel.cancel(b)); });
  EXPECT_EQ(fired, (fired_list{{0, 5}, {2, 9}}));
  EXPECT_EQ(wheel.stats().cancelled, 1u);
  EXPECT_EQ(wheel.size(), 0u);
}

TEST_F(InsideCallback, CancelANodeInALaterSlot) {
  advance_to(20, [&] { EXPECT_TRUE(wheel.cancel(c)); });
  EXPECT_EQ(fired, (fired_list{{0, 5}, {1, 5}}));
}

TEST_F(InsideCallback, RearmItselfWithDelayZeroFiresNextTickNotNow) {
  advance_to(5, [&] { wheel.schedule(a, at(5)); });
  EXPECT_EQ(fired, (fired_list{{0, 5}, {1, 5}}));
  EXPECT_TRUE(a.armed());
  EXPECT_EQ(wheel.due_time(a), at(6));
  fired.clear();
  advance_to(6, [] {});
  EXPECT_EQ(fired, (fired_list{{0, 6}}));
}

// Re-arming every time it fires, with the clock jumping: one firing per tick, no livelock.
TEST_F(InsideCallback, RearmItselfEveryTickDuringCatchUp) {
  advance_to(12, [&] { wheel.schedule(a, at(static_cast<std::int64_t>(wheel.current_tick()))); });
  // a fires at 5, 6, ... 12 (the re-arm lands in the next tick each time); at 9 it queues
  // behind c, which was armed first.
  fired_list expected = {{0, 5}, {1, 5}, {0, 6}, {0, 7}, {0, 8}, {2, 9}, {0, 9}};
  expected.insert(expected.end(), {{0, 10}, {0, 11}, {0, 12}});
  EXPECT_EQ(fired, expected);
  EXPECT_TRUE(a.armed());
}

TEST_F(InsideCallback, RearmItselfFarAway) {
  advance_to(5, [&] { wheel.schedule(a, at(5 + 4096)); });
  EXPECT_EQ(wheel.next_due(), at(9));
  fired.clear();
  advance_to(5 + 4095, [] {});
  EXPECT_EQ(fired, (fired_list{{2, 9}}));
  fired.clear();
  advance_to(5 + 4096, [] {});
  EXPECT_EQ(fired, (fired_list{{0, 5 + 4096}}));
}

TEST_F(InsideCallback, MoveTheNextNodeInTheSameSlotLater) {
  advance_to(20, [&] { wheel.move(b, at(7)); });
  EXPECT_EQ(fired, (fired_list{{0, 5}, {1, 7}, {2, 9}}));
  EXPECT_EQ(wheel.stats().moved, 1u);
}

// Moving a waiting node to the current tick (or earlier) fires it at the next tick.
TEST_F(InsideCallback, MoveTheNextNodeInTheSameSlotToNow) {
  advance_to(20, [&] { wheel.move(b, at(1)); });
  EXPECT_EQ(fired, (fired_list{{0, 5}, {1, 6}, {2, 9}}));
}

TEST_F(InsideCallback, MoveANodeInALaterSlotEarlier) {
  advance_to(20, [&] { wheel.move(c, at(6)); });
  EXPECT_EQ(fired, (fired_list{{0, 5}, {1, 5}, {2, 6}}));
}

TEST_F(InsideCallback, MoveANodeInALaterSlotLater) {
  advance_to(20, [&] { wheel.move(c, at(300)); });
  EXPECT_EQ(fired, (fired_list{{0, 5}, {1, 5}}));
  fired.clear();
  advance_to(300, [] {});
  EXPECT_EQ(fired, (fired_list{{2, 300}}));
}

TEST_F(InsideCallback, ScheduleANewNodeForTheCurrentTick) {
  timer_node d;
  d.tag = 3;
  advance_to(20, [&] { wheel.schedule(d, at(5)); });
  EXPECT_EQ(fired, (fired_list{{0, 5}, {1, 5}, {3, 6}, {2, 9}}));
}

TEST_F(InsideCallback, ScheduleANewNodeIntoALaterOccupiedSlot) {
  timer_node d;
  d.tag = 3;
  advance_to(20, [&] { wheel.schedule(d, at(9)); });
  EXPECT_EQ(fired, (fired_list{{0, 5}, {1, 5}, {2, 9}, {3, 9}}));
}

// The pattern the server uses for idle timeouts: activity only records a time; when the node
// comes due it is re-armed at last_activity + timeout, and expires only after a real idle spell.
TEST(LazyRearm, ExpiresOnlyAfterAFullIdleTimeout) {
  timing_wheel wheel(t0, one_tick, 16);
  constexpr std::int64_t timeout = 10;
  timer_node idle;
  timing_wheel::time_point last_activity = at(0);
  std::vector<std::uint64_t> expired_at;
  std::uint64_t lazy_moves = 0;
  auto on_expire = [&](timer_node& node) {
    const auto deadline = last_activity + timeout * one_tick;
    if (deadline > at(static_cast<std::int64_t>(wheel.current_tick()))) {
      wheel.schedule(node, deadline);
      ++lazy_moves;
    } else {
      expired_at.push_back(wheel.current_tick());
    }
  };
  wheel.schedule(idle, last_activity + timeout * one_tick);
  for (std::int64_t now = 1; now <= 40; ++now) {
    if (now <= 23 && now % 3 == 0) last_activity = at(now);  // activity until tick 21
    wheel.advance(at(now), on_expire);
  }
  EXPECT_EQ(expired_at, (std::vector<std::uint64_t>{31}));
  // At 10 (to 19), 19 (to 28) and 28 (to 31): once per timeout, not once per activity.
  EXPECT_EQ(lazy_moves, 3u);
  EXPECT_EQ(wheel.stats().moved, 0u);  // the node had fired: each re-arm is a schedule
  EXPECT_EQ(wheel.stats().scheduled, 4u);
}

}  // namespace
}  // namespace ringcast::test
