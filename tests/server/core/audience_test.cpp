// Who a message reaches (the audience index): alone, on sessions of the table without a hub;
// then through the hub on a simulated clock: broadcasts, channels, a user, a list of users, and
// subscribers that detach while they are visited.
#include "core/session_events.hpp"
#include "hub_test_support.hpp"
#include "parts_fixture.hpp"

#include <algorithm>

namespace ringcast {
namespace {

// ---- the index alone -------------------------------------------------------------------------

class AudienceIndexAlone : public test::parts_fixture {
 protected:
  audience_index& index() { return parts().audience; }
  std::vector<std::string> visited(const message& m) {
    std::vector<std::string> out;
    index().for_each_live_addressee(m, [&](session& s) { out.push_back(s.key()); });
    std::sort(out.begin(), out.end());
    return out;
  }
};

using keys = std::vector<std::string>;

TEST_F(AudienceIndexAlone, AMessageIsAddressedToAllItsUserOrItsChannelsListeners) {
  test::recording_connection a, b;
  const session& alice = live("alice", "1", a, {"news"});
  const session& bob = live("bob", "1", b);
  EXPECT_TRUE(audience_index::addressed_to(alice, *make()));
  EXPECT_TRUE(audience_index::addressed_to(bob, *make()));
  const auto to_alice = make({.to = {audience::user, "alice"}});
  EXPECT_TRUE(audience_index::addressed_to(alice, *to_alice));
  EXPECT_FALSE(audience_index::addressed_to(bob, *to_alice));
  const auto news = make({.to = {audience::channel, "news"}});
  EXPECT_TRUE(audience_index::addressed_to(alice, *news));
  EXPECT_FALSE(audience_index::addressed_to(bob, *news));
}

TEST_F(AudienceIndexAlone, OnlyTheLiveSessionsAMessageAddressesAreVisited) {
  test::recording_connection a, b1, b2, c;
  live("alice", "1", a, {"news"});
  session& bob = live("bob", "1", b1, {"news"});
  live("bob", "2", b2);
  live("carol", "1", c, {"sport"});
  table().detach_now(bob, now);
  EXPECT_EQ(visited(*make({.to = {audience::channel, "news"}})), (keys{"alice/1"}));
  EXPECT_EQ(visited(*make({.to = {audience::user, "bob"}})), (keys{"bob/2"}));
  EXPECT_EQ(visited(*make({.to = {audience::user, "nobody"}})), keys{});
  EXPECT_EQ(visited(*make()), (keys{"alice/1", "bob/2", "carol/1"}));
  EXPECT_EQ(index().live_count(), 3u);
}

// Records what it is told of channels.
class channel_events final : public session_events {
 public:
  void on_connect(const session&, bool) override {}
  void on_disconnect(const session&, std::string_view) override {}
  void on_subscribe(const session&, const std::vector<std::string>& c) override {
    added.push_back(c);
  }
  void on_unsubscribe(const session&, const std::vector<std::string>& c) override {
    removed.push_back(c);
  }
  std::vector<std::vector<std::string>> added, removed;
};

TEST_F(AudienceIndexAlone, AnOnlineSessionsObserversAreToldOnlyWhatChanged) {
  channel_events events;
  parts().observers.observe(events);
  test::recording_connection a;
  session& s = live("alice", "1", a, {"news"});  // offline yet: nobody is told
  EXPECT_TRUE(events.added.empty());
  parts().observers.go_online(s, false);
  EXPECT_TRUE(index().subscribe(s, {"news", "sport"}, 0));
  index().unsubscribe(s, {"news", "weather"}, 0);
  EXPECT_EQ(events.added, (std::vector<std::vector<std::string>>{{"sport"}}));
  EXPECT_EQ(events.removed, (std::vector<std::vector<std::string>>{{"news"}}));
  EXPECT_EQ(s.channels(), (std::vector<std::string>{"sport"}));
  EXPECT_EQ(visited(*make({.to = {audience::channel, "news"}})), keys{});
  EXPECT_EQ(visited(*make({.to = {audience::channel, "sport"}})), (keys{"alice/1"}));
  parts().observers.unobserve(events);
}

// ---- through the hub ---------------------------------------------------------------------------

class AudienceTest : public hub_test_base {};

// ---- publish --------------------------------------------------------------------------------

TEST_F(AudienceTest, BroadcastReachesEveryAttachedSession) {
  fake_subscriber a(transport::ws), b(transport::sse), c(transport::poll), gone(transport::ws);
  attach(params("alice", "1"), a);
  attach(params("bob", "1"), b);
  attach(params("carol", "1"), c);
  const auto rg = attach(params("dave", "1"), gone);
  detach(rg, gone);

  EXPECT_EQ(publish(), 3u);
  EXPECT_EQ(a.ids(), (ids{1}));
  EXPECT_EQ(b.ids(), (ids{1}));
  EXPECT_EQ(c.ids(), (ids{1}));
  EXPECT_TRUE(gone.messages.empty());
  EXPECT_EQ(stats.delivered, 3u);
  EXPECT_EQ(the_hub().newest_id(), 1u);

  EXPECT_EQ(publish(), 3u);
  EXPECT_EQ(a.ids(), (ids{1, 2}));

  // The detached session finds both in history when it comes back.
  fake_subscriber back(transport::ws);
  const auto r = attach(params("dave", "1", {}, 0), back);
  EXPECT_TRUE(r.resumed);
  EXPECT_EQ(ids_of(r.backlog), (ids{1, 2}));
  EXPECT_FALSE(r.gap);
}

TEST_F(AudienceTest, PublishWithNobodyAttachedReachesNobody) {
  EXPECT_EQ(publish(), 0u);
  EXPECT_EQ(publish(audience::channel, "news"), 0u);
  EXPECT_EQ(publish(audience::user, "alice"), 0u);
  EXPECT_EQ(the_hub().newest_id(), 3u);
}

TEST_F(AudienceTest, ChannelMessagesReachOnlyItsSubscribers) {
  fake_subscriber a(transport::ws), b(transport::ws), c(transport::sse);
  const auto ra = attach(params("alice", "0", {"news", "sport"}), a);
  attach(params("bob", "0", {"sport"}), b);
  const auto rc = attach(params("carol", "0"), c);

  EXPECT_EQ(publish(audience::channel, "news"), 1u);     // 1
  EXPECT_EQ(publish(audience::channel, "sport"), 2u);    // 2
  EXPECT_EQ(publish(audience::channel, "weather"), 0u);  // 3
  EXPECT_EQ(a.ids(), (ids{1, 2}));
  EXPECT_EQ(b.ids(), (ids{2}));
  EXPECT_TRUE(c.messages.empty());

  EXPECT_TRUE(the_hub().subscribe(*rc.s, {"news", "weather"}));
  EXPECT_EQ(publish(audience::channel, "news"), 2u);     // 4
  EXPECT_EQ(publish(audience::channel, "weather"), 1u);  // 5
  EXPECT_EQ(c.ids(), (ids{4, 5}));

  the_hub().unsubscribe(*ra.s, {"news", "not-subscribed"});
  EXPECT_EQ(publish(audience::channel, "news"), 1u);   // 6
  EXPECT_EQ(publish(audience::channel, "sport"), 2u);  // 7
  EXPECT_EQ(a.ids(), (ids{1, 2, 4, 7}));
  EXPECT_EQ(c.ids(), (ids{4, 5, 6}));

  // Subscribing twice to a channel delivers once.
  EXPECT_TRUE(the_hub().subscribe(*rc.s, {"news", "news"}));
  EXPECT_EQ(publish(audience::channel, "news"), 1u);  // 8
  EXPECT_EQ(c.ids(), (ids{4, 5, 6, 8}));

  // Broadcasts still reach everyone.
  EXPECT_EQ(publish(), 3u);
}

TEST_F(AudienceTest, ReconnectTakesTheChannelsOfTheNewConnection) {
  fake_subscriber first(transport::ws), second(transport::ws);
  attach(params("alice", "0", {"news"}), first);
  attach(params("alice", "0", {"sport"}), second);
  EXPECT_EQ(publish(audience::channel, "news"), 0u);
  EXPECT_EQ(publish(audience::channel, "sport"), 1u);
  EXPECT_EQ(second.ids(), (ids{2}));
}

TEST_F(AudienceTest, SubscribeRefusesMoreThanTheChannelLimit) {
  fake_subscriber ws(transport::ws);
  const auto r = attach(params("alice", "0", {"c0"}), ws);
  std::vector<std::string> more;
  for (std::size_t i = 1; i < max_channels_per_client; ++i)
    more.push_back(fmt::format("c{}", i));
  EXPECT_TRUE(the_hub().subscribe(*r.s, more));  // exactly the limit
  EXPECT_FALSE(the_hub().subscribe(*r.s, {"one-too-many"}));
  EXPECT_EQ(publish(audience::channel, "one-too-many"), 0u);
  EXPECT_EQ(publish(audience::channel, "c31"), 1u);
  EXPECT_TRUE(the_hub().subscribe(*r.s, {"c0"}));  // already there: no growth
}

TEST_F(AudienceTest, UserMessagesReachEverySessionOfThatUser) {
  fake_subscriber a1(transport::ws), a2(transport::sse), a3(transport::poll), b(transport::ws),
      a_gone(transport::ws);
  attach(params("alice", "1"), a1);
  attach(params("alice", "2"), a2);
  attach(params("alice", "3"), a3);
  attach(params("bob", "1"), b);
  const auto rg = attach(params("alice", "4"), a_gone);
  detach(rg, a_gone);

  EXPECT_EQ(publish(audience::user, "alice"), 3u);
  EXPECT_EQ(a1.ids(), (ids{1}));
  EXPECT_EQ(a2.ids(), (ids{1}));
  EXPECT_EQ(a3.ids(), (ids{1}));
  EXPECT_TRUE(b.messages.empty());
  EXPECT_TRUE(a_gone.messages.empty());
  EXPECT_EQ(publish(audience::user, "bob"), 1u);
  EXPECT_EQ(b.ids(), (ids{2}));
  EXPECT_EQ(publish(audience::user, "ali"), 0u);  // no prefix matching
}

TEST_F(AudienceTest, DeliverySelfDetachingSubscribersInABroadcast) {
  // Long-polls answer at once and detach inside deliver(); one slow consumer ends itself.
  std::vector<std::unique_ptr<fake_subscriber>> conns;
  std::vector<session*> sessions;
  for (int i = 0; i < 20; ++i) {
    const transport kind = i % 3 == 0 ? transport::ws : transport::poll;
    conns.push_back(std::make_unique<fake_subscriber>(kind));
    sessions.push_back(attach(params(fmt::format("u{}", i)), *conns.back()).s);
  }
  for (int i = 0; i < 20; ++i) {
    fake_subscriber* conn = conns[i].get();
    session* s = sessions[i];
    if (conn->kind() == transport::poll) {
      conn->on_deliver = [this, s, conn](const message_ptr&) { the_hub().detach(*s, *conn, now); };
    } else if (i == 9) {
      conn->on_deliver = [this, s](const message_ptr&) {
        the_hub().end_connection(*s, ending::close_slow, now);
      };
    }
  }
  EXPECT_EQ(publish(), 20u);
  for (const auto& c : conns)
    EXPECT_EQ(c->ids(), (ids{1}));
  EXPECT_EQ(stats.delivered, 20u);
  ASSERT_EQ(conns[9]->endings.size(), 1u);
  EXPECT_EQ(conns[9]->last_ending(), ending::close_slow);

  // Only the WebSockets other than the slow one are still attached and get the next one.
  EXPECT_EQ(the_hub().connected_count(), 6u);
  EXPECT_EQ(publish(), 6u);
  for (int i = 0; i < 20; ++i) {
    const bool live = i % 3 == 0 && i != 9;
    EXPECT_EQ(conns[i]->ids(), live ? (ids{1, 2}) : (ids{1})) << i;
  }
}

TEST_F(AudienceTest, SelfDetachingSubscribersInChannelAndUserMessages) {
  std::vector<std::unique_ptr<fake_subscriber>> conns;
  for (int i = 0; i < 8; ++i) {
    conns.push_back(std::make_unique<fake_subscriber>(transport::poll));
    fake_subscriber* conn = conns.back().get();
    session* s = attach(params("alice", std::to_string(i), {"news"}), *conn).s;
    conn->on_deliver = [this, s, conn](const message_ptr&) { the_hub().detach(*s, *conn, now); };
  }
  EXPECT_EQ(publish(audience::channel, "news"), 8u);
  for (const auto& c : conns)
    EXPECT_EQ(c->ids(), (ids{1}));
  EXPECT_EQ(the_hub().connected_count(), 0u);
  EXPECT_EQ(publish(audience::user, "alice"), 0u);
}

// ---- a list of users, expiry, reach ------------------------------------------------------------

TEST_F(AudienceTest, AListOfUsersReachesEachListedUsersSessionsOnce) {
  fake_subscriber alice1(transport::ws), alice2(transport::sse), bob(transport::ws),
      carol(transport::ws);
  attach(params("alice", "1"), alice1);
  attach(params("alice", "2"), alice2);
  attach(params("bob"), bob);
  attach(params("carol"), carol);
  EXPECT_EQ(publish(audience::users, "alice,bob,nobody"), 3u);
  EXPECT_EQ(alice1.ids(), ids{1});
  EXPECT_EQ(alice2.ids(), ids{1});
  EXPECT_EQ(bob.ids(), ids{1});
  EXPECT_TRUE(carol.messages.empty());
  EXPECT_NE(alice1.messages[0]->json.find(R"("channel":"users")"), std::string::npos);
}

TEST_F(AudienceTest, AListOfUsersIsResumedOnlyByListedUsers) {
  publish(audience::users, "alice,bob");  // 1
  fake_subscriber alice(transport::ws), carol(transport::ws);
  EXPECT_EQ(ids_of(attach(params("alice", "0", {}, 0), alice).backlog), ids{1});
  EXPECT_TRUE(attach(params("carol", "0", {}, 0), carol).backlog.empty());
  EXPECT_TRUE(attach(params("ali", "0", {}, 0), carol).backlog.empty());  // no prefix matching
}

}  // namespace
}  // namespace ringcast
