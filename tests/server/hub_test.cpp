#include "hub_fixture.hpp"

#include <algorithm>
#include <chrono>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <boost/json.hpp>

namespace ringcast {
namespace {

using namespace std::chrono_literals;
using time_point = hub::time_point;
using std::chrono::milliseconds;

// A connection as the hub sees it: records what it is given.
class fake_subscriber final : public subscriber {
 public:
  explicit fake_subscriber(transport kind) : kind_(kind) {}

  transport kind() const override { return kind_; }
  void deliver(const message_ptr& m) override {
    messages.push_back(m);
    if (on_deliver) on_deliver(m);
  }
  void heartbeat() override { ++heartbeats; }
  void end(const ending_notice& notice) override { endings.push_back(notice); }

  std::vector<std::uint64_t> ids() const {
    std::vector<std::uint64_t> out;
    for (const auto& m : messages)
      out.push_back(m->id);
    return out;
  }
  bool ended() const { return !endings.empty(); }
  ending last_ending() const { return endings.back().why; }

  std::vector<message_ptr> messages;
  int heartbeats = 0;
  std::vector<ending_notice> endings;
  std::function<void(const message_ptr&)> on_deliver;  // e.g. a long-poll answering at once

 private:
  transport kind_;
};

using ids = std::vector<std::uint64_t>;

std::vector<std::uint64_t> ids_of(const std::vector<message_ptr>& messages) {
  std::vector<std::uint64_t> out;
  for (const auto& m : messages)
    out.push_back(m->id);
  return out;
}

client_params params(std::string user, std::string sid = "0",
                     std::vector<std::string> channels = {},
                     std::optional<std::uint64_t> since = std::nullopt) {
  client_params p;
  p.user = std::move(user);
  p.sid = std::move(sid);
  p.channels = std::move(channels);
  p.since = since;
  return p;
}

class HubTest : public test::hub_fixture {
 protected:
  HubTest() {
    cfg.tick = 10ms;
    cfg.heartbeat = 1s;
    cfg.idle_timeout = 3s;
    cfg.session_ttl = 5s;
    cfg.poll_timeout = 2s;
    cfg.reconnect_delay = 1s;
    cfg.drain = 2s;
    cfg.max_connection_age = 0ms;
  }

  hub::attach_result attach(const client_params& p, fake_subscriber& conn) {
    return the_hub().attach(p, conn, now);
  }
  void detach(const hub::attach_result& r, fake_subscriber& conn) {
    the_hub().detach(*r.s, conn, now);
  }

  // Advances 1 ms at a time until `done()` holds; returns the simulated time it first held at
  // (or time_point::max() if not by `limit`).
  time_point advance_until(const std::function<bool()>& done, time_point limit) {
    while (now < limit) {
      advance_to(now + 1ms);
      if (done()) return now;
    }
    return time_point::max();
  }

  message_ptr make(audience to = audience::broadcast, std::string target = "") {
    const std::uint64_t id = ++last_id;
    return make_message(id, 1'700'000'000'000, {to, std::move(target)},
                        R"({"n":)" + std::to_string(id) + "}");
  }
  std::size_t publish(audience to = audience::broadcast, std::string target = "") {
    return the_hub().publish(make(to, std::move(target)), now);
  }

  std::uint64_t last_id = 0;
};

boost::json::object parse_object(std::string_view text) {
  boost::system::error_code ec;
  boost::json::value v = boost::json::parse(text, ec);
  EXPECT_FALSE(ec) << text;
  return v.is_object() ? v.as_object() : boost::json::object{};
}

// ---- attach, resume, replace ----------------------------------------------------------------

TEST_F(HubTest, AttachCreatesASession) {
  fake_subscriber ws(transport::ws);
  const auto r = attach(params("alice", "t1"), ws);
  ASSERT_NE(r.s, nullptr);
  EXPECT_FALSE(r.resumed);
  EXPECT_FALSE(r.gap);
  EXPECT_EQ(r.s->user(), "alice");
  EXPECT_EQ(r.s->sid(), "t1");
  EXPECT_TRUE(r.s->armed());
  EXPECT_EQ(the_hub().session_count(), 1u);
  EXPECT_EQ(the_hub().connected_count(), 1u);
  EXPECT_EQ(stats.sessions_created, 1u);
  EXPECT_EQ(stats.ws, 1u);
  EXPECT_EQ(timers().wheel().stats().scheduled, 1u);
  EXPECT_EQ(timers().wheel().size(), 1u);

  // Another sid of the same user is another session.
  fake_subscriber other(transport::sse);
  const auto r2 = attach(params("alice", "t2"), other);
  EXPECT_NE(r2.s, r.s);
  EXPECT_FALSE(r2.resumed);
  EXPECT_EQ(the_hub().session_count(), 2u);
  EXPECT_EQ(stats.sse, 1u);
}

TEST_F(HubTest, ReconnectWithinTtlFindsTheSameSessionAndMovesItsNode) {
  fake_subscriber first(transport::ws);
  const auto r1 = attach(params("alice", "t1"), first);
  advance_by(500ms);
  detach(r1, first);
  EXPECT_EQ(the_hub().connected_count(), 0u);
  EXPECT_EQ(stats.ws, 0u);
  EXPECT_EQ(the_hub().session_count(), 1u);
  advance_by(2s);

  const auto wheel_before = timers().wheel().stats();
  const auto stats_before = stats;
  fake_subscriber second(transport::poll);
  const auto r2 = attach(params("alice", "t1"), second);
  EXPECT_EQ(r2.s, r1.s);
  EXPECT_TRUE(r2.resumed);
  EXPECT_EQ(stats.sessions_reused, stats_before.sessions_reused + 1);
  EXPECT_EQ(stats.moves_reconnect, stats_before.moves_reconnect + 1);
  EXPECT_EQ(stats.sessions_created, 1u);
  EXPECT_EQ(timers().wheel().stats().moved, wheel_before.moved + 1);
  EXPECT_EQ(timers().wheel().stats().scheduled, wheel_before.scheduled);
  EXPECT_EQ(timers().wheel().stats().cancelled, wheel_before.cancelled);
  EXPECT_EQ(the_hub().session_count(), 1u);
  EXPECT_EQ(the_hub().connected_count(), 1u);
  EXPECT_EQ(stats.poll, 1u);
  EXPECT_FALSE(first.ended());  // it had already gone
}

TEST_F(HubTest, SecondLiveWebSocketReplacesTheFirst) {
  fake_subscriber first(transport::ws);
  fake_subscriber second(transport::ws);
  const auto r1 = attach(params("alice", "t1"), first);
  advance_by(100ms);
  const auto r2 = attach(params("alice", "t1"), second);
  EXPECT_EQ(r2.s, r1.s);
  EXPECT_TRUE(r2.resumed);
  ASSERT_EQ(first.endings.size(), 1u);
  EXPECT_EQ(first.last_ending(), ending::close_replaced);
  const auto o = parse_object(first.endings[0].json);
  EXPECT_EQ(o.at("type"), "close");
  EXPECT_EQ(o.at("reason"), "replaced");
  EXPECT_FALSE(second.ended());
  EXPECT_EQ(stats.replaced, 1u);
  EXPECT_EQ(stats.ws, 1u);
  EXPECT_EQ(the_hub().connected_count(), 1u);

  // The replaced connection going away later does not detach its successor.
  detach(r1, first);
  EXPECT_EQ(the_hub().connected_count(), 1u);
  EXPECT_EQ(publish(), 1u);
  EXPECT_EQ(second.ids(), (ids{1}));
  EXPECT_TRUE(first.messages.empty());
}

TEST_F(HubTest, SseIsReplacedWithClose) {
  fake_subscriber first(transport::sse);
  fake_subscriber second(transport::poll);
  attach(params("alice"), first);
  attach(params("alice"), second);
  ASSERT_EQ(first.endings.size(), 1u);
  EXPECT_EQ(first.last_ending(), ending::close_replaced);
  EXPECT_EQ(stats.sse, 0u);
  EXPECT_EQ(stats.poll, 1u);
}

TEST_F(HubTest, HeldPollIsReplacedWithReconnect) {
  fake_subscriber poll(transport::poll);
  fake_subscriber ws(transport::ws);
  attach(params("alice", "t1"), poll);
  publish();  // published before the replacement: last_id tells the old poll where it stands
  // (the poll received it; a real long-poll would have detached; this one keeps holding)
  attach(params("alice", "t1"), ws);
  ASSERT_EQ(poll.endings.size(), 1u);
  const ending_notice& n = poll.endings[0];
  EXPECT_EQ(n.why, ending::reconnect_replaced);
  EXPECT_GE(n.retry_ms, 500u);
  EXPECT_LE(n.retry_ms, 1500u);
  const auto o = parse_object(n.json);
  EXPECT_EQ(o.at("type"), "reconnect");
  EXPECT_EQ(o.at("reason"), "replaced");
  EXPECT_EQ(o.at("retry_ms").to_number<std::uint32_t>(), n.retry_ms);
  EXPECT_EQ(o.at("last_id").to_number<std::uint64_t>(), 1u);
  EXPECT_EQ(stats.replaced, 1u);
  EXPECT_EQ(stats.poll, 0u);
  EXPECT_EQ(stats.ws, 1u);
}

// ---- session TTL ------------------------------------------------------------------------------

TEST_F(HubTest, DetachedSessionIsDroppedWhenTheTtlPassesNotBefore) {
  fake_subscriber ws(transport::ws);
  const auto r = attach(params("alice", "t1"), ws);
  advance_by(1s);
  const time_point detached_at = now;
  detach(r, ws);
  EXPECT_EQ(the_hub().session_count(), 1u);
  const auto fired_before = timers().wheel().stats().fired;

  advance_to(detached_at + cfg.session_ttl - cfg.tick);
  EXPECT_EQ(the_hub().session_count(), 1u);
  EXPECT_EQ(stats.session_ttl, 0u);
  advance_to(detached_at + cfg.session_ttl - 1ms);
  EXPECT_EQ(the_hub().session_count(), 1u);
  advance_to(detached_at + cfg.session_ttl);
  EXPECT_EQ(the_hub().session_count(), 0u);
  EXPECT_EQ(stats.session_ttl, 1u);
  EXPECT_EQ(timers().wheel().size(), 0u);
  EXPECT_EQ(timers().wheel().stats().fired, fired_before + 1);  // once, when due; no early wake
  EXPECT_FALSE(ws.ended());  // it had gone by itself; nobody to tell

  // A later connect starts a new session.
  fake_subscriber again(transport::ws);
  const auto r2 = attach(params("alice", "t1"), again);
  EXPECT_FALSE(r2.resumed);
  EXPECT_EQ(stats.sessions_created, 2u);
  EXPECT_EQ(stats.sessions_reused, 0u);
}

TEST_F(HubTest, TtlOffTheTickGridFiresAtTheNextTickAtTheLatest) {
  fake_subscriber sse(transport::sse);
  const auto r = attach(params("alice"), sse);
  advance_by(1003ms);
  const time_point detached_at = now;
  detach(r, sse);
  const time_point gone = advance_until([&] { return the_hub().session_count() == 0; }, now + 10s);
  EXPECT_GE(gone, detached_at + cfg.session_ttl);
  EXPECT_LE(gone, detached_at + cfg.session_ttl + cfg.tick);
}

TEST_F(HubTest, ReconnectBeforeTheTtlKeepsTheSession) {
  fake_subscriber first(transport::ws);
  const auto r1 = attach(params("alice", "t1"), first);
  detach(r1, first);
  advance_to(epoch + cfg.session_ttl - cfg.tick);

  fake_subscriber second(transport::sse);  // SSE: no idle timeout to get in the way
  const auto r2 = attach(params("alice", "t1"), second);
  EXPECT_TRUE(r2.resumed);
  advance_to(epoch + 3 * cfg.session_ttl);
  EXPECT_EQ(the_hub().session_count(), 1u);
  EXPECT_EQ(stats.session_ttl, 0u);
  EXPECT_FALSE(second.ended());

  // Its TTL starts again from the new detach.
  const time_point detached_at = now;
  detach(r2, second);
  advance_to(detached_at + cfg.session_ttl - cfg.tick);
  EXPECT_EQ(the_hub().session_count(), 1u);
  advance_to(detached_at + cfg.session_ttl);
  EXPECT_EQ(the_hub().session_count(), 0u);
}

// ---- WebSocket and SSE timers -----------------------------------------------------------------

TEST_F(HubTest, WebSocketHeartbeatAfterTheIntervalWithoutTraffic) {
  fake_subscriber ws(transport::ws);
  attach(params("alice"), ws);
  const time_point first = advance_until([&] { return ws.heartbeats > 0; }, now + 5s);
  EXPECT_EQ(first, epoch + cfg.heartbeat);
  const time_point second = advance_until([&] { return ws.heartbeats > 1; }, now + 5s);
  EXPECT_EQ(second, epoch + 2 * cfg.heartbeat);
  EXPECT_FALSE(ws.ended());
}

TEST_F(HubTest, DeliveryPostponesTheHeartbeat) {
  fake_subscriber ws(transport::ws);
  attach(params("alice"), ws);
  advance_to(epoch + 500ms);
  EXPECT_EQ(publish(), 1u);
  const auto lazy_before = stats.moves_activity;
  const time_point first = advance_until([&] { return ws.heartbeats > 0; }, now + 5s);
  EXPECT_EQ(first, epoch + 500ms + cfg.heartbeat);
  // The node came due at 1 s with nothing to do and was re-armed.
  EXPECT_EQ(stats.moves_activity, lazy_before + 1);
}

TEST_F(HubTest, WebSocketIsClosedIdleWithoutActivity) {
  fake_subscriber ws(transport::ws);
  const auto r = attach(params("alice", "t1"), ws);
  const time_point closed = advance_until([&] { return ws.ended(); }, now + 10s);
  EXPECT_EQ(closed, epoch + cfg.idle_timeout);
  ASSERT_EQ(ws.endings.size(), 1u);
  EXPECT_EQ(ws.last_ending(), ending::close_idle);
  const auto o = parse_object(ws.endings[0].json);
  EXPECT_EQ(o.at("type"), "close");
  EXPECT_EQ(o.at("reason"), "idle");
  EXPECT_EQ(ws.heartbeats, 2);  // at 1 s and 2 s; heartbeats are not client activity
  EXPECT_EQ(stats.idle, 1u);
  EXPECT_EQ(stats.ws, 0u);
  EXPECT_EQ(the_hub().connected_count(), 0u);

  // The session then waits out its TTL.
  EXPECT_EQ(the_hub().session_count(), 1u);
  advance_to(closed + cfg.session_ttl - cfg.tick);
  EXPECT_EQ(the_hub().session_count(), 1u);
  advance_to(closed + cfg.session_ttl);
  EXPECT_EQ(the_hub().session_count(), 0u);
  EXPECT_EQ(ws.endings.size(), 1u);
  (void)r;
}

TEST_F(HubTest, ActivityPostponesIdleWithALazyMove) {
  cfg.heartbeat = 10s;  // so that the only reason for the node to come due is idleness
  fake_subscriber ws(transport::ws);
  const auto r = attach(params("alice"), ws);
  const auto wheel_before = timers().wheel().stats();
  advance_to(epoch + 2s);
  the_hub().activity(*r.s, now);
  // Activity only records a time: the node is not touched.
  EXPECT_EQ(timers().wheel().stats().moved, wheel_before.moved);
  EXPECT_EQ(timers().wheel().stats().scheduled, wheel_before.scheduled);

  advance_to(epoch + cfg.idle_timeout);
  EXPECT_FALSE(ws.ended());
  EXPECT_EQ(stats.moves_activity, 1u);

  const time_point closed = advance_until([&] { return ws.ended(); }, now + 10s);
  EXPECT_EQ(closed, epoch + 2s + cfg.idle_timeout);
  EXPECT_EQ(ws.last_ending(), ending::close_idle);
  EXPECT_EQ(ws.heartbeats, 0);
}

TEST_F(HubTest, RegularActivityKeepsAWebSocketOpen) {
  fake_subscriber ws(transport::ws);
  const auto r = attach(params("alice"), ws);
  for (int i = 0; i < 30; ++i) {
    advance_by(1s);
    the_hub().activity(*r.s, now);  // e.g. the client's pong
  }
  EXPECT_FALSE(ws.ended());
  EXPECT_GE(ws.heartbeats, 29);
  EXPECT_EQ(stats.idle, 0u);
}

TEST_F(HubTest, SseGetsHeartbeatsButIsNeverIdleClosed) {
  fake_subscriber sse(transport::sse);
  attach(params("alice"), sse);
  const time_point first = advance_until([&] { return sse.heartbeats > 0; }, now + 5s);
  EXPECT_EQ(first, epoch + cfg.heartbeat);
  advance_to(epoch + 10 * cfg.idle_timeout);
  EXPECT_FALSE(sse.ended());
  EXPECT_EQ(sse.heartbeats, 30);
  EXPECT_EQ(stats.idle, 0u);
  EXPECT_EQ(the_hub().connected_count(), 1u);
}

TEST_F(HubTest, HeartbeatsCatchUpOnceAfterALongStall) {
  // If the loop is late, one heartbeat is sent, not one per missed interval.
  fake_subscriber sse(transport::sse);
  attach(params("alice"), sse);
  jump_to(epoch + 5500ms);
  EXPECT_EQ(sse.heartbeats, 1);
  // The next one is an interval after the one sent, not on the old grid.
  const time_point next = advance_until([&] { return sse.heartbeats > 1; }, now + 5s);
  EXPECT_EQ(next, epoch + 6500ms);
}

// ---- long-poll ------------------------------------------------------------------------------

TEST_F(HubTest, HeldPollIsAnsweredReconnectTimeout) {
  std::vector<std::unique_ptr<fake_subscriber>> polls;
  for (int i = 0; i < 50; ++i) {
    polls.push_back(std::make_unique<fake_subscriber>(transport::poll));
    attach(params(fmt::format("u{}", i)), *polls.back());
  }
  publish(audience::user, "nobody");  // so that last_id is 1
  const time_point answered = advance_until([&] { return polls[0]->ended(); }, now + 10s);
  EXPECT_EQ(answered, epoch + cfg.poll_timeout);
  std::set<std::uint32_t> retries;
  for (const auto& p : polls) {
    ASSERT_EQ(p->endings.size(), 1u);
    const ending_notice& n = p->endings[0];
    EXPECT_EQ(n.why, ending::reconnect_timeout);
    // A poll comes straight back: at most a quarter of --reconnect-delay.
    EXPECT_LE(n.retry_ms, cfg.reconnect_delay.count() / 4);
    retries.insert(n.retry_ms);
    const auto o = parse_object(n.json);
    EXPECT_EQ(o.at("type"), "reconnect");
    EXPECT_EQ(o.at("reason"), "timeout");
    EXPECT_EQ(o.at("retry_ms").to_number<std::uint32_t>(), n.retry_ms);
    EXPECT_EQ(o.at("last_id").to_number<std::uint64_t>(), 1u);
    EXPECT_EQ(p->heartbeats, 0);
  }
  EXPECT_GT(retries.size(), 1u);  // jittered
  EXPECT_EQ(stats.poll_timeout, 50u);
  EXPECT_EQ(stats.poll, 0u);
  EXPECT_EQ(the_hub().connected_count(), 0u);
  EXPECT_EQ(the_hub().session_count(), 50u);
}

TEST_F(HubTest, PollingAgainFindsTheSessionAndRestartsThePollTimeout) {
  fake_subscriber p1(transport::poll);
  const auto r1 = attach(params("alice"), p1);
  advance_to(epoch + cfg.poll_timeout);
  ASSERT_TRUE(p1.ended());

  fake_subscriber p2(transport::poll);
  const auto r2 = attach(params("alice"), p2);
  EXPECT_EQ(r2.s, r1.s);
  EXPECT_TRUE(r2.resumed);
  advance_to(now + cfg.poll_timeout - cfg.tick);
  EXPECT_FALSE(p2.ended());
  advance_to(now + cfg.tick);
  EXPECT_TRUE(p2.ended());
}

// ---- max connection age ---------------------------------------------------------------------

TEST_F(HubTest, MaxConnectionAgeAsksForAJitteredReconnect) {
  cfg.max_connection_age = 1500ms;
  std::vector<std::unique_ptr<fake_subscriber>> conns;
  std::vector<session*> sessions;
  for (int i = 0; i < 60; ++i) {
    conns.push_back(std::make_unique<fake_subscriber>(transport::ws));
    sessions.push_back(attach(params(fmt::format("u{}", i)), *conns.back()).s);
  }
  advance_to(epoch + 1000ms);
  for (session* s : sessions)
    the_hub().activity(*s, now);  // not idle
  advance_to(epoch + cfg.max_connection_age - cfg.tick);
  for (const auto& c : conns)
    EXPECT_FALSE(c->ended());
  advance_to(epoch + cfg.max_connection_age);

  std::set<std::uint32_t> retries;
  for (const auto& c : conns) {
    ASSERT_EQ(c->endings.size(), 1u);
    const ending_notice& n = c->endings[0];
    EXPECT_EQ(n.why, ending::reconnect_rebalance);
    EXPECT_GE(n.retry_ms, cfg.reconnect_delay.count() / 2);
    EXPECT_LE(n.retry_ms, cfg.reconnect_delay.count() * 3 / 2);
    retries.insert(n.retry_ms);
    const auto o = parse_object(n.json);
    EXPECT_EQ(o.at("type"), "reconnect");
    EXPECT_EQ(o.at("reason"), "rebalance");
  }
  EXPECT_GT(retries.size(), 10u);
  EXPECT_EQ(stats.max_age, 60u);
  EXPECT_EQ(the_hub().connected_count(), 0u);
}

TEST_F(HubTest, NoMaxConnectionAgeByDefault) {
  fake_subscriber sse(transport::sse);
  attach(params("alice"), sse);
  advance_to(epoch + 10min);
  EXPECT_FALSE(sse.ended());
  EXPECT_EQ(stats.max_age, 0u);
}

// ---- publish --------------------------------------------------------------------------------

TEST_F(HubTest, BroadcastReachesEveryAttachedSession) {
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

TEST_F(HubTest, PublishWithNobodyAttachedReachesNobody) {
  EXPECT_EQ(publish(), 0u);
  EXPECT_EQ(publish(audience::channel, "news"), 0u);
  EXPECT_EQ(publish(audience::user, "alice"), 0u);
  EXPECT_EQ(the_hub().newest_id(), 3u);
}

TEST_F(HubTest, ChannelMessagesReachOnlyItsSubscribers) {
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

TEST_F(HubTest, ReconnectTakesTheChannelsOfTheNewConnection) {
  fake_subscriber first(transport::ws), second(transport::ws);
  attach(params("alice", "0", {"news"}), first);
  attach(params("alice", "0", {"sport"}), second);
  EXPECT_EQ(publish(audience::channel, "news"), 0u);
  EXPECT_EQ(publish(audience::channel, "sport"), 1u);
  EXPECT_EQ(second.ids(), (ids{2}));
}

TEST_F(HubTest, SubscribeRefusesMoreThanTheChannelLimit) {
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

TEST_F(HubTest, UserMessagesReachEverySessionOfThatUser) {
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

TEST_F(HubTest, DeliverySelfDetachingSubscribersInABroadcast) {
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

TEST_F(HubTest, SelfDetachingSubscribersInChannelAndUserMessages) {
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

// ---- resume ---------------------------------------------------------------------------------

TEST_F(HubTest, ResumeReturnsTheSessionsBacklogInIdOrder) {
  publish();                            // 1 broadcast
  publish(audience::channel, "news");   // 2
  publish(audience::channel, "sport");  // 3
  publish(audience::user, "alice");     // 4
  publish(audience::user, "bob");       // 5
  publish();                            // 6
  publish(audience::channel, "news");   // 7
  publish(audience::user, "alic");      // 8: no prefix matching of users
  publish(audience::channel, "new");    // 9: nor of channels
  publish(audience::user, "alice2");    // 10

  fake_subscriber ws(transport::ws);
  auto r = attach(params("alice", "t1", {"news"}, 1), ws);
  EXPECT_FALSE(r.resumed);  // a new session may still resume by id
  EXPECT_FALSE(r.gap);
  EXPECT_EQ(r.last_id, 10u);
  EXPECT_EQ(ids_of(r.backlog), (ids{2, 4, 6, 7}));
  EXPECT_TRUE(ws.messages.empty());  // the backlog is returned, not delivered

  fake_subscriber from_zero(transport::sse);
  r = attach(params("bob", "t1", {"sport"}, 0), from_zero);
  EXPECT_EQ(ids_of(r.backlog), (ids{1, 3, 5, 6}));
  EXPECT_FALSE(r.gap);

  fake_subscriber up_to_date(transport::poll);
  r = attach(params("carol", "t1", {"news"}, 10), up_to_date);
  EXPECT_TRUE(r.backlog.empty());
  EXPECT_FALSE(r.gap);
}

TEST_F(HubTest, NoSinceMeansFromNow) {
  publish();
  publish();
  fake_subscriber ws(transport::ws);
  const auto r = attach(params("alice"), ws);
  EXPECT_TRUE(r.backlog.empty());
  EXPECT_FALSE(r.gap);
  EXPECT_EQ(r.last_id, 2u);
}

TEST_F(HubTest, ResumePastTheRetainedWindowIsAGap) {
  cfg.history = 3;
  for (int i = 0; i < 5; ++i)
    publish();  // 1..5; 3, 4 and 5 are retained

  fake_subscriber a(transport::ws);
  auto r = attach(params("alice", "0", {}, 1), a);
  EXPECT_TRUE(r.gap);
  EXPECT_EQ(ids_of(r.backlog), (ids{3, 4, 5}));

  fake_subscriber b(transport::ws);
  r = attach(params("bob", "0", {}, 2), b);
  EXPECT_FALSE(r.gap);
  EXPECT_EQ(ids_of(r.backlog), (ids{3, 4, 5}));
}

TEST_F(HubTest, ResumeFromTheFutureIsAGapWithNothing) {
  publish();
  publish();
  fake_subscriber ws(transport::ws);
  const auto r = attach(params("alice", "0", {}, 3), ws);
  EXPECT_TRUE(r.gap);
  EXPECT_TRUE(r.backlog.empty());
  EXPECT_EQ(r.last_id, 2u);
}

TEST_F(HubTest, FloorIdIsTheStartingLastId) {
  make_hub(500);
  fake_subscriber ws(transport::ws);
  auto r = attach(params("alice", "0", {}, 500), ws);
  EXPECT_EQ(r.last_id, 500u);
  EXPECT_FALSE(r.gap);
  fake_subscriber older(transport::ws);
  r = attach(params("bob", "0", {}, 400), older);
  EXPECT_TRUE(r.gap);
}

TEST_F(HubTest, HelloForDescribesTheAttach) {
  publish();
  publish();
  fake_subscriber first(transport::ws);
  const auto r1 = attach(params("alice", "tab1"), first);
  auto o = parse_object(the_hub().hello_for(r1));
  EXPECT_EQ(o.at("type"), "hello");
  EXPECT_EQ(o.at("session"), "alice/tab1");
  EXPECT_EQ(o.at("resumed"), false);
  EXPECT_EQ(o.at("last_id").to_number<std::uint64_t>(), 2u);
  EXPECT_EQ(o.at("gap"), false);
  EXPECT_EQ(o.at("heartbeat_s").to_number<std::uint64_t>(), 1u);
  EXPECT_EQ(o.at("idle_timeout_s").to_number<std::uint64_t>(), 3u);
  EXPECT_EQ(o.at("session_ttl_s").to_number<std::uint64_t>(), 5u);

  detach(r1, first);
  fake_subscriber second(transport::sse);
  const auto r2 = attach(params("alice", "tab1", {}, 9), second);
  o = parse_object(the_hub().hello_for(r2));
  EXPECT_EQ(o.at("resumed"), true);
  EXPECT_EQ(o.at("gap"), true);
  EXPECT_EQ(o.at("last_id").to_number<std::uint64_t>(), 2u);
}

// ---- kick -----------------------------------------------------------------------------------

TEST_F(HubTest, KickClosesTheUsersConnectionsAndDropsTheSessions) {
  fake_subscriber a1(transport::ws), a2(transport::sse), a3(transport::poll), a_gone(transport::ws),
      b(transport::ws);
  attach(params("alice", "1", {"news"}), a1);
  attach(params("alice", "2"), a2);
  attach(params("alice", "3"), a3);
  const auto rg = attach(params("alice", "4"), a_gone);
  detach(rg, a_gone);
  attach(params("bob", "1", {"news"}), b);
  ASSERT_EQ(the_hub().session_count(), 5u);

  EXPECT_EQ(the_hub().kick("alice", now), 3u);
  for (fake_subscriber* s : {&a1, &a2, &a3}) {
    ASSERT_EQ(s->endings.size(), 1u);
    EXPECT_EQ(s->last_ending(), ending::close_kicked);
    const auto o = parse_object(s->endings[0].json);
    EXPECT_EQ(o.at("type"), "close");
    EXPECT_EQ(o.at("reason"), "kicked");
  }
  EXPECT_FALSE(a_gone.ended());
  EXPECT_FALSE(b.ended());
  EXPECT_EQ(stats.kicked, 3u);
  EXPECT_EQ(the_hub().session_count(), 1u);
  EXPECT_EQ(the_hub().connected_count(), 1u);
  EXPECT_EQ(timers().wheel().size(), 1u);  // only bob's node is still armed
  EXPECT_EQ(stats.ws, 1u);
  EXPECT_EQ(stats.sse, 0u);
  EXPECT_EQ(stats.poll, 0u);

  // Nothing of alice's is reached any more; bob still is.
  EXPECT_EQ(publish(audience::user, "alice"), 0u);
  EXPECT_EQ(publish(audience::channel, "news"), 1u);
  EXPECT_EQ(publish(), 1u);

  // A later attach starts over.
  fake_subscriber again(transport::ws);
  const auto r = attach(params("alice", "1"), again);
  EXPECT_FALSE(r.resumed);
  EXPECT_EQ(stats.sessions_reused, 0u);

  // Timers of the dropped sessions never fire (they would touch freed sessions). The new alice/1
  // and bob are closed idle at 3 s and dropped at 8 s.
  advance_to(epoch + 4 * cfg.session_ttl);
  EXPECT_EQ(stats.session_ttl, 2u);
  EXPECT_EQ(stats.idle, 2u);
  EXPECT_EQ(the_hub().session_count(), 0u);
}

TEST_F(HubTest, KickOfAnUnknownUserDoesNothing) {
  fake_subscriber ws(transport::ws);
  attach(params("alice"), ws);
  EXPECT_EQ(the_hub().kick("bob", now), 0u);
  EXPECT_EQ(the_hub().kick("alic", now), 0u);
  EXPECT_FALSE(ws.ended());
  EXPECT_EQ(the_hub().session_count(), 1u);
}

TEST_F(HubTest, KickOfOnlyDetachedSessionsDropsThemAndCountsNone) {
  fake_subscriber ws(transport::ws);
  const auto r = attach(params("alice"), ws);
  detach(r, ws);
  EXPECT_EQ(the_hub().kick("alice", now), 0u);
  EXPECT_EQ(the_hub().session_count(), 0u);
  EXPECT_EQ(timers().wheel().size(), 0u);
}

// ---- drain ----------------------------------------------------------------------------------

TEST_F(HubTest, DrainAsksEveryConnectionToReconnectWithinTheWindow) {
  std::vector<std::unique_ptr<fake_subscriber>> conns;
  for (int i = 0; i < 60; ++i) {
    const transport kind = static_cast<transport>(i % 3);
    conns.push_back(std::make_unique<fake_subscriber>(kind));
    attach(params(fmt::format("u{}", i)), *conns.back());
  }
  fake_subscriber gone(transport::ws);
  const auto rg = attach(params("gone"), gone);
  detach(rg, gone);
  publish();

  the_hub().drain(now);
  std::set<std::uint32_t> retries;
  for (const auto& c : conns) {
    ASSERT_EQ(c->endings.size(), 1u);
    const ending_notice& n = c->endings[0];
    EXPECT_EQ(n.why, ending::reconnect_shutdown);
    EXPECT_LE(n.retry_ms, cfg.drain.count());
    retries.insert(n.retry_ms);
    const auto o = parse_object(n.json);
    EXPECT_EQ(o.at("type"), "reconnect");
    EXPECT_EQ(o.at("reason"), "shutdown");
    EXPECT_EQ(o.at("last_id").to_number<std::uint64_t>(), 1u);
  }
  EXPECT_GT(retries.size(), 10u);  // spread over the window
  EXPECT_FALSE(gone.ended());
  EXPECT_EQ(the_hub().connected_count(), 0u);
  EXPECT_EQ(stats.ws + stats.sse + stats.poll, 0u);
}

TEST_F(HubTest, DrainOfZeroTellsEveryoneAtOnce) {
  cfg.drain = 0ms;
  fake_subscriber a(transport::ws), b(transport::sse);
  attach(params("a"), a);
  attach(params("b"), b);
  the_hub().drain(now);
  ASSERT_TRUE(a.ended());
  ASSERT_TRUE(b.ended());
  EXPECT_EQ(a.endings[0].retry_ms, 0u);
  EXPECT_EQ(b.endings[0].retry_ms, 0u);
}

// ---- the loop's timer -----------------------------------------------------------------------

TEST_F(HubTest, AdvanceReturnsTheNextDueInstantAndEarlierArmsWakeTheLoop) {
  cfg.poll_timeout = 500ms;
  fake_subscriber sse(transport::sse);
  attach(params("alice"), sse);
  ASSERT_FALSE(wakes.empty());
  EXPECT_EQ(wakes.back(), epoch + cfg.heartbeat);
  EXPECT_EQ(timers().advance(now), epoch + cfg.heartbeat);

  // A poll attached now is due before that: the loop is told to wake earlier.
  wakes.clear();
  advance_to(epoch + 100ms);
  fake_subscriber poll(transport::poll);
  attach(params("bob"), poll);
  ASSERT_EQ(wakes.size(), 1u);
  EXPECT_EQ(wakes.back(), epoch + 600ms);

  // Something due at the same instant or later does not.
  wakes.clear();
  fake_subscriber same(transport::poll);
  attach(params("dave"), same);
  fake_subscriber late(transport::sse);
  attach(params("carol"), late);
  EXPECT_TRUE(wakes.empty());

  EXPECT_EQ(timers().advance(now), epoch + 600ms);
  advance_to(epoch + 600ms);
  EXPECT_TRUE(poll.ended());
  EXPECT_EQ(timers().advance(now), epoch + cfg.heartbeat);

  // Nothing armed: never.
  the_hub().kick("alice", now);
  the_hub().kick("bob", now);
  the_hub().kick("carol", now);
  the_hub().kick("dave", now);
  EXPECT_EQ(timers().advance(now), time_point::max());
}

}  // namespace
}  // namespace ringcast

namespace ringcast {
namespace {

// ---- a list of users, expiry, reach ------------------------------------------------------------

TEST_F(HubTest, AListOfUsersReachesEachListedUsersSessionsOnce) {
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

TEST_F(HubTest, AListOfUsersIsResumedOnlyByListedUsers) {
  publish(audience::users, "alice,bob");  // 1
  fake_subscriber alice(transport::ws), carol(transport::ws);
  EXPECT_EQ(ids_of(attach(params("alice", "0", {}, 0), alice).backlog), ids{1});
  EXPECT_TRUE(attach(params("carol", "0", {}, 0), carol).backlog.empty());
  EXPECT_TRUE(attach(params("ali", "0", {}, 0), carol).backlog.empty());  // no prefix matching
}

TEST_F(HubTest, AnExpiredMessageIsNotResumedAndLiveClientsAreTold) {
  fake_subscriber ws(transport::ws), other(transport::ws);
  attach(params("alice"), ws);
  attach(params("bob", "0", {"sport"}), other);
  const message_ptr sale =
      make_message(++last_id, 1'700'000'000'000, {audience::broadcast, ""}, "1", 1'700'000'002'000);
  EXPECT_NE(sale->json.find(R"("expires":1700000002000)"), std::string::npos);
  the_hub().publish(sale, now);
  const message_ptr news = make_message(++last_id, 1'700'000'000'000, {audience::channel, "news"},
                                        "2", 1'700'000'000'500);
  the_hub().publish(news, now);  // addressed to nobody live: no notice for it
  advance_to(epoch + 1990ms);
  EXPECT_FALSE(sale->expired);
  EXPECT_EQ(ws.ids(), ids{1});
  advance_to(epoch + 2010ms);  // never early, at most one tick late
  EXPECT_TRUE(sale->expired);
  EXPECT_TRUE(news->expired);
  ASSERT_EQ(ws.messages.size(), 2u);
  EXPECT_EQ(ws.messages[1]->json, R"({"type":"expired","id":1})");
  EXPECT_EQ(ws.messages[1]->sse_prefix, "event: expired\ndata: ");
  EXPECT_EQ(parse_object(ws.messages[1]->poll_body)["last_id"], 2);
  ASSERT_EQ(other.messages.size(), 2u);  // the broadcast's notice only
  EXPECT_EQ(stats.messages_expired, 2u);
  EXPECT_EQ(stats.expired_notices, 2u);

  // Resume and long-poll never return it; it is not a gap either.
  fake_subscriber later(transport::poll);
  const auto r = attach(params("carol", "0", {"news"}, 0), later);
  EXPECT_TRUE(r.backlog.empty());
  EXPECT_FALSE(r.gap);
  EXPECT_EQ(r.last_id, 2u);
}

// Only a session that was sent the message is told to take it down: one that came afterwards
// (without resuming) never showed it.
TEST_F(HubTest, AnExpiredNoticeGoesOnlyToSessionsThatWereSentTheMessage) {
  fake_subscriber before(transport::ws), after(transport::sse);
  attach(params("alice"), before);
  the_hub().publish(make_message(++last_id, 1'000, {audience::broadcast, ""}, "1", 3'000), now);
  attach(params("bob"), after);  // no `since`: starts from now
  advance_to(epoch + 2010ms);
  ASSERT_EQ(before.messages.size(), 2u);
  EXPECT_EQ(before.messages[1]->json, R"({"type":"expired","id":1})");
  EXPECT_TRUE(after.messages.empty());
  EXPECT_EQ(stats.expired_notices, 1u);
}

TEST_F(HubTest, ExpiryDuringAStalledLoopStillNotifiesOnce) {
  fake_subscriber ws(transport::ws);
  attach(params("alice"), ws);
  the_hub().publish(make_message(++last_id, 1'000, {audience::user, "alice"}, "1", 1'300), now);
  jump_to(epoch + 10s);
  ASSERT_EQ(ws.messages.size(), 2u);
  EXPECT_EQ(ws.messages[1]->json, R"({"type":"expired","id":1})");
  advance_by(1s);
  EXPECT_EQ(ws.messages.size(), 2u);
}

TEST_F(HubTest, ReachCountsRecipientsDeliveriesAndAcks) {
  fake_subscriber a(transport::ws), b(transport::ws);
  const auto ra = attach(params("alice"), a);
  attach(params("bob"), b);
  publish();  // 1
  const message_ptr m = the_hub().find(1);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->recipients, 2u);
  EXPECT_EQ(m->delivered, 2u);
  EXPECT_EQ(m->acked, 0u);
  the_hub().acknowledge(*ra.s, 1);
  the_hub().acknowledge(*ra.s, 1);  // a repeat counts once
  EXPECT_EQ(m->acked, 1u);
  EXPECT_EQ(stats.acked, 1u);
  fake_subscriber c(transport::poll);
  attach(params("carol", "0", {}, 0), c);  // resumed: delivered again, not a new recipient
  EXPECT_EQ(m->recipients, 2u);
  EXPECT_EQ(m->delivered, 3u);
  EXPECT_EQ(the_hub().find(2), nullptr);
  EXPECT_EQ(the_hub().find(0), nullptr);
}

// An ack counts only for a message sent to that session (docs/protocol.md, "WebSocket"): not one
// from before it started, to another user, to a channel it has not joined, or not yet published.
TEST_F(HubTest, WasSentOnlyWhatTheSessionWasHanded) {
  fake_subscriber a(transport::ws), b(transport::ws);
  publish();  // 1: before alice
  const auto ra = attach(params("alice", "0", {"news"}), a);
  attach(params("bob", "0", {"vip"}), b);
  publish(audience::user, "bob");      // 2
  publish(audience::channel, "vip");   // 3
  publish(audience::channel, "news");  // 4
  publish();                           // 5
  publish(audience::user, "alice");    // 6
  session& alice = *ra.s;
  const std::vector<bool> expected{false, false, false, true, true, true};
  for (std::uint64_t id = 1; id <= 6; ++id)
    EXPECT_EQ(the_hub().was_sent(alice, *the_hub().find(id)), expected[id - 1]) << id;

  for (std::uint64_t id : {1, 2, 3})
    the_hub().acknowledge(alice, id);
  for (std::uint64_t id = 1; id <= 3; ++id)
    EXPECT_EQ(the_hub().find(id)->acked, 0u) << id;
  EXPECT_EQ(stats.acks_refused, 3u);
  the_hub().acknowledge(alice, 6);
  EXPECT_EQ(the_hub().find(6)->acked, 1u);
  EXPECT_EQ(stats.acked, 1u);

  // A channel joined later: its messages from before the subscribe were never sent.
  publish(audience::channel, "deals");  // 7
  ASSERT_TRUE(the_hub().subscribe(alice, {"deals"}));
  publish(audience::channel, "deals");  // 8
  EXPECT_FALSE(the_hub().was_sent(alice, *the_hub().find(7)));
  EXPECT_TRUE(the_hub().was_sent(alice, *the_hub().find(8)));
}

TEST_F(HubTest, WasSentFollowsResumesAndFreshStarts) {
  fake_subscriber first(transport::ws);
  auto r = attach(params("alice"), first);
  publish();  // 1: sent
  detach(r, first);
  publish();  // 2, 3: while away
  publish();
  auto sent = [&](std::uint64_t id) { return the_hub().was_sent(*r.s, *the_hub().find(id)); };

  // Resuming from 1: 2 and 3 are sent on the resume.
  fake_subscriber resumed(transport::ws);
  r = attach(params("alice", "0", {}, 1), resumed);
  EXPECT_TRUE(sent(1));
  EXPECT_TRUE(sent(2));
  EXPECT_TRUE(sent(3));
  detach(r, resumed);
  publish();  // 4, 5: while away
  publish();

  // Back without `since`: 4 and 5 were never sent, and it starts afresh after them.
  fake_subscriber fresh(transport::ws);
  r = attach(params("alice"), fresh);
  EXPECT_FALSE(sent(4));
  EXPECT_FALSE(sent(5));
  publish();  // 6
  EXPECT_TRUE(sent(6));
  detach(r, fresh);
  publish();  // 7, 8
  publish();

  // A `since` beyond what it was sent (7 never was): only what the resume sends counts.
  fake_subscriber ahead(transport::ws);
  r = attach(params("alice", "0", {}, 7), ahead);
  EXPECT_FALSE(sent(7));
  EXPECT_TRUE(sent(8));
}

TEST_F(HubTest, FindForgetsWhatLeftHistory) {
  cfg.history = 2;
  publish();
  publish();
  publish();
  EXPECT_EQ(the_hub().find(1), nullptr);
  EXPECT_NE(the_hub().find(2), nullptr);
  EXPECT_NE(the_hub().find(3), nullptr);
}

TEST_F(HubTest, NewestIsTheTailOfHistoryNewestFirst) {
  cfg.history = 3;
  EXPECT_TRUE(the_hub().newest(5).empty());
  for (int i = 0; i < 4; ++i)
    publish();
  auto ids_of = [](const std::vector<message_ptr>& list) {
    std::vector<std::uint64_t> out;
    for (const auto& m : list)
      out.push_back(m->id);
    return out;
  };
  EXPECT_EQ(ids_of(the_hub().newest(2)), (std::vector<std::uint64_t>{4, 3}));
  EXPECT_EQ(ids_of(the_hub().newest(10)), (std::vector<std::uint64_t>{4, 3, 2}));  // 1 was evicted
}

}  // namespace
}  // namespace ringcast

namespace ringcast {
namespace {

TEST_F(HubTest, SeededHistoryKeepsTheTtlsOfAnotherNode) {
  const std::int64_t now_ms = 1'700'000'010'000;
  const auto gone = make_message(1, now_ms - 5'000, {}, "1", now_ms - 1);
  const auto going = make_message(2, now_ms - 5'000, {}, "2", now_ms + 500);
  const auto staying = make_message(3, now_ms - 5'000, {}, "3");
  the_hub().seed_history({gone, going, staying}, now, now_ms);
  EXPECT_TRUE(gone->expired);
  fake_subscriber ws(transport::ws);
  EXPECT_EQ(ids_of(attach(params("alice", "0", {}, 0), ws).backlog), (ids{2, 3}));
  advance_by(490ms);
  EXPECT_FALSE(going->expired);
  advance_by(30ms);
  EXPECT_TRUE(going->expired);
  ASSERT_EQ(ws.messages.size(), 1u);  // the notice (the backlog is the connection's to send)
  EXPECT_EQ(ws.messages[0]->json, R"({"type":"expired","id":2})");
  fake_subscriber later(transport::ws);
  EXPECT_EQ(ids_of(attach(params("bob", "0", {}, 0), later).backlog), ids{3});
}

}  // namespace
}  // namespace ringcast
