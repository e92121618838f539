// Which loop holds a user's sessions (core/home_slots.hpp): the loop that read the first connect of
// the slot's users, while a session or a connect of them lasts.
#include "core/home_slots.hpp"

#include <gtest/gtest.h>

#include <string>
#include <thread>
#include <vector>

namespace ringcast {
namespace {

TEST(HomeSlots, AFreeSlotGoesToTheLoopThatReadTheConnect) {
  home_slots homes(2);
  EXPECT_EQ(homes.holder("alice"), std::nullopt);
  auto first = homes.hold("alice", 1);
  EXPECT_EQ(first.loop, 1u);
  EXPECT_EQ(homes.holder("alice"), 1u);
  // A second connect of the user, read on the other loop, goes where the first is.
  auto second = homes.hold("alice", 0);
  EXPECT_EQ(second.loop, 1u);
}

TEST(HomeSlots, TheSlotIsFreeOnceItsLastSessionAndConnectAreGone) {
  home_slots homes(2);
  {
    auto connect = homes.hold("bob", 0);
    ASSERT_TRUE(homes.count_session("bob", 0));  // the connect's session, made on loop 0
  }  // the connect's hold goes; its session keeps the slot
  EXPECT_EQ(homes.holder("bob"), 0u);
  EXPECT_EQ(homes.hold("bob", 1).loop, 0u);
  homes.uncount_session("bob");
  EXPECT_EQ(homes.holder("bob"), std::nullopt);
  EXPECT_EQ(homes.hold("bob", 1).loop, 1u);  // a new first connect, read on loop 1
}

TEST(HomeSlots, ASessionMadeWhereAnotherLoopHoldsTheSlotDoesNotCount) {
  home_slots homes(2);
  auto connect = homes.hold("carol", 1);
  EXPECT_FALSE(homes.count_session("carol", 0));
  EXPECT_EQ(homes.holder("carol"), 1u);
  connect = {};
  EXPECT_EQ(homes.holder("carol"), std::nullopt);  // the refused count left nothing behind
}

// Users share slots: two users of one slot live on one loop, however their connects were read.
TEST(HomeSlots, UsersOfOneSlotShareTheirLoop) {
  home_slots homes(2);
  std::string other;  // a name in dave's slot: while it holds its slot for loop 0, so is dave's
  for (int i = 0; other.empty(); ++i) {
    const std::string name = "user" + std::to_string(i);
    auto held = homes.hold(name, 0);
    if (homes.hold("dave", 1).loop == 0) other = name;
  }
  auto dave = homes.hold("dave", 1);
  EXPECT_EQ(dave.loop, 1u);
  EXPECT_EQ(homes.hold(other, 0).loop, 1u);
}

// Loops taking and freeing one slot at once: while a loop holds it, a second hold answers the
// same loop (a lost count would free it under the first), and at the end it is free.
TEST(HomeSlots, ConcurrentHoldsAndReleasesKeepTheirCount) {
  home_slots homes(2);
  std::vector<std::size_t> seen[2];
  auto run = [&](std::size_t here) {
    for (int round = 0; round < 20000; ++round) {
      auto a = homes.hold("erin", here);
      auto b = homes.hold("erin", here);
      seen[here].push_back(a.loop == b.loop ? 0 : 1);
    }
  };
  std::thread t0(run, 0), t1(run, 1);
  t0.join();
  t1.join();
  for (const auto& s : seen)
    for (std::size_t mismatch : s)
      ASSERT_EQ(mismatch, 0u);
  EXPECT_EQ(homes.holder("erin"), std::nullopt);
}

}  // namespace
}  // namespace ringcast
