#include "arrivals.hpp"

#include <gtest/gtest.h>

#include <boost/json.hpp>
#include <vector>

namespace ringcast::load {
namespace {

using std::chrono::milliseconds;
using counts = std::vector<std::uint64_t>;

// Records `n` arrivals at `at_ms` after their publish.
void arrive(arrival_bins& bins, std::int64_t at_ms, int n = 1) {
  for (int i = 0; i < n; ++i)
    bins.record(at_ms * 1000);
}

TEST(ArrivalBins, OneBinPerWholeSecondAfterThePublish) {
  arrival_bins bins;
  arrive(bins, 0);
  arrive(bins, 999);
  arrive(bins, 1000);
  arrive(bins, 3999, 2);
  EXPECT_EQ(bins.counts(), (counts{2, 1, 0, 2}));
  EXPECT_EQ(bins.total(), 5u);
}

TEST(ArrivalBins, SlightlyNegativeDifferencesCountInTheFirstSecond) {
  arrival_bins bins;
  bins.record(-250);
  EXPECT_EQ(bins.counts(), (counts{1}));
}

TEST(ArrivalBins, MergeAddsBinByBinAndJsonRoundTrips) {
  arrival_bins a, b;
  arrive(a, 500, 3);
  arrive(b, 200);
  arrive(b, 2500, 4);
  a.merge(b);
  EXPECT_EQ(a.counts(), (counts{4, 0, 4}));
  const auto back =
      arrival_bins::from_json(boost::json::parse(boost::json::serialize(a.to_json())));
  EXPECT_EQ(back.counts(), a.counts());
}

TEST(ArrivalSummary, WorstSecondAgainstTheMeanOfTheWindow) {
  arrival_bins bins;
  arrive(bins, 100, 10);   // second 0
  arrive(bins, 1100, 30);  // second 1: the worst
  arrive(bins, 2100, 20);  // second 2
  const auto s = summarize(bins, milliseconds{3000});
  EXPECT_EQ(s.window_bins, 3u);
  EXPECT_EQ(s.in_window, 60u);
  EXPECT_EQ(s.after_window, 0u);
  EXPECT_DOUBLE_EQ(s.mean_per_s, 20.0);
  EXPECT_EQ(s.worst_per_s, 30u);
  EXPECT_EQ(s.worst_second, 1u);
  EXPECT_DOUBLE_EQ(s.worst_to_mean, 1.5);
}

TEST(ArrivalSummary, LateArrivalsAreCountedApartFromTheWindow) {
  arrival_bins bins;
  arrive(bins, 500, 5);
  arrive(bins, 1500, 5);
  arrive(bins, 2010, 100);  // after a 2 s window: not the worst second, not in the mean
  const auto s = summarize(bins, milliseconds{2000});
  EXPECT_EQ(s.in_window, 10u);
  EXPECT_EQ(s.after_window, 100u);
  EXPECT_EQ(s.worst_per_s, 5u);
  EXPECT_DOUBLE_EQ(s.worst_to_mean, 1.0);
}

TEST(ArrivalSummary, APartSecondAtTheEndIsABinOfTheWindow) {
  arrival_bins bins;
  arrive(bins, 2400, 6);
  const auto s = summarize(bins, milliseconds{2500});
  EXPECT_EQ(s.window_bins, 3u);
  EXPECT_EQ(s.in_window, 6u);
  EXPECT_DOUBLE_EQ(s.mean_per_s, 2.0);
  EXPECT_DOUBLE_EQ(s.worst_to_mean, 3.0);
}

TEST(ArrivalSummary, ImmediateWindowIsOneSecondAndEmptyIsZero) {
  arrival_bins bins;
  EXPECT_EQ(summarize(bins, milliseconds{0}).window_bins, 1u);
  EXPECT_EQ(summarize(bins, milliseconds{0}).worst_to_mean, 0.0);
  arrive(bins, 3, 7);
  const auto s = summarize(bins, milliseconds{0});
  EXPECT_EQ(s.in_window, 7u);
  EXPECT_DOUBLE_EQ(s.worst_to_mean, 1.0);
}

}  // namespace
}  // namespace ringcast::load
