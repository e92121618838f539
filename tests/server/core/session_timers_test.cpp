// The session table's timers and endings through the hub, on a simulated clock: the TTL of a
// session without a connection, heartbeat, idle, poll timeout, max connection age, kick and
// drain, and how the loop's timer is asked to wake.
#include "hub_test_support.hpp"

namespace ringcast {
namespace {

class SessionTimers : public hub_test_base {};

// ---- session TTL ------------------------------------------------------------------------------

TEST_F(SessionTimers, DetachedSessionIsDroppedWhenTheTtlPassesNotBefore) {
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

TEST_F(SessionTimers, TtlOffTheTickGridFiresAtTheNextTickAtTheLatest) {
  fake_subscriber sse(transport::sse);
  const auto r = attach(params("alice"), sse);
  advance_by(1003ms);
  const time_point detached_at = now;
  detach(r, sse);
  const time_point gone = advance_until([&] { return the_hub().session_count() == 0; }, now + 10s);
  EXPECT_GE(gone, detached_at + cfg.session_ttl);
  EXPECT_LE(gone, detached_at + cfg.session_ttl + cfg.tick);
}

TEST_F(SessionTimers, ReconnectBeforeTheTtlKeepsTheSession) {
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

TEST_F(SessionTimers, WebSocketHeartbeatAfterTheIntervalWithoutTraffic) {
  fake_subscriber ws(transport::ws);
  attach(params("alice"), ws);
  const time_point first = advance_until([&] { return ws.heartbeats > 0; }, now + 5s);
  EXPECT_EQ(first, epoch + cfg.heartbeat);
  const time_point second = advance_until([&] { return ws.heartbeats > 1; }, now + 5s);
  EXPECT_EQ(second, epoch + 2 * cfg.heartbeat);
  EXPECT_FALSE(ws.ended());
}

TEST_F(SessionTimers, DeliveryPostponesTheHeartbeat) {
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

TEST_F(SessionTimers, WebSocketIsClosedIdleWithoutActivity) {
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

TEST_F(SessionTimers, ActivityPostponesIdleWithALazyMove) {
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

TEST_F(SessionTimers, RegularActivityKeepsAWebSocketOpen) {
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

TEST_F(SessionTimers, SseGetsHeartbeatsButIsNeverIdleClosed) {
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

TEST_F(SessionTimers, HeartbeatsCatchUpOnceAfterALongStall) {
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

TEST_F(SessionTimers, HeldPollIsAnsweredReconnectTimeout) {
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

TEST_F(SessionTimers, PollingAgainFindsTheSessionAndRestartsThePollTimeout) {
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

TEST_F(SessionTimers, MaxConnectionAgeAsksForAJitteredReconnect) {
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

TEST_F(SessionTimers, NoMaxConnectionAgeByDefault) {
  fake_subscriber sse(transport::sse);
  attach(params("alice"), sse);
  advance_to(epoch + 10min);
  EXPECT_FALSE(sse.ended());
  EXPECT_EQ(stats.max_age, 0u);
}

// ---- kick -----------------------------------------------------------------------------------

TEST_F(SessionTimers, KickClosesTheUsersConnectionsAndDropsTheSessions) {
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

TEST_F(SessionTimers, KickOfAnUnknownUserDoesNothing) {
  fake_subscriber ws(transport::ws);
  attach(params("alice"), ws);
  EXPECT_EQ(the_hub().kick("bob", now), 0u);
  EXPECT_EQ(the_hub().kick("alic", now), 0u);
  EXPECT_FALSE(ws.ended());
  EXPECT_EQ(the_hub().session_count(), 1u);
}

TEST_F(SessionTimers, KickOfOnlyDetachedSessionsDropsThemAndCountsNone) {
  fake_subscriber ws(transport::ws);
  const auto r = attach(params("alice"), ws);
  detach(r, ws);
  EXPECT_EQ(the_hub().kick("alice", now), 0u);
  EXPECT_EQ(the_hub().session_count(), 0u);
  EXPECT_EQ(timers().wheel().size(), 0u);
}

// ---- drain ----------------------------------------------------------------------------------

TEST_F(SessionTimers, DrainAsksEveryConnectionToReconnectWithinTheWindow) {
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

TEST_F(SessionTimers, DrainOfZeroTellsEveryoneAtOnce) {
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

TEST_F(SessionTimers, AdvanceReturnsTheNextDueInstantAndEarlierArmsWakeTheLoop) {
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
