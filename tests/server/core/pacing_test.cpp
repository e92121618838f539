// The pacing ring (server/core/pacing): offsets in [0, spread), uniform, a pure function of
// (session key, message id), and a cursor that reaches a position exactly when its turn comes.
#include "core/pacing.hpp"

#include <array>
#include <chrono>
#include <random>
#include <string>

#include <gtest/gtest.h>

namespace ringcast::pacing {
namespace {

using namespace std::chrono_literals;

TEST(Pacing, OffsetsStayInsideTheWindow) {
  const duration spread = 30s;
  EXPECT_EQ(offset_at(0, spread), duration::zero());
  EXPECT_LT(offset_at(~std::uint64_t{0}, spread), spread);
  EXPECT_EQ(offset_at(std::uint64_t{1} << 63, spread), 15s);
}

TEST(Pacing, SameSessionSameMessageSameOffset) {
  const auto place = place_of("alice/tab1");
  EXPECT_EQ(place, place_of("alice/tab1"));
  EXPECT_NE(place, place_of("alice/tab2"));
  EXPECT_EQ(offset_of(place, 42, 5s), offset_of(place_of("alice/tab1"), 42, 5s));
  EXPECT_NE(offset_of(place, 42, 5s), offset_of(place, 43, 5s));
}

// x is below the frontier of `elapsed` exactly when its offset is at most `elapsed`: the cursor
// never passes a session before its turn and never stops short of one whose turn came.
TEST(Pacing, FrontierMatchesOffsets) {
  std::mt19937_64 rng(7);
  for (const duration spread : {duration(1ms), duration(5s), duration(10min)}) {
    for (int i = 0; i < 20'000; ++i) {
      const std::uint64_t x = rng();
      const duration offset = offset_at(x, spread);
      ASSERT_LT(offset, spread);
      EXPECT_LT(x, frontier(offset, spread));
      if (offset > duration::zero()) {
        EXPECT_GE(x, frontier(offset - duration(1), spread));
      }
    }
    EXPECT_EQ(frontier(spread, spread), whole_ring);
    EXPECT_EQ(frontier(-1ns, spread), u128{0});
  }
}

// Chi-square over 20 equal bins, 99.9% quantile for 19 degrees of freedom: 43.82.
double chi_square(const std::array<int, 20>& bins, int total) {
  const double expected = static_cast<double>(total) / bins.size();
  double chi = 0;
  for (const int n : bins)
    chi += (n - expected) * (n - expected) / expected;
  return chi;
}

TEST(Pacing, OffsetsAreUniformOverSessions) {
  std::mt19937 rng(2026);  // fixed: the test is deterministic
  const duration spread = 30s;
  for (const std::uint64_t id : {1ULL, 2ULL, 1'763'900'000'000'000ULL}) {
    std::array<int, 20> bins{};
    const int sessions = 100'000;
    for (int i = 0; i < sessions; ++i) {
      const std::string key =
          "user" + std::to_string(rng() % 1'000'000'000) + "/" + std::to_string(i % 3);
      ++bins[static_cast<std::size_t>(offset_of(place_of(key), id, spread) * 20 / spread)];
    }
    EXPECT_LT(chi_square(bins, sessions), 43.82) << "message " << id;
  }
}

TEST(Pacing, OffsetsAreUniformOverMessagesForOneSession) {
  const duration spread = 10s;
  const auto place = place_of("bob/0");
  std::array<int, 20> bins{};
  const int messages = 100'000;
  for (int i = 0; i < messages; ++i)
    ++bins[static_cast<std::size_t>(offset_of(place, 1'000'000 + i, spread) * 20 / spread)];
  EXPECT_LT(chi_square(bins, messages), 43.82);
}

// The log walks each message once over the whole ring, in ranges that follow on without gap or
// overlap, and the message settles when its window has passed.
TEST(Pacing, LogWalksTheRingOnceAndSettles) {
  auto m = make_message(9, 0, {}, "1", 0, 2000ms);
  paced_log log;
  const time_point start = time_point{} + 1h;
  log.add(m, start);
  u128 covered = 0;
  u128 expect_next = log.messages().front().walked - log.messages().front().turn;
  expect_next = static_cast<std::uint64_t>(expect_next);
  for (time_point t = start; t <= start + 2100ms; t += 7ms) {
    log.walk(t, [&](u128 first, u128 end, const paced_message&) {
      EXPECT_EQ(first, expect_next % whole_ring);
      EXPECT_LE(end, whole_ring);
      covered += end - first;
      expect_next = end % whole_ring;
    });
  }
  EXPECT_EQ(covered, whole_ring);
  EXPECT_EQ(log.in_flight(), 0u);
  EXPECT_NE(log.find(9), nullptr);
  log.forget_settled_before(start + 2001ms);
  EXPECT_EQ(log.find(9), nullptr);
}

}  // namespace
}  // namespace ringcast::pacing
