// When the heap left by TLS handshakes is given back (server/tls/heap_trim): a second after the
// last handshake of a burst, and every ten seconds at most while handshakes go on. Simulated time.
#include "tls/heap_trim.hpp"

#include <gtest/gtest.h>

namespace ringcast {
namespace {

using namespace std::chrono_literals;
using clock_type = trim_schedule::clock;

class TrimScheduleTest : public testing::Test {
 protected:
  trim_schedule schedule{1s, 10s};
  const clock_type::time_point t0 = clock_type::time_point() + 1000s;
};

TEST_F(TrimScheduleTest, TrimsOneQuietSecondAfterTheLastHandshake) {
  EXPECT_TRUE(schedule.handshake_ended(t0));           // starts the wait
  EXPECT_FALSE(schedule.handshake_ended(t0 + 400ms));  // it is running
  // At t0 + 1 s the last handshake is 600 ms old: wait 400 ms more.
  EXPECT_EQ(schedule.wait_ended(t0 + 1s), std::optional<clock_type::duration>(400ms));
  EXPECT_EQ(schedule.wait_ended(t0 + 1400ms), std::nullopt);  // trim
  // The wait is over: the next handshake starts another.
  EXPECT_TRUE(schedule.handshake_ended(t0 + 5s));
  EXPECT_EQ(schedule.wait_ended(t0 + 6s), std::nullopt);
}

TEST_F(TrimScheduleTest, TrimsEveryTenSecondsWhileHandshakesGoOn) {
  ASSERT_TRUE(schedule.handshake_ended(t0));
  auto now = t0;
  auto fire_at = t0 + schedule.quiet();
  int trims = 0;
  // A handshake every 100 ms for 25 s: never a quiet second.
  for (auto next_handshake = t0 + 100ms; next_handshake < t0 + 25s; next_handshake += 100ms) {
    while (fire_at <= next_handshake) {
      now = fire_at;
      const auto again = schedule.wait_ended(now);
      if (!again) {
        ++trims;
        EXPECT_TRUE(now == t0 + 10s || now == t0 + 20s) << (now - t0).count();
        fire_at = clock_type::time_point::max();
        break;
      }
      fire_at = now + *again;
    }
    if (schedule.handshake_ended(next_handshake)) fire_at = next_handshake + schedule.quiet();
  }
  EXPECT_EQ(trims, 2);
}

}  // namespace
}  // namespace ringcast
