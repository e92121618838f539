#include "core/schedule_poll.hpp"

#include <chrono>
#include <functional>
#include <memory>
#include <vector>

#include <gtest/gtest.h>

namespace ringcast {
namespace {

using namespace std::chrono_literals;
using time_point = schedule_poll::time_point;

// A poll on a wheel of 10 ms ticks with a 250 ms period, driven a millisecond at a time on a
// simulated clock as its event loop would. A claim is recorded with the time it was asked and held
// until the test answers it.
class SchedulePollTest : public ::testing::Test {
 protected:
  SchedulePollTest() {
    poll = std::make_unique<schedule_poll>(250ms, timers,
                                           [this](std::function<void(schedule_poll::answer)> done) {
                                             asked.push_back(now);
                                             pending = std::move(done);
                                           });
  }
  void advance_to(time_point t) {
    while (now < t) {
      now = std::min(t, now + 1ms);
      clock.set(now);
      timers.advance(now);
    }
  }
  void answer(schedule_poll::answer a) {
    ASSERT_TRUE(pending) << "no claim is waiting for an answer";
    auto done = std::move(pending);
    pending = nullptr;
    done(a);
  }
  static schedule_poll::answer nothing_due() { return due_in(std::nullopt); }
  static schedule_poll::answer due_in(std::optional<std::chrono::milliseconds> wait,
                                      bool more = false) {
    return {.ok = true, .more = more, .next_due = wait};
  }

  const time_point epoch = time_point{} + 1h;
  time_point now = epoch;
  simulated_clock clock{epoch};
  loop_timers timers{clock, epoch, 10ms, 64};
  std::vector<time_point> asked;
  std::function<void(schedule_poll::answer)> pending;
  std::unique_ptr<schedule_poll> poll;
};

TEST_F(SchedulePollTest, AsksAtStartThenEveryPeriod) {
  poll->start();
  advance_to(epoch + 10ms);
  ASSERT_EQ(asked.size(), 1u);
  answer(nothing_due());
  advance_to(epoch + 10ms + 249ms);
  EXPECT_EQ(asked.size(), 1u) << "asked again before the period";
  advance_to(epoch + 10ms + 250ms + 10ms);
  ASSERT_EQ(asked.size(), 2u);
  EXPECT_GE(asked[1], asked[0] + 250ms);
  EXPECT_LE(asked[1], asked[0] + 260ms);
}

TEST_F(SchedulePollTest, NeverAsksWhileAClaimIsUnanswered) {
  poll->start();
  advance_to(epoch + 10ms);
  ASSERT_EQ(asked.size(), 1u);
  EXPECT_TRUE(poll->claiming());
  advance_to(epoch + 2s);  // Redis is slow: eight periods pass
  EXPECT_EQ(asked.size(), 1u);
  answer(nothing_due());
  EXPECT_FALSE(poll->claiming());
  advance_to(epoch + 2s + 249ms);
  EXPECT_EQ(asked.size(), 1u);
  advance_to(epoch + 2s + 260ms);
  EXPECT_EQ(asked.size(), 2u);
}

TEST_F(SchedulePollTest, AsksAtTheEarliestWaitingAtNeverBeforeAtMostOneTickAfter) {
  poll->start();
  advance_to(epoch + 10ms);
  const time_point answered_at = now;
  answer(due_in(95ms));
  advance_to(answered_at + 94ms);
  EXPECT_EQ(asked.size(), 1u) << "asked before the earliest at";
  advance_to(answered_at + 105ms);
  ASSERT_EQ(asked.size(), 2u);
  EXPECT_GE(asked[1], answered_at + 95ms);
  // A wait longer than the period: the period still comes first.
  answer(due_in(10s));
  const time_point second = now;
  advance_to(second + 260ms);
  ASSERT_EQ(asked.size(), 3u);
  EXPECT_LE(asked[2], second + 260ms);
}

TEST_F(SchedulePollTest, AFullBatchIsFollowedAtTheNextTick) {
  poll->start();
  advance_to(epoch + 10ms);
  const time_point answered_at = now;
  answer(due_in(0ms, true));
  advance_to(answered_at + 10ms);
  ASSERT_EQ(asked.size(), 2u);
  EXPECT_LE(asked[1], answered_at + 10ms);
}

TEST_F(SchedulePollTest, APromotionAcceptedHereIsAskedForAtItsTime) {
  poll->start();
  advance_to(epoch + 10ms);
  answer(nothing_due());
  poll->expect(now + 120ms);
  const time_point due = now + 120ms;
  advance_to(due - 1ms);
  EXPECT_EQ(asked.size(), 1u) << "asked before its at";
  advance_to(due + 10ms);
  ASSERT_EQ(asked.size(), 2u);
  EXPECT_GE(asked[1], due);
  // A later one than the next period changes nothing.
  answer(nothing_due());
  poll->expect(now + 1h);
  advance_to(now + 260ms);
  EXPECT_EQ(asked.size(), 3u);
}

TEST_F(SchedulePollTest, APromotionAcceptedDuringAClaimIsAskedForAfterIt) {
  poll->start();
  advance_to(epoch + 10ms);
  const time_point due = now + 50ms;
  poll->expect(due);  // the claim in flight may have run before it was added
  advance_to(now + 100ms);
  EXPECT_EQ(asked.size(), 1u);
  answer(nothing_due());  // past `due` now: asked again at the next tick, not a period later
  advance_to(now + 10ms);
  ASSERT_EQ(asked.size(), 2u);
}

TEST_F(SchedulePollTest, UnreachableRedisIsAskedAgainAfterAPeriod) {
  poll->start();
  advance_to(epoch + 10ms);
  const time_point failed_at = now;
  answer({.ok = false, .more = true, .next_due = 0ms});  // ignored: nothing was claimed
  advance_to(failed_at + 249ms);
  EXPECT_EQ(asked.size(), 1u);
  advance_to(failed_at + 260ms);
  EXPECT_EQ(asked.size(), 2u);
}

TEST_F(SchedulePollTest, AnAnswerAfterDestructionTouchesNothing) {
  poll->start();
  advance_to(epoch + 10ms);
  auto late = std::move(pending);
  poll.reset();
  EXPECT_EQ(timers.wheel().size(), 0u);
  late(nothing_due());
  EXPECT_EQ(timers.wheel().size(), 0u);
}

}  // namespace
}  // namespace ringcast
