// The Pusher door's channels on one node (core/pusher_channels.hpp): occupancy from the hub's
// sessions (both doors), presence members once per user however many connections, the
// transitions the door and the webhooks hear, and the counts the HTTP API reads.
#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <boost/asio/io_context.hpp>
#include <boost/asio/post.hpp>
#include <boost/json.hpp>

#include "core/pusher_channels.hpp"
#include "hub_fixture.hpp"

namespace ringcast {
namespace {

using namespace std::chrono_literals;

class quiet_subscriber final : public subscriber {
 public:
  transport kind() const override { return transport::ws; }
  void deliver(const message_ptr&) override {}
  void heartbeat() override {}
  void end(const ending_notice&) override {}
};

// A connection as the door's: it leaves its presence channels when the hub is about to detach it
// from its session.
class leaving_subscriber final : public subscriber {
 public:
  leaving_subscriber(pusher_channels& channels, std::string socket_id)
      : channels_(channels), socket_id_(std::move(socket_id)) {}
  transport kind() const override { return transport::ws; }
  void deliver(const message_ptr&) override {}
  void heartbeat() override {}
  void detaching() override { channels_.leave_all(socket_id_); }
  void end(const ending_notice&) override {}

 private:
  pusher_channels& channels_;
  std::string socket_id_;
};

// Every webhook event as one line: "channel_occupied sale", "member_added presence-a 1", …
class webhook_recorder final : public pusher_webhook_sink {
 public:
  void push(std::string event_json) override {
    const auto e = boost::json::parse(event_json).as_object();
    std::string line =
        std::string(e.at("name").as_string()) + " " + std::string(e.at("channel").as_string());
    if (const auto* u = e.if_contains("user_id")) line += " " + std::string(u->as_string());
    lines.push_back(line);
  }
  std::vector<std::string> lines;
};

// What the door's connections are told, as lines: "added presence-a 1 {"name":"Ann"}".
class door_recorder final : public pusher_member_events {
 public:
  void member_added(const std::string& channel, const pusher_member& m) override {
    lines.push_back("added " + channel + " " + m.user_id + " " + m.user_info);
  }
  void member_removed(const std::string& channel, const std::string& user_id) override {
    lines.push_back("removed " + channel + " " + user_id);
  }
  std::vector<std::string> lines;
};

client_params params(std::string user, std::string sid, std::vector<std::string> channels) {
  client_params p;
  p.user = std::move(user);
  p.sid = std::move(sid);
  p.channels = std::move(channels);
  return p;
}

class PusherChannelsTest : public test::hub_fixture {
 protected:
  PusherChannelsTest() {
    cfg.session_ttl = 5s;
    h = &the_hub();
    h->observe(presence);
    channels.set_webhooks(&webhooks);
    channels.set_member_events(&door);
  }
  ~PusherChannelsTest() override { h->unobserve(presence); }

  std::vector<pusher_member> join(const std::string& socket, const std::string& channel,
                                  pusher_member m) {
    std::optional<std::vector<pusher_member>> got;
    channels.join_presence(socket, channel, std::move(m), io.get_executor(),
                           [&](auto members) { got = std::move(members); });
    EXPECT_FALSE(got) << "answered inside the call";
    io.restart();
    io.poll();
    EXPECT_TRUE(got);
    return got.value_or(std::vector<pusher_member>{});
  }
  pusher::channel_counts counts(const std::string& name) {
    std::optional<pusher::channel_counts> got;
    channels.channel(name, io.get_executor(), [&](auto c) { got = std::move(c); });
    io.restart();
    io.poll();
    return got.value();
  }
  std::vector<pusher::channel_counts> listed(const std::string& prefix) {
    std::optional<std::vector<pusher::channel_counts>> got;
    channels.channels(prefix, io.get_executor(), [&](auto c) { got = std::move(c); });
    io.restart();
    io.poll();
    return got.value();
  }
  std::vector<pusher_member> members(const std::string& channel) {
    std::optional<std::vector<pusher_member>> got;
    channels.members(channel, io.get_executor(), [&](auto m) { got = std::move(m); });
    io.restart();
    io.poll();
    return got.value();
  }

  boost::asio::io_context io;
  presence_counts presence;
  pusher_channels channels{presence};
  webhook_recorder webhooks;
  door_recorder door;
  hub* h = nullptr;
};

TEST_F(PusherChannelsTest, AChannelIsOccupiedByItsFirstSessionAndVacatedByItsLast) {
  quiet_subscriber a, b;
  auto ra = h->attach(params("u1", "s1", {"sale"}), a, now);
  auto rb = h->attach(params("u2", "s2", {"sale", "news"}), b, now);
  EXPECT_EQ(counts("sale").subscription_count, 2u);
  h->detach(*ra.s, a, now);
  h->detach(*rb.s, b, now);
  EXPECT_EQ(webhooks.lines,
            (std::vector<std::string>{"channel_occupied sale", "channel_occupied news",
                                      "channel_vacated sale", "channel_vacated news"}));
  EXPECT_EQ(counts("sale").subscription_count, 0u);
}

TEST_F(PusherChannelsTest, AUserWithTwoConnectionsIsOneMember) {
  EXPECT_EQ(join("1.1", "presence-room", {"10", R"({"name":"Ann"})"}),
            (std::vector<pusher_member>{{"10", R"({"name":"Ann"})"}}));
  // The same user again, from another connection (with other info): still one member, the
  // first's info, and nobody is told of a new member.
  EXPECT_EQ(join("1.2", "presence-room", {"10", R"({"name":"Other"})"}),
            (std::vector<pusher_member>{{"10", R"({"name":"Ann"})"}}));
  EXPECT_EQ(join("1.3", "presence-room", {"11", "null"}),
            (std::vector<pusher_member>{{"10", R"({"name":"Ann"})"}, {"11", "null"}}));
  EXPECT_EQ(counts("presence-room").user_count, 2u);
  channels.leave_presence("1.1", "presence-room");  // user 10 is still there through 1.2
  EXPECT_EQ(counts("presence-room").user_count, 2u);
  channels.leave_all("1.2");
  EXPECT_EQ(members("presence-room"), (std::vector<pusher_member>{{"11", "null"}}));
  EXPECT_EQ(door.lines,
            (std::vector<std::string>{"added presence-room 10 {\"name\":\"Ann\"}",
                                      "added presence-room 11 null", "removed presence-room 10"}));
  EXPECT_EQ(webhooks.lines, (std::vector<std::string>{"member_added presence-room 10",
                                                      "member_added presence-room 11",
                                                      "member_removed presence-room 10"}));
}

TEST_F(PusherChannelsTest, JoiningTwiceOrLeavingWhatWasNeverJoinedChangesNothing) {
  join("1.1", "presence-a", {"10", "null"});
  join("1.1", "presence-a", {"10", "null"});
  channels.leave_presence("1.1", "presence-b");
  channels.leave_presence("9.9", "presence-a");
  channels.leave_all("9.9");
  EXPECT_EQ(counts("presence-a").user_count, 1u);
  channels.leave_presence("1.1", "presence-a");  // one join, so one leave empties it
  EXPECT_EQ(counts("presence-a").user_count, 0u);
  channels.leave_presence("1.1", "presence-a");
  EXPECT_EQ(door.lines.size(), 2u);
  EXPECT_TRUE(members("presence-a").empty());
}

TEST_F(PusherChannelsTest, LeaveAllLeavesEveryPresenceChannelOfTheConnection) {
  join("1.1", "presence-a", {"10", "null"});
  join("1.1", "presence-b", {"20", "null"});  // another member on another channel
  channels.leave_all("1.1");
  std::sort(door.lines.begin(), door.lines.end());
  EXPECT_EQ(door.lines,
            (std::vector<std::string>{"added presence-a 10 null", "added presence-b 20 null",
                                      "removed presence-a 10", "removed presence-b 20"}));
}

// The door's connections leave their presence channels before their session goes offline
// (subscriber::detaching), whether the client left or the hub ended it: a channel's last
// member_removed comes before channel_vacated, as Pusher orders its webhooks. Fails without the
// hub's detaching() calls (vacated first).
TEST_F(PusherChannelsTest, TheLastMemberIsRemovedBeforeItsChannelIsVacated) {
  leaving_subscriber a(channels, "1.1"), b(channels, "1.2");
  auto ra = h->attach(params("#1.1", "1.1", {"presence-room"}), a, now);
  join("1.1", "presence-room", {"10", "null"});
  h->detach(*ra.s, a, now);  // the client left
  auto rb = h->attach(params("#1.2", "1.2", {"presence-lobby"}), b, now);
  join("1.2", "presence-lobby", {"20", "null"});
  h->end_connection(*rb.s, ending::close_idle, now);  // the hub ends it
  EXPECT_EQ(webhooks.lines,
            (std::vector<std::string>{
                "channel_occupied presence-room", "member_added presence-room 10",
                "member_removed presence-room 10", "channel_vacated presence-room",
                "channel_occupied presence-lobby", "member_added presence-lobby 20",
                "member_removed presence-lobby 20", "channel_vacated presence-lobby"}));
}

TEST_F(PusherChannelsTest, ChannelsByPrefixWithTheirCounts) {
  quiet_subscriber a, b, c;
  h->attach(params("u1", "s1", {"presence-room", "sale"}), a, now);
  h->attach(params("u2", "s2", {"presence-room"}), b, now);
  h->attach(params("u3", "s3", {"presence-lobby"}), c, now);
  join("1.1", "presence-room", {"10", "null"});
  join("1.2", "presence-room", {"10", "null"});
  join("1.3", "presence-lobby", {"30", "null"});
  const auto all = listed("");
  ASSERT_EQ(all.size(), 3u);
  EXPECT_EQ(all[0].name, "presence-lobby");
  EXPECT_EQ(all[2].name, "sale");
  const auto rooms = listed("presence-");
  ASSERT_EQ(rooms.size(), 2u);
  EXPECT_EQ(rooms[1].name, "presence-room");
  EXPECT_EQ(rooms[1].subscription_count, 2u);
  EXPECT_EQ(rooms[1].user_count, 1u);
  EXPECT_TRUE(listed("private-").empty());
}

TEST_F(PusherChannelsTest, ClientEventsAndCacheMissesBecomeWebhooks) {
  channels.client_event("private-chat", "client-typing", R"({"x":1})", "1.1", std::nullopt);
  channels.cache_miss("cache-price");
  EXPECT_EQ(webhooks.lines,
            (std::vector<std::string>{"client_event private-chat", "cache_miss cache-price"}));
}

// A cluster as pusher_channels sees it (redis/redis_pusher.hpp): records this node's changes and
// answers reads with what the test sets.
class fake_cluster final : public pusher_cluster {
 public:
  void node_occupancy(const std::string& channel, bool occupied) override {
    lines.push_back((occupied ? "occupied " : "vacated ") + channel);
  }
  void node_member(const std::string& channel, const pusher_member& m, bool joined) override {
    lines.push_back((joined ? "joined " : "left ") + channel + " " + m.user_id);
  }
  void channel(const std::string& name, boost::asio::any_io_executor origin,
               std::function<void(std::optional<pusher::channel_counts>)> done) override {
    boost::asio::post(origin, [name, done = std::move(done)] {
      done(pusher::channel_counts{name, 7, 3});
    });
  }
  void channels(
      const std::string&, boost::asio::any_io_executor origin,
      std::function<void(std::optional<std::vector<pusher::channel_counts>>)> done) override {
    boost::asio::post(origin, [done = std::move(done)] { done(std::nullopt); });  // unreachable
  }
  void members(const std::string&, boost::asio::any_io_executor origin,
               std::function<void(std::optional<std::vector<pusher_member>>)> done) override {
    boost::asio::post(origin, [this, done = std::move(done)] { done(cluster_members); });
  }
  bool settled() const override { return answered; }
  std::vector<std::string> lines;
  std::vector<pusher_member> cluster_members;
  bool answered = true;
};

class PusherChannelsClusterTest : public PusherChannelsTest {
 protected:
  PusherChannelsClusterTest() { channels.set_cluster(&cluster); }
  ~PusherChannelsClusterTest() override { channels.set_cluster(nullptr); }
  fake_cluster cluster;
};

TEST_F(PusherChannelsClusterTest, ThisNodesFirstAndLastGoToTheClusterWhichDecides) {
  quiet_subscriber a;
  auto ra = h->attach(params("u1", "s1", {"presence-room"}), a, now);
  cluster.cluster_members = {{"10", "null"}, {"99", R"({"on":"other node"})"}};
  // The member list is the cluster's, asked after this node's join.
  EXPECT_EQ(join("1.1", "presence-room", {"10", "null"}), cluster.cluster_members);
  join("1.2", "presence-room", {"10", "null"});  // not this node's first: the cluster is not told
  channels.leave_presence("1.1", "presence-room");
  channels.leave_presence("1.2", "presence-room");
  h->detach(*ra.s, a, now);
  EXPECT_EQ(cluster.lines,
            (std::vector<std::string>{"occupied presence-room", "joined presence-room 10",
                                      "left presence-room 10", "vacated presence-room"}));
  // Nothing is sent or told until the cluster decides.
  EXPECT_TRUE(webhooks.lines.empty());
  EXPECT_TRUE(door.lines.empty());
  using k = pusher_cluster_change::kind;
  channels.cluster_changed(
      {{k::occupied, "presence-room", {}}, {k::member_added, "presence-room", {"10", "null"}}});
  EXPECT_EQ(webhooks.lines, (std::vector<std::string>{"channel_occupied presence-room",
                                                      "member_added presence-room 10"}));
  EXPECT_TRUE(door.lines.empty());  // the door hears members from the cluster's broadcast
  channels.cluster_member({k::member_added, "presence-room", {"99", "{}"}});
  EXPECT_EQ(door.lines, (std::vector<std::string>{"added presence-room 99 {}"}));
}

TEST_F(PusherChannelsClusterTest, ReadsAreTheClustersAndAnUnreachableOneIsNoAnswer) {
  EXPECT_EQ(counts("x").subscription_count, 7u);
  std::optional<std::optional<std::vector<pusher::channel_counts>>> got;
  channels.channels("", io.get_executor(), [&](auto c) { got = std::move(c); });
  io.restart();
  io.poll();
  ASSERT_TRUE(got);
  EXPECT_FALSE(*got);
}

TEST_F(PusherChannelsClusterTest, SettledIsTheClustersAndAlwaysAlone) {
  EXPECT_TRUE(channels.settled());
  cluster.answered = false;  // a change on its way to Redis: a draining node waits
  EXPECT_FALSE(channels.settled());
  channels.set_cluster(nullptr);
  EXPECT_TRUE(channels.settled());
}

TEST_F(PusherChannelsClusterTest, TheNodesStateIsWhatItHolds) {
  quiet_subscriber a;
  h->attach(params("u1", "s1", {"presence-room", "sale"}), a, now);
  join("1.1", "presence-room", {"10", R"({"n":1})"});
  const auto state = channels.node_state();
  EXPECT_EQ(state.occupied, (std::vector<std::string>{"presence-room", "sale"}));
  ASSERT_EQ(state.members.size(), 1u);
  EXPECT_EQ(state.members[0].first, "presence-room");
  EXPECT_EQ(state.members[0].second, (pusher_member{"10", R"({"n":1})"}));
}

}  // namespace
}  // namespace ringcast
