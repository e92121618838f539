#include "outbound_queue.hpp"

#include <gtest/gtest.h>

namespace ringcast {
namespace {

outbound text(std::string t) {
  return {nullptr, std::move(t)};
}

TEST(OutboundQueue, FirstInFirstOut) {
  outbound_queue q;
  EXPECT_TRUE(q.empty());
  q.push_back(text("a"));
  q.push_back(text("b"));
  EXPECT_EQ(q.size(), 2u);
  EXPECT_EQ(q.take_front().text, "a");
  q.push_back(text("c"));
  EXPECT_EQ(q.take_front().text, "b");
  EXPECT_EQ(q.take_front().text, "c");
  EXPECT_TRUE(q.empty());
}

TEST(OutboundQueue, KeepsOrderAcrossCompactionOfAQueueThatNeverDrains) {
  outbound_queue q;
  int next_in = 0, next_out = 0;
  for (int round = 0; round < 1000; ++round) {
    q.push_back(text(std::to_string(next_in++)));
    q.push_back(text(std::to_string(next_in++)));
    EXPECT_EQ(q.take_front().text, std::to_string(next_out++));
  }
  EXPECT_EQ(q.size(), 1000u);
  while (!q.empty())
    EXPECT_EQ(q.take_front().text, std::to_string(next_out++));
  EXPECT_EQ(next_out, next_in);
}

TEST(OutboundQueue, ClearDropsEverything) {
  outbound_queue q;
  q.push_back(text("a"));
  q.push_back(text("b"));
  q.clear();
  EXPECT_TRUE(q.empty());
  q.push_back(text("c"));
  EXPECT_EQ(q.take_front().text, "c");
}

}  // namespace
}  // namespace ringcast
