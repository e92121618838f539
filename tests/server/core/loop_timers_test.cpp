// The loop's timer service on a simulated clock: arm, disarm, advance and the wake-up of the
// loop's one timer; a loop_timer that disarms itself with its owner; the steady and wall clocks
// moving together.
#include "core/loop_timers.hpp"

#include <chrono>
#include <optional>
#include <vector>

#include <gtest/gtest.h>

namespace ringcast {
namespace {

using namespace std::chrono_literals;
using time_point = loop_timers::time_point;

// Records when it fired.
class recorded final : public loop_timer {
 public:
  explicit recorded(loop_timers& timers) : loop_timer(timers) {}
  void on_timer(time_point now) override { fired.push_back(now); }
  std::vector<time_point> fired;
};

class LoopTimersTest : public ::testing::Test {
 protected:
  const time_point epoch = time_point{} + 1h;
  simulated_clock clock{epoch};
  std::vector<time_point> wakes;
  loop_timers timers{clock, epoch, 10ms, 64, [this](time_point t) { wakes.push_back(t); }};
};

TEST_F(LoopTimersTest, FiresAtTheFirstTickAtOrAfterItsDeadlineNeverEarly) {
  recorded t(timers);
  t.arm_at(epoch + 25ms);
  clock.advance(20ms);
  EXPECT_EQ(timers.advance(), epoch + 30ms);  // the next wake-up: its tick
  EXPECT_TRUE(t.fired.empty());
  clock.advance(10ms);
  EXPECT_EQ(timers.advance(), time_point::max());  // nothing else armed
  EXPECT_EQ(t.fired, std::vector<time_point>{epoch + 30ms});
  EXPECT_FALSE(t.armed());
}

TEST_F(LoopTimersTest, WakesTheLoopOnlyForAnEarlierDeadline) {
  recorded late(timers), later(timers), early(timers);
  late.arm_at(epoch + 500ms);
  later.arm_at(epoch + 600ms);  // after the wake-up already asked for: no new one
  early.arm_at(epoch + 100ms);
  EXPECT_EQ(wakes, (std::vector<time_point>{epoch + 500ms, epoch + 100ms}));
  clock.advance(100ms);
  EXPECT_EQ(timers.advance(), epoch + 500ms);
  EXPECT_EQ(early.fired.size(), 1u);
}

TEST_F(LoopTimersTest, ArmInCountsFromTheClocksNow) {
  clock.advance(500ms);
  recorded t(timers);
  t.arm_in(50ms);
  clock.advance(40ms);
  timers.advance();
  EXPECT_TRUE(t.fired.empty());
  clock.advance(10ms);
  timers.advance();
  EXPECT_EQ(t.fired, std::vector<time_point>{epoch + 550ms});
}

TEST_F(LoopTimersTest, AnOwnedTimerDisarmsItselfWhenItsOwnerGoes) {
  std::optional<recorded> owner;
  owner.emplace(timers);
  owner->arm_at(epoch + 50ms);
  EXPECT_EQ(timers.wheel().size(), 1u);
  owner.reset();  // no explicit disarm
  EXPECT_EQ(timers.wheel().size(), 0u);
  clock.advance(1s);
  EXPECT_EQ(timers.advance(), time_point::max());
}

TEST_F(LoopTimersTest, ADisarmedTimerDoesNotFire) {
  recorded t(timers);
  t.arm_at(epoch + 50ms);
  t.disarm();
  clock.advance(1s);
  timers.advance();
  EXPECT_TRUE(t.fired.empty());
}

TEST(SimulatedClock, TheWallClockMovesWithTheSteadyOne) {
  const time_point start = time_point{} + 1h;
  simulated_clock clock(start, 1'700'000'000'000);
  loop_timers timers(clock, start, 10ms, 64);
  EXPECT_EQ(timers.now(), start);
  EXPECT_EQ(timers.unix_ms(), 1'700'000'000'000);
  clock.advance(1500ms);
  EXPECT_EQ(timers.now(), start + 1500ms);
  EXPECT_EQ(timers.unix_ms(), 1'700'000'001'500);
  clock.set(start + 2s);
  EXPECT_EQ(timers.unix_ms(), 1'700'000'002'000);
  clock.shift_wall(-500ms);  // an operator sets the wall clock back: the steady one does not move
  EXPECT_EQ(timers.now(), start + 2s);
  EXPECT_EQ(timers.unix_ms(), 1'700'000'001'500);
}

}  // namespace
}  // namespace ringcast
