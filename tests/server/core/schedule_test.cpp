#include "core/schedule.hpp"

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace ringcast {
namespace {

using namespace std::chrono_literals;
using time_point = schedule::time_point;

// A schedule on a wheel of 10 ms ticks, driven a tick at a time on a simulated clock, as its
// event loop would.
class ScheduleTest : public ::testing::Test {
 protected:
  schedule& make(std::size_t limit = 100) {
    sched = std::make_unique<schedule>(limit, timers, [this](const std::string& request) {
      published.push_back({now, request});
    });
    return *sched;
  }
  void advance_to(time_point t) {
    while (now < t) {
      now = std::min(t, now + 1ms);
      clock.set(now);
      timers.advance(now);
    }
  }

  const time_point epoch = time_point{} + 1h;
  time_point now = epoch;
  simulated_clock clock{epoch};
  loop_timers timers{clock, epoch, 10ms, 64};
  struct publication {
    time_point when;
    std::string request;
  };
  std::vector<publication> published;
  std::unique_ptr<schedule> sched;
};

TEST_F(ScheduleTest, PublishesAtItsTimeNeverEarlyAtMostOneTickLate) {
  auto& s = make();
  ASSERT_TRUE(s.add(1'000, epoch + 95ms, R"({"data":1})"));
  ASSERT_TRUE(s.add(2'000, epoch + 3s, R"({"data":2})"));
  EXPECT_EQ(s.size(), 2u);
  advance_to(epoch + 94ms);
  EXPECT_TRUE(published.empty());
  advance_to(epoch + 200ms);
  ASSERT_EQ(published.size(), 1u);
  EXPECT_EQ(published[0].request, R"({"data":1})");
  EXPECT_GE(published[0].when, epoch + 95ms);
  EXPECT_LE(published[0].when, epoch + 105ms);
  EXPECT_EQ(s.size(), 1u);
  advance_to(epoch + 4s);
  ASSERT_EQ(published.size(), 2u);
  EXPECT_GE(published[1].when, epoch + 3s);
  EXPECT_LE(published[1].when, epoch + 3s + 10ms);
  EXPECT_EQ(s.size(), 0u);
  EXPECT_EQ(timers.wheel().size(), 0u);
}

// The wall clock set back 500 ms while a promotion waits: when the wheel (steady clock) says it is
// due, it waits the difference again, so that it is not published before `at` by the wall clock.
TEST_F(ScheduleTest, AWallClockSetBackWhileWaitingNeverPublishesEarly) {
  clock = simulated_clock(epoch, 10'000);  // the wall clock at epoch
  sched = std::make_unique<schedule>(10, timers, [this](const std::string& request) {
    published.push_back({now, request});
  });
  ASSERT_TRUE(sched->add(11'000, epoch + 1s, "a"));
  advance_to(epoch + 300ms);
  clock.shift_wall(-500ms);  // set back
  advance_to(epoch + 1490ms);
  EXPECT_TRUE(published.empty());
  advance_to(epoch + 2s);
  ASSERT_EQ(published.size(), 1u);
  EXPECT_GE(published[0].when, epoch + 1500ms);
  EXPECT_LE(published[0].when, epoch + 1510ms);
  EXPECT_EQ(sched->size(), 0u);
}

TEST_F(ScheduleTest, CancelledIsNeverPublishedEvenInsideItsTick) {
  auto& s = make();
  const auto a = s.add(1, epoch + 101ms, "a");
  const auto b = s.add(1, epoch + 102ms, "b");  // same 10 ms tick as a
  ASSERT_TRUE(a && b);
  advance_to(epoch + 101ms);  // inside the tick: neither has fired yet
  EXPECT_TRUE(s.cancel(*a));
  EXPECT_FALSE(s.cancel(*a));  // once only
  advance_to(epoch + 1s);
  ASSERT_EQ(published.size(), 1u);
  EXPECT_EQ(published[0].request, "b");
  EXPECT_FALSE(s.cancel(*b));  // published: no longer waiting
}

TEST_F(ScheduleTest, AReusedSlotGetsANewId) {
  auto& s = make();
  const auto first = s.add(1, epoch + 1s, "first");
  ASSERT_TRUE(first);
  ASSERT_TRUE(s.cancel(*first));
  const auto second = s.add(1, epoch + 1s, "second");
  ASSERT_TRUE(second);
  EXPECT_NE(*first, *second);
  EXPECT_FALSE(s.cancel(*first));  // the old id does not name the new promotion
  ASSERT_EQ(s.list().size(), 1u);
  EXPECT_EQ(s.list()[0].request_json, "second");
}

TEST_F(ScheduleTest, UnknownIdsAreRefused) {
  auto& s = make();
  const auto id = s.add(1, epoch + 1s, "x");
  ASSERT_TRUE(id);
  for (std::string_view bad : {"", "-", "0", "0-", "-0", "zz-0", "0-zz", "0-1", "1-0", "00-0",
                               "0-00", "ffffffffff-0", "0-0-0", " 0-0"}) {
    EXPECT_FALSE(s.cancel(bad)) << bad;
  }
  EXPECT_EQ(s.size(), 1u);
  EXPECT_TRUE(s.cancel(*id));
}

TEST_F(ScheduleTest, ListIsEarliestFirst) {
  auto& s = make();
  s.add(3'000, epoch + 3s, "c");
  s.add(1'000, epoch + 1s, "a");
  s.add(2'000, epoch + 2s, "b");
  const auto list = s.list();
  ASSERT_EQ(list.size(), 3u);
  EXPECT_EQ(list[0].request_json, "a");
  EXPECT_EQ(list[0].at_ms, 1'000);
  EXPECT_EQ(list[1].request_json, "b");
  EXPECT_EQ(list[2].request_json, "c");
}

TEST_F(ScheduleTest, TheLimitRefusesMoreAndFreesWithPublishing) {
  auto& s = make(2);
  ASSERT_TRUE(s.add(1, epoch + 50ms, "a"));
  ASSERT_TRUE(s.add(1, epoch + 5s, "b"));
  EXPECT_FALSE(s.add(1, epoch + 5s, "c"));
  EXPECT_EQ(s.size(), 2u);
  advance_to(epoch + 100ms);
  EXPECT_TRUE(s.add(1, epoch + 5s, "c"));
}

TEST_F(ScheduleTest, ManyWaitOnTheWheelNotOnTimersOfTheirOwn) {
  auto& s = make(10'000);
  for (int i = 0; i < 10'000; ++i)
    ASSERT_TRUE(s.add(i, epoch + std::chrono::milliseconds(1 + i % 977), std::to_string(i)));
  EXPECT_EQ(timers.wheel().size(), 10'000u);
  advance_to(epoch + 1s);
  EXPECT_EQ(published.size(), 10'000u);
  for (const auto& p : published) {
    const int i = std::stoi(p.request);
    EXPECT_GE(p.when, epoch + std::chrono::milliseconds(1 + i % 977));
  }
}

TEST_F(ScheduleTest, DestroyingDisarmsWhatWaits) {
  auto& s = make();
  s.add(1, epoch + 1s, "a");
  EXPECT_EQ(timers.wheel().size(), 1u);
  sched.reset();
  EXPECT_EQ(timers.wheel().size(), 0u);
}

}  // namespace
}  // namespace ringcast

namespace ringcast {
namespace {

TEST_F(ScheduleTest, OneDueInATickMayCancelAnotherOfTheSameTick) {
  std::optional<std::string> a, b;
  sched = std::make_unique<schedule>(10, timers, [&](const std::string& request) {
    published.push_back({now, request});
    // Whichever fires first cancels the other, which is still waiting in the same tick.
    EXPECT_TRUE(sched->cancel(request == "a" ? *b : *a));
  });
  a = sched->add(1, epoch + 101ms, "a");
  b = sched->add(1, epoch + 102ms, "b");  // the same 10 ms tick
  ASSERT_TRUE(a && b);
  advance_to(epoch + 1s);
  EXPECT_EQ(published.size(), 1u);
  EXPECT_EQ(sched->size(), 0u);
  EXPECT_EQ(timers.wheel().size(), 0u);
}

}  // namespace
}  // namespace ringcast
