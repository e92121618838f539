#include "core/outbound_queue.hpp"

#include <gtest/gtest.h>

namespace ringcast {
namespace {

outbound text(std::string t) {
  return {nullptr, std::move(t)};
}

std::string take_front(outbound_queue& q) {
  std::string t = q.items().front().text;
  q.pop_front(1);
  return t;
}

TEST(OutboundQueue, FirstInFirstOut) {
  outbound_queue q;
  EXPECT_TRUE(q.empty());
  q.push_back(text("a"));
  q.push_back(text("b"));
  EXPECT_EQ(q.size(), 2u);
  EXPECT_EQ(take_front(q), "a");
  q.push_back(text("c"));
  EXPECT_EQ(take_front(q), "b");
  EXPECT_EQ(take_front(q), "c");
  EXPECT_TRUE(q.empty());
}

TEST(OutboundQueue, KeepsOrderAcrossCompactionOfAQueueThatNeverDrains) {
  outbound_queue q;
  int next_in = 0, next_out = 0;
  for (int round = 0; round < 1000; ++round) {
    q.push_back(text(std::to_string(next_in++)));
    q.push_back(text(std::to_string(next_in++)));
    EXPECT_EQ(take_front(q), std::to_string(next_out++));
  }
  EXPECT_EQ(q.size(), 1000u);
  while (!q.empty())
    EXPECT_EQ(take_front(q), std::to_string(next_out++));
  EXPECT_EQ(next_out, next_in);
}

TEST(OutboundQueue, AGatheredWriteSeesEveryItemAndPopsThoseItFinished) {
  outbound_queue q;
  for (const char* t : {"a", "b", "c", "d"})
    q.push_back(text(t));
  ASSERT_EQ(q.items().size(), 4u);
  EXPECT_EQ(q.items()[3].text, "d");
  q.pop_front(3);
  ASSERT_EQ(q.size(), 1u);
  EXPECT_EQ(q.items().front().text, "d");
  q.pop_front(1);
  EXPECT_TRUE(q.empty());
  EXPECT_TRUE(q.items().empty());
}

TEST(OutboundQueue, ABurstWrittenOutLeavesNoCapacityBehind) {
  outbound_queue q;
  for (int i = 0; i < 11; ++i)  // hello and ten promotions in force
    q.push_back(text(std::to_string(i)));
  q.pop_front(11);
  EXPECT_TRUE(q.empty());
  EXPECT_EQ(q.capacity(), 0u);
  q.push_back(text("live"));  // one at a time: its slot is kept
  q.pop_front(1);
  EXPECT_GE(q.capacity(), 1u);
  EXPECT_LE(q.capacity(), 2u);
}

TEST(OutboundQueue, ClearDropsEverything) {
  outbound_queue q;
  q.push_back(text("a"));
  q.push_back(text("b"));
  q.clear();
  EXPECT_TRUE(q.empty());
  q.push_back(text("c"));
  EXPECT_EQ(take_front(q), "c");
}

}  // namespace
}  // namespace ringcast
