#include "id_tracker.hpp"

#include <gtest/gtest.h>

#include <vector>

namespace ringcast::load {
namespace {

TEST(IdTracker, EverythingAfterBaseArrivedOnce) {
  id_tracker t;
  t.set_base(10);
  for (std::uint64_t id = 11; id <= 20; ++id)
    EXPECT_EQ(t.record(id), id_tracker::outcome::fresh);
  const std::vector<std::uint64_t> published{5, 8, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20};
  const auto n = t.count(published);
  EXPECT_EQ(n.expected, 10u);  // 5 and 8 predate the client
  EXPECT_EQ(n.received, 10u);
  EXPECT_EQ(n.lost, 0u);
  EXPECT_EQ(t.duplicates(), 0u);
}

TEST(IdTracker, CountsLostAndDuplicates) {
  id_tracker t;
  t.set_base(100);
  t.record(101);
  t.record(103);
  EXPECT_EQ(t.record(103), id_tracker::outcome::duplicate);
  EXPECT_EQ(t.record(101), id_tracker::outcome::duplicate);
  t.record(300);  // ids need not be dense
  const std::vector<std::uint64_t> published{101, 102, 103, 104, 300};
  const auto n = t.count(published);
  EXPECT_EQ(n.expected, 5u);
  EXPECT_EQ(n.received, 3u);
  EXPECT_EQ(n.lost, 2u);  // 102 and 104
  EXPECT_EQ(t.duplicates(), 2u);
}

TEST(IdTracker, ForeignIdsAreNeitherExpectedNorReceived) {
  id_tracker t;
  t.set_base(0);
  t.record(1);
  t.record(2);  // someone else's publish
  const std::vector<std::uint64_t> published{1, 3};
  const auto n = t.count(published);
  EXPECT_EQ(n.expected, 2u);
  EXPECT_EQ(n.received, 1u);
  EXPECT_EQ(n.lost, 1u);
}

TEST(IdTracker, FirstBaseSticks) {
  id_tracker t;
  t.set_base(50);
  t.set_base(70);  // a reconnect's hello does not forgive what was lost in between
  EXPECT_EQ(t.base(), 50u);
  EXPECT_EQ(t.record(50), id_tracker::outcome::before_base);
  const std::vector<std::uint64_t> published{60};
  EXPECT_EQ(t.count(published).lost, 1u);
}

TEST(IdTracker, NoHelloNoExpectations) {
  id_tracker t;
  EXPECT_EQ(t.record(5), id_tracker::outcome::before_base);
  const std::vector<std::uint64_t> published{1, 2, 3};
  EXPECT_EQ(t.count(published).expected, 0u);
}

TEST(IdTracker, SparseClockLikeIds) {
  // Ids derived from a microsecond clock: far apart, yet cheap to track.
  id_tracker t;
  const std::uint64_t base = 1'795'324'980'163'076ull;
  t.set_base(base);
  std::vector<std::uint64_t> published;
  for (std::uint64_t k = 1; k <= 1000; ++k)
    published.push_back(base + k * 1'000'003);
  for (std::size_t k = 0; k < published.size(); k += 2)
    t.record(published[k]);
  EXPECT_EQ(t.record(published[0]), id_tracker::outcome::duplicate);
  EXPECT_EQ(t.record(published[1]), id_tracker::outcome::fresh);  // late, but once
  const auto n = t.count(published);
  EXPECT_EQ(n.expected, 1000u);
  EXPECT_EQ(n.lost, 499u);
  EXPECT_EQ(t.duplicates(), 1u);
}

}  // namespace
}  // namespace ringcast::load
