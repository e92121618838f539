// The one place that tells a loop's session observers (core/session_observers.hpp): a session's
// online state, told once each way, and only what changed in its channels.
#include <string>
#include <string_view>
#include <vector>

#include <gtest/gtest.h>

#include "core/session_events.hpp"
#include "core/session_observers.hpp"
#include "parts_fixture.hpp"

namespace ringcast {
namespace {

// An observer that writes down what it is told, one line per event.
class recording_observer final : public session_events {
 public:
  void on_connect(const session& s, bool resumed) override {
    told.push_back("connect " + s.user() + (resumed ? " resumed" : ""));
  }
  void on_disconnect(const session& s, std::string_view reason) override {
    told.push_back("disconnect " + s.user() + " " + std::string(reason));
  }
  void on_subscribe(const session& s, const std::vector<std::string>& channels) override {
    told.push_back("subscribe " + s.user() + joined(channels));
  }
  void on_unsubscribe(const session& s, const std::vector<std::string>& channels) override {
    told.push_back("unsubscribe " + s.user() + joined(channels));
  }

  std::vector<std::string> told;

 private:
  static std::string joined(const std::vector<std::string>& channels) {
    std::string out;
    for (const auto& c : channels)
      out += " " + c;
    return out;
  }
};

using lines = std::vector<std::string>;

class SessionObserversTest : public test::parts_fixture {
 protected:
  // The parts' own observers are left alone: these tests tell `observers` directly.
  session_observers observers;
  recording_observer first, second;
};

TEST_F(SessionObserversTest, EveryObserverIsToldOfGoingOnlineAndOfflineOnce) {
  observers.observe(first);
  observers.observe(second);
  session& alice = table().create("alice", "1");
  EXPECT_FALSE(alice.online());
  observers.go_online(alice, true);
  EXPECT_TRUE(alice.online());
  observers.go_offline(alice, "idle");
  EXPECT_FALSE(alice.online());
  // Offline already: nobody is told again.
  observers.go_offline(alice, "session_ttl");
  const lines expected{"connect alice resumed", "disconnect alice idle"};
  EXPECT_EQ(first.told, expected);
  EXPECT_EQ(second.told, expected);
}

TEST_F(SessionObserversTest, ASessionNeverOnlineGoesOfflineSilently) {
  observers.observe(first);
  session& bob = table().create("bob", "1");
  observers.go_offline(bob, "kicked");
  EXPECT_TRUE(first.told.empty());
  observers.go_online(bob, false);
  EXPECT_EQ(first.told, lines{"connect bob"});
}

TEST_F(SessionObserversTest, OnlyTheChannelsAddedAndRemovedAreToldRemovedFirst) {
  observers.observe(first);
  session& carol = table().create("carol", "1");
  parts().audience.set_channels(carol, {"a", "b", "c"}, 0);
  observers.channels_changed(carol, {"a", "x", "b"});
  EXPECT_EQ(first.told, (lines{"unsubscribe carol x", "subscribe carol c"}));

  first.told.clear();
  observers.channels_changed(carol, {"c", "b", "a"});  // the same channels in another order
  EXPECT_TRUE(first.told.empty());
  observers.channels_changed(carol, {"a", "b", "c", "d", "e"});
  EXPECT_EQ(first.told, (lines{"unsubscribe carol d e"}));
}

TEST_F(SessionObserversTest, AnObserverRemovedIsToldNothingMore) {
  observers.observe(first);
  observers.observe(second);
  session& dave = table().create("dave", "1");
  observers.go_online(dave, false);
  observers.unobserve(first);
  observers.go_offline(dave, "closed");
  EXPECT_EQ(first.told, lines{"connect dave"});
  EXPECT_EQ(second.told, (lines{"connect dave", "disconnect dave closed"}));
}

}  // namespace
}  // namespace ringcast
