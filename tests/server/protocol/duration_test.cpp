#include "protocol/duration.hpp"

#include <gtest/gtest.h>

namespace ringcast {
namespace {

using std::chrono::milliseconds;

milliseconds parse_ok(std::string_view text) {
  auto d = parse_duration(text);
  EXPECT_TRUE(d) << text << ": " << d.error;
  return d.value.value_or(milliseconds{-1});
}

TEST(ParseDuration, PlainNumberIsSeconds) {
  EXPECT_EQ(parse_ok("0"), milliseconds{0});
  EXPECT_EQ(parse_ok("25"), milliseconds{25'000});
  EXPECT_EQ(parse_ok("007"), milliseconds{7'000});
}

TEST(ParseDuration, EveryUnit) {
  EXPECT_EQ(parse_ok("500ms"), milliseconds{500});
  EXPECT_EQ(parse_ok("25s"), milliseconds{25'000});
  EXPECT_EQ(parse_ok("2m"), milliseconds{120'000});
  EXPECT_EQ(parse_ok("1h"), milliseconds{3'600'000});
  EXPECT_EQ(parse_ok("0ms"), milliseconds{0});
  EXPECT_EQ(parse_ok("0h"), milliseconds{0});
}

TEST(ParseDuration, RefusesMalformedText) {
  for (std::string_view text :
       {"",    "-1",   "+1",    "1.5s",  "1.5",   " 25",  "25 ",  "25 s", "s",   "ms",  "25x",
        "25S", "25MS", "25sec", "25min", "1h30m", "25ss", "0x10", "1e3",  "abc", "25\n"}) {
    const auto d = parse_duration(text);
    EXPECT_FALSE(d) << "accepted '" << text << "'";
    EXPECT_EQ(d.error,
              "expected a duration like 25, 25s, 500ms or 2m, got '" + std::string{text} + "'");
  }
}

TEST(ParseDuration, RefusesOverflow) {
  // Too many digits for any integer, and values that only overflow once scaled to milliseconds.
  for (std::string_view text : {"99999999999999999999", "9223372036854775808ms",
                                "9223372036854775807s", "2562047788015216h"}) {
    const auto d = parse_duration(text);
    EXPECT_FALSE(d) << "accepted '" << text << "'";
    EXPECT_EQ(d.error, "duration too large, got '" + std::string{text} + "'");
  }
}

TEST(ParseDuration, LargestValuesThatFit) {
  EXPECT_EQ(parse_ok("9223372036854775807ms").count(), 9'223'372'036'854'775'807);
  EXPECT_EQ(parse_ok("9223372036854775s").count(), 9'223'372'036'854'775'000);
  EXPECT_EQ(parse_ok("2562047788015h").count(), 2'562'047'788'015LL * 3'600'000);
}

TEST(FormatDuration, ShortestExactSpelling) {
  EXPECT_EQ(format_duration(milliseconds{0}), "0");
  EXPECT_EQ(format_duration(milliseconds{1}), "1ms");
  EXPECT_EQ(format_duration(milliseconds{500}), "500ms");
  EXPECT_EQ(format_duration(milliseconds{1'500}), "1500ms");
  EXPECT_EQ(format_duration(milliseconds{25'000}), "25s");
  EXPECT_EQ(format_duration(milliseconds{90'000}), "90s");
  EXPECT_EQ(format_duration(milliseconds{60'000}), "1m");
  EXPECT_EQ(format_duration(milliseconds{120'000}), "2m");
  EXPECT_EQ(format_duration(milliseconds{5'400'000}), "90m");
  EXPECT_EQ(format_duration(milliseconds{3'600'000}), "1h");
  EXPECT_EQ(format_duration(milliseconds{86'400'000}), "24h");
}

TEST(FormatDuration, RoundTripsThroughParse) {
  for (long long ms : {0LL, 1LL, 999LL, 1'000LL, 1'001LL, 59'000LL, 61'000LL, 3'599'000LL,
                       7'200'000LL, 9'223'372'036'854'775'807LL}) {
    const std::string text = format_duration(milliseconds{ms});
    EXPECT_EQ(parse_ok(text), milliseconds{ms}) << text;
  }
}

}  // namespace
}  // namespace ringcast
