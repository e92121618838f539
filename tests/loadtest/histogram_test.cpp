#include "histogram.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>

namespace ringcast::load {
namespace {

TEST(Histogram, EmptyAnswersZero) {
  histogram h;
  EXPECT_EQ(h.count(), 0u);
  EXPECT_EQ(h.percentile(50), 0u);
  EXPECT_EQ(h.max(), 0u);
}

TEST(Histogram, SmallValuesAreExact) {
  histogram h;
  for (std::uint64_t v = 1; v <= 100; ++v)
    h.record(v);
  EXPECT_EQ(h.percentile(50), 50u);
  EXPECT_EQ(h.percentile(99), 99u);
  EXPECT_EQ(h.percentile(100), 100u);
  EXPECT_EQ(h.percentile(0), 1u);
  EXPECT_EQ(h.min(), 1u);
  EXPECT_DOUBLE_EQ(h.mean(), 50.5);
}

TEST(Histogram, LargeValuesWithinRelativePrecision) {
  histogram h;
  for (std::uint64_t v = 1; v <= 1'000'000; ++v)
    h.record(v * 10);
  for (double p : {50.0, 90.0, 99.0, 99.9}) {
    const double exact = p / 100.0 * 10'000'000;
    const double got = static_cast<double>(h.percentile(p));
    EXPECT_GE(got, exact * (1 - 1e-9)) << p;
    EXPECT_LE(got, exact * (1 + 1.0 / 128)) << p;
  }
  EXPECT_EQ(h.percentile(100), 10'000'000u);
}

TEST(Histogram, BucketsTileTheRange) {
  // Every value lands in a bucket whose top is >= it and whose predecessor's top is < it.
  for (std::uint64_t v :
       {0ull, 1ull, 255ull, 256ull, 257ull, 511ull, 512ull, 123456789ull, ~0ull}) {
    const auto i = histogram::index_of(v);
    EXPECT_GE(histogram::highest_in(i), v);
    if (i > 0) {
      EXPECT_LT(histogram::highest_in(i - 1), v);
    }
  }
}

TEST(Histogram, MergeEqualsRecordingEverythingInOne) {
  histogram a, b, all;
  for (std::uint64_t v = 0; v < 5000; ++v) {
    (v % 3 ? a : b).record(v * v);
    all.record(v * v);
  }
  a.merge(b);
  EXPECT_EQ(a.count(), all.count());
  EXPECT_EQ(a.min(), all.min());
  EXPECT_EQ(a.max(), all.max());
  for (double p : {1.0, 50.0, 90.0, 99.0, 100.0})
    EXPECT_EQ(a.percentile(p), all.percentile(p));
}

TEST(Histogram, MergePercentileIsNotAnAverageOfPercentiles) {
  // One worker saw only fast deliveries, the other only slow ones: the merged p50 must be a
  // real sample, not the mean of the two p50s.
  histogram fast, slow;
  fast.record(100, 99);
  slow.record(10'000, 1);
  fast.merge(slow);
  EXPECT_EQ(fast.percentile(50), 100u);
  EXPECT_GE(fast.percentile(100), 10'000u);
}

TEST(Histogram, JsonRoundTrip) {
  histogram h;
  h.record(3), h.record(70'000, 5), h.record(9'000'000'000ull);
  const auto text = boost::json::serialize(h.to_json());
  const auto back = histogram::from_json(boost::json::parse(text));
  EXPECT_EQ(back.count(), h.count());
  EXPECT_EQ(back.min(), 3u);
  EXPECT_EQ(back.max(), 9'000'000'000ull);
  EXPECT_EQ(back.percentile(50), h.percentile(50));
  EXPECT_DOUBLE_EQ(back.mean(), h.mean());
}

}  // namespace
}  // namespace ringcast::load
