#include "repeated_warning.hpp"

#include <gtest/gtest.h>

namespace ringcast {
namespace {

using namespace std::chrono_literals;

TEST(RepeatedWarning, TheSameTextAtMostEveryPeriodANewOneAtOnce) {
  repeated_warning::clock::time_point now{};
  repeated_warning w(5s, [&] { return now; });
  EXPECT_TRUE(w.warn("hook: POST x connection refused"));
  int logged = 0;
  for (int i = 0; i < 50; ++i) {  // 50 retries in 5 s, as while draining
    now += 99ms;
    logged += w.warn("hook: POST x connection refused");
  }
  EXPECT_EQ(logged, 0);
  EXPECT_TRUE(w.warn("hook: POST x answered 500"));  // another cause: at once
  EXPECT_FALSE(w.warn("hook: POST x answered 500"));
  now += 5s;
  EXPECT_TRUE(w.warn("hook: POST x answered 500"));
}

}  // namespace
}  // namespace ringcast
