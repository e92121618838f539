#include "core/history.hpp"

#include <cstdint>
#include <vector>

#include <gtest/gtest.h>

namespace ringcast {
namespace {

message_ptr msg(std::uint64_t id) {
  return make_message(id, 1'700'000'000'000, {audience::broadcast, ""}, "null");
}

std::vector<std::uint64_t> ids_of(const history::resume_span& span) {
  std::vector<std::uint64_t> ids;
  for (auto it = span.begin; it != span.end; ++it)
    ids.push_back((*it)->id);
  return ids;
}

using ids = std::vector<std::uint64_t>;

TEST(History, EmptyHistoryStartsAtTheFloor) {
  const history h(10, 0);
  EXPECT_EQ(h.newest_id(), 0u);
  const auto span = h.after(0);
  EXPECT_EQ(ids_of(span), ids{});
  EXPECT_FALSE(span.gap);

  const history later_run(10, 41);
  EXPECT_EQ(later_run.newest_id(), 41u);
}

TEST(History, AfterReturnsRetainedMessagesAfterSinceInIdOrder) {
  history h(10, 0);
  for (std::uint64_t id = 1; id <= 5; ++id)
    h.append(msg(id));
  EXPECT_EQ(h.newest_id(), 5u);

  auto span = h.after(0);
  EXPECT_EQ(ids_of(span), (ids{1, 2, 3, 4, 5}));
  EXPECT_FALSE(span.gap);

  span = h.after(3);
  EXPECT_EQ(ids_of(span), (ids{4, 5}));
  EXPECT_FALSE(span.gap);

  span = h.after(5);  // up to date
  EXPECT_EQ(ids_of(span), ids{});
  EXPECT_FALSE(span.gap);
}

TEST(History, IdsNeedNotBeContiguous) {
  history h(10, 0);
  for (std::uint64_t id : {2, 4, 6})
    h.append(msg(id));
  EXPECT_EQ(ids_of(h.after(3)), (ids{4, 6}));
  EXPECT_EQ(ids_of(h.after(4)), (ids{6}));
  EXPECT_EQ(ids_of(h.after(1)), (ids{2, 4, 6}));
  EXPECT_FALSE(h.after(1).gap);
}

TEST(History, EvictsTheOldestBeyondCapacity) {
  history h(3, 0);
  for (std::uint64_t id = 1; id <= 5; ++id)
    h.append(msg(id));
  EXPECT_EQ(h.newest_id(), 5u);
  // 1 and 2 are gone; 3, 4, 5 are retained.
  auto span = h.after(2);  // the client saw 2: nothing it needs was evicted
  EXPECT_EQ(ids_of(span), (ids{3, 4, 5}));
  EXPECT_FALSE(span.gap);

  span = h.after(1);  // 2 was evicted: what is retained, plus a gap
  EXPECT_EQ(ids_of(span), (ids{3, 4, 5}));
  EXPECT_TRUE(span.gap);

  span = h.after(0);
  EXPECT_EQ(ids_of(span), (ids{3, 4, 5}));
  EXPECT_TRUE(span.gap);

  span = h.after(4);
  EXPECT_EQ(ids_of(span), (ids{5}));
  EXPECT_FALSE(span.gap);
}

TEST(History, CapacityHoldsExactlyThatMany) {
  history h(3, 0);
  for (std::uint64_t id = 1; id <= 3; ++id)
    h.append(msg(id));
  // Nothing evicted yet.
  EXPECT_EQ(ids_of(h.after(0)), (ids{1, 2, 3}));
  EXPECT_FALSE(h.after(0).gap);
  h.append(msg(4));
  EXPECT_EQ(ids_of(h.after(0)), (ids{2, 3, 4}));
  EXPECT_TRUE(h.after(0).gap);
  EXPECT_FALSE(h.after(1).gap);
}

TEST(History, SinceFromTheFutureIsAGapWithNothing) {
  history h(10, 0);
  for (std::uint64_t id = 1; id <= 3; ++id)
    h.append(msg(id));
  auto span = h.after(4);
  EXPECT_EQ(ids_of(span), ids{});
  EXPECT_TRUE(span.gap);
  span = h.after(UINT64_MAX);
  EXPECT_EQ(ids_of(span), ids{});
  EXPECT_TRUE(span.gap);

  const history empty(10, 0);
  EXPECT_TRUE(empty.after(1).gap);
}

TEST(History, FloorIdMarksIdsOfAnEarlierRun) {
  history h(10, 100);
  EXPECT_EQ(h.newest_id(), 100u);
  EXPECT_FALSE(h.after(100).gap);  // the client is up to date with the earlier run
  EXPECT_TRUE(h.after(50).gap);    // 51..100 were issued and are not retained
  EXPECT_TRUE(h.after(101).gap);   // never issued

  h.append(msg(101));
  h.append(msg(102));
  auto span = h.after(100);
  EXPECT_EQ(ids_of(span), (ids{101, 102}));
  EXPECT_FALSE(span.gap);
  span = h.after(99);
  EXPECT_EQ(ids_of(span), (ids{101, 102}));
  EXPECT_TRUE(span.gap);
}

TEST(History, NewestIdSurvivesEvictionOfEverythingButTheLast) {
  history h(1, 0);
  h.append(msg(7));
  h.append(msg(8));
  EXPECT_EQ(h.newest_id(), 8u);
  EXPECT_EQ(ids_of(h.after(7)), (ids{8}));
  EXPECT_FALSE(h.after(7).gap);
  EXPECT_TRUE(h.after(6).gap);
}

}  // namespace
}  // namespace ringcast
