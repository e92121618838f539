// The session table: alone (its one count of live connections, displacement), then through the
// hub, its bounds on sessions (--max-sessions, --max-sessions-per-user) and on a long-poll's
// resumed batch (--max-poll-batch, max_poll_reply_bytes), on a simulated clock.
#include <algorithm>
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>

#include "hub_fixture.hpp"
#include "parts_fixture.hpp"

namespace ringcast {
namespace {

using namespace std::chrono_literals;
using time_point = hub::time_point;

// ---- the table alone --------------------------------------------------------------------------

class SessionTableAlone : public test::parts_fixture {
 protected:
  std::vector<std::string> live_users() {
    std::vector<std::string> out;
    parts().audience.for_each_live_addressee(*make(), [&](session& s) { out.push_back(s.user()); });
    std::sort(out.begin(), out.end());
    return out;
  }
};

// Gaining and losing a connection is one step of the table, whoever takes it (attach, adopt, a
// detach, an ending): counted by transport, in the live index a broadcast walks, and back.
TEST_F(SessionTableAlone, ALiveConnectionIsCountedOnceByItsTransportAndInTheLiveIndex) {
  test::recording_connection ws(transport::ws), sse(transport::sse), poll(transport::poll);
  live("alice", "1", ws);
  session& bob = live("bob", "1", sse);
  session& carol = live("carol", "1", poll);
  EXPECT_EQ(stats.ws, 1u);
  EXPECT_EQ(stats.sse, 1u);
  EXPECT_EQ(stats.poll, 1u);
  EXPECT_EQ(parts().audience.live_count(), 3u);
  EXPECT_EQ(live_users(), (std::vector<std::string>{"alice", "bob", "carol"}));

  table().detach_now(bob, now);
  EXPECT_EQ(stats.sse, 0u);
  table().end_connection(carol, ending::reconnect_timeout, now);
  EXPECT_EQ(stats.poll, 0u);
  EXPECT_EQ(poll.endings, (std::vector<ending>{ending::reconnect_timeout}));
  EXPECT_EQ(stats.ws, 1u);
  EXPECT_EQ(parts().audience.live_count(), 1u);
  EXPECT_EQ(live_users(), (std::vector<std::string>{"alice"}));
  EXPECT_EQ(table().size(), 3u);  // the sessions stay for their TTL

  test::recording_connection again(transport::sse);
  table().go_live(bob, again);
  EXPECT_EQ(stats.sse, 1u);
  EXPECT_EQ(live_users(), (std::vector<std::string>{"alice", "bob"}));
}

TEST_F(SessionTableAlone, AFullTableDropsTheSessionIdleLongestOfAnyUser) {
  cfg.max_sessions = 3;
  test::recording_connection a(transport::ws), b(transport::ws), c(transport::ws);
  session& first = live("u1", "1", a);
  session& second = live("u2", "1", b);
  live("u3", "1", c);
  EXPECT_EQ(table().make_room("u4", "1"), session_table::room::over_total);  // all live
  table().detach_now(second, now);
  table().detach_now(first, now);
  EXPECT_EQ(table().make_room("u4", "1"), session_table::room::ok);
  EXPECT_EQ(table().find("u2", "1"), nullptr);  // idle longest
  EXPECT_NE(table().find("u1", "1"), nullptr);
  EXPECT_EQ(stats.displaced, 1u);
  EXPECT_EQ(stats.sessions_refused_total, 1u);
}

// ---- through the hub -------------------------------------------------------------------------

class recording_subscriber final : public subscriber {
 public:
  explicit recording_subscriber(transport kind) : kind_(kind) {}
  transport kind() const override { return kind_; }
  void deliver(const message_ptr&) override {}
  void heartbeat() override {}
  void end(const ending_notice&) override { ended = true; }
  bool ended = false;

 private:
  transport kind_;
};

client_params params(std::string user, std::string sid,
                     std::optional<std::uint64_t> since = std::nullopt) {
  client_params p;
  p.user = std::move(user);
  p.sid = std::move(sid);
  p.since = since;
  return p;
}

class SessionTableTest : public test::hub_fixture {
 protected:
  SessionTableTest() {
    cfg.tick = 10ms;
    cfg.session_ttl = 5s;
    cfg.poll_timeout = 2s;
    cfg.max_sessions_per_user = 3;
    cfg.max_sessions = 10;
  }
  // A connect as client_start makes it: room first, then the attach.
  hub::room connect(const client_params& p, recording_subscriber& conn) {
    const auto room = the_hub().make_room(p.user, p.sid);
    if (room == hub::room::ok) last = the_hub().attach(p, conn, now);
    return room;
  }
  // A long-poll answered at once: attached, then detached (the session stays for its TTL).
  hub::room poll_once(const client_params& p) {
    recording_subscriber poll(transport::poll);
    const auto room = connect(p, poll);
    if (room == hub::room::ok) the_hub().detach(*last.s, poll, now);
    return room;
  }

  hub::attach_result last;
};

// Another event loop's hub, sharing a node budget of `max` sessions with the fixture's.
class SessionTableTwoLoops : public SessionTableTest {
 protected:
  void SetUp() override {
    other_hub = std::make_unique<hub>(cfg, other_timers, other_stats, 0);
    the_hub().share_budget(shared);
    other_hub->share_budget(shared);
  }
  void TearDown() override { other_hub.reset(); }

  session_budget shared{2};
  loop_timers other_timers{clock, epoch, cfg.tick, cfg.wheel_slots};
  loop_stats other_stats;
  std::unique_ptr<hub> other_hub;
};

TEST_F(SessionTableTest, ANewSessionOfAFullUserDropsTheOldestIdleOne) {
  for (const char* sid : {"a", "b", "c"})
    ASSERT_EQ(poll_once(params("u", sid)), hub::room::ok);
  EXPECT_EQ(the_hub().session_count(), 3u);
  now += 1s;
  ASSERT_EQ(poll_once(params("u", "b")), hub::room::ok);  // b is now the newest idle one
  ASSERT_EQ(poll_once(params("u", "d")), hub::room::ok);
  EXPECT_EQ(the_hub().session_count(), 3u);
  EXPECT_EQ(stats.displaced, 1u);
  // a went (idle longest); b, c, d stay: b resumes, a starts afresh (and displaces c).
  recording_subscriber ws(transport::ws);
  ASSERT_EQ(connect(params("u", "b"), ws), hub::room::ok);
  EXPECT_TRUE(last.resumed);
  recording_subscriber ws2(transport::ws);
  ASSERT_EQ(connect(params("u", "a"), ws2), hub::room::ok);
  EXPECT_FALSE(last.resumed);
  EXPECT_EQ(stats.displaced, 2u);
  EXPECT_EQ(the_hub().session_count(), 3u);
  // Another user is not affected.
  EXPECT_EQ(poll_once(params("v", "a")), hub::room::ok);
  EXPECT_EQ(the_hub().session_count(), 4u);
}

TEST_F(SessionTableTest, AUserWhoseSessionsAreAllLiveIsRefused) {
  recording_subscriber a(transport::ws), b(transport::sse), c(transport::poll), d(transport::ws);
  ASSERT_EQ(connect(params("u", "a"), a), hub::room::ok);
  ASSERT_EQ(connect(params("u", "b"), b), hub::room::ok);
  ASSERT_EQ(connect(params("u", "c"), c), hub::room::ok);
  EXPECT_EQ(connect(params("u", "d"), d), hub::room::over_user);
  EXPECT_EQ(stats.sessions_refused_user, 1u);
  EXPECT_FALSE(a.ended);
  EXPECT_FALSE(c.ended);
  // An existing session is never refused: this replaces a's connection.
  recording_subscriber a2(transport::ws);
  EXPECT_EQ(connect(params("u", "a"), a2), hub::room::ok);
  EXPECT_TRUE(a.ended);
  // Once one is idle, the new session takes its place.
  the_hub().detach(*last.s, a2, now);
  EXPECT_EQ(connect(params("u", "d"), d), hub::room::ok);
  EXPECT_EQ(the_hub().session_count(), 3u);
}

// Issue 35: one client polling under many user names filled the table, and every newcomer was
// refused for --session-ttl although nearly every session in it was idle.
TEST_F(SessionTableTest, AFullTableDisplacesTheLongestIdleSessionOfAnyUser) {
  for (int i = 0; i < 10; ++i) {
    ASSERT_EQ(poll_once(params("user" + std::to_string(i), "0")), hub::room::ok);
    now += 10ms;
  }
  ASSERT_EQ(poll_once(params("user0", "0")), hub::room::ok);  // existing: resumes, newest idle
  EXPECT_TRUE(last.resumed);
  EXPECT_EQ(poll_once(params("late", "0")), hub::room::ok);
  EXPECT_EQ(stats.sessions_refused_total, 0u);
  EXPECT_EQ(stats.displaced, 1u);
  EXPECT_EQ(the_hub().session_count(), 10u);
  // user1 went (idle longest): it starts afresh, displacing user2; user0 still resumes.
  EXPECT_EQ(poll_once(params("user1", "0")), hub::room::ok);
  EXPECT_FALSE(last.resumed);
  EXPECT_EQ(poll_once(params("user0", "0")), hub::room::ok);
  EXPECT_TRUE(last.resumed);
  EXPECT_EQ(poll_once(params("user3", "0")), hub::room::ok);
  EXPECT_TRUE(last.resumed);
  EXPECT_EQ(poll_once(params("user2", "0")), hub::room::ok);
  EXPECT_FALSE(last.resumed);
  EXPECT_EQ(stats.displaced, 3u);  // user1, user2, then user4 went
  EXPECT_EQ(the_hub().session_count(), 10u);
  now += cfg.session_ttl + cfg.tick;
  run_timers();  // every session's TTL ran out; each was counted out once
  EXPECT_EQ(the_hub().session_count(), 0u);
}

// The 503 comes only when no session of the loop can make way: every one has a connection.
TEST_F(SessionTableTest, OnlyATableOfLiveSessionsRefusesANewcomer) {
  std::vector<std::unique_ptr<recording_subscriber>> conns;
  std::vector<session*> sessions;
  for (int i = 0; i < 10; ++i) {
    conns.push_back(
        std::make_unique<recording_subscriber>(i % 2 ? transport::ws : transport::poll));
    ASSERT_EQ(connect(params("user" + std::to_string(i), "0"), *conns.back()), hub::room::ok);
    sessions.push_back(last.s);
  }
  EXPECT_EQ(poll_once(params("late", "0")), hub::room::over_total);
  EXPECT_EQ(stats.sessions_refused_total, 1u);
  EXPECT_EQ(stats.displaced, 0u);
  // One loses its connection: it makes way, and the others keep theirs.
  the_hub().detach(*sessions[4], *conns[4], now);
  EXPECT_EQ(poll_once(params("late", "0")), hub::room::ok);
  EXPECT_EQ(stats.displaced, 1u);
  for (int i = 0; i < 10; ++i)
    EXPECT_FALSE(conns[static_cast<std::size_t>(i)]->ended) << i;
  EXPECT_EQ(the_hub().session_count(), 10u);
}

// A client that polls once (answered at once) and never comes back holds its session for
// --first-poll-ttl; one that came back, or whose poll was held, or a stream, for --session-ttl.
TEST_F(SessionTableTest, APollAnsweredAtOnceThatNeverCameBackLivesTheFirstPollTtl) {
  cfg.first_poll_ttl = 1s;
  ASSERT_EQ(poll_once(params("once", "0")), hub::room::ok);
  ASSERT_EQ(poll_once(params("twice", "0")), hub::room::ok);
  ASSERT_EQ(poll_once(params("twice", "0")), hub::room::ok);  // came back
  recording_subscriber held(transport::poll), ws(transport::ws);
  ASSERT_EQ(connect(params("held", "0"), held), hub::room::ok);
  session* held_session = last.s;
  ASSERT_EQ(connect(params("stream", "0"), ws), hub::room::ok);
  the_hub().detach(*last.s, ws, now);  // a stream that closed at once
  advance_by(500ms);
  the_hub().detach(*held_session, held, now);  // answered after waiting
  EXPECT_EQ(the_hub().session_count(), 4u);
  advance_by(cfg.first_poll_ttl + cfg.tick);
  EXPECT_EQ(the_hub().session_count(), 3u);  // `once` went
  EXPECT_EQ(stats.session_ttl, 1u);
  EXPECT_EQ(poll_once(params("twice", "0")), hub::room::ok);
  EXPECT_TRUE(last.resumed);
  advance_by(cfg.session_ttl + cfg.tick);
  EXPECT_EQ(the_hub().session_count(), 0u);
  EXPECT_EQ(stats.session_ttl, 4u);
}

TEST_F(SessionTableTwoLoops, TheBudgetIsSharedByTheLoopsOfANode) {
  hub& other = *other_hub;
  recording_subscriber a(transport::ws), p(transport::poll);
  ASSERT_EQ(connect(params("a", "0"), a), hub::room::ok);
  ASSERT_EQ(other.make_room("b", "0"), hub::room::ok);
  other.attach(params("b", "0"), p, now);
  EXPECT_EQ(shared.held(), 2u);
  EXPECT_EQ(poll_once(params("c", "0")), hub::room::over_total);
  other.kick("b", now);
  EXPECT_EQ(shared.held(), 1u);
  EXPECT_EQ(poll_once(params("c", "0")), hub::room::ok);
  // Full again, with c idle here: c makes way for d.
  EXPECT_EQ(poll_once(params("d", "0")), hub::room::ok);
  EXPECT_EQ(shared.held(), 2u);
  EXPECT_EQ(stats.displaced, 1u);
}

// Issue 35: a loop whose sessions are all live while another holds idle ones, at --max-sessions,
// has that other loop drop its longest-idle session, and admits the newcomer.
TEST_F(SessionTableTwoLoops, AFullLoopWhoseSessionsAreAllLiveHasAnotherLoopDisplaceOne) {
  hub& other = *other_hub;
  int asked = 0;
  the_hub().displace_elsewhere_with([&] {
    ++asked;
    other.displace_longest_idle();  // the node posts this to the other loop
  });
  recording_subscriber a(transport::ws), b(transport::poll);
  ASSERT_EQ(connect(params("a", "0"), a), hub::room::ok);
  ASSERT_EQ(other.make_room("b", "0"), hub::room::ok);
  const auto rb = other.attach(params("b", "0"), b, now);
  EXPECT_EQ(poll_once(params("c", "0")), hub::room::over_total);  // every session is live
  EXPECT_EQ(asked, 0);
  other.detach(*rb.s, b, now);
  EXPECT_EQ(poll_once(params("c", "0")), hub::room::ok);
  EXPECT_EQ(asked, 1);
  EXPECT_EQ(other_stats.displaced, 1u);
  EXPECT_EQ(other.session_count(), 0u);
  EXPECT_EQ(shared.held(), 2u);
  EXPECT_FALSE(a.ended);
}

// With a high limit, 100,000 sessions of one user are created and every one expires at its TTL.
// What it costs (linear in their number) is measured by bench/session_bench.cpp.
TEST_F(SessionTableTest, OneUsersManySessionsAllExpire) {
  cfg.max_sessions_per_user = 1'000'000;
  cfg.max_sessions = 1'000'000;
  constexpr int n = 100'000;
  for (int i = 0; i < n; ++i)
    ASSERT_EQ(poll_once(params("u", std::to_string(i))), hub::room::ok);
  EXPECT_EQ(the_hub().session_count(), static_cast<std::size_t>(n));
  now += cfg.session_ttl + cfg.tick;
  run_timers();
  EXPECT_EQ(the_hub().session_count(), 0u);
  EXPECT_EQ(stats.session_ttl, static_cast<std::uint64_t>(n));
}

// ---- a long-poll's resumed batch --------------------------------------------------------------

class PollBatch : public SessionTableTest {
 protected:
  void publish(std::size_t count, std::size_t data_bytes) {
    const std::string data = '"' + std::string(data_bytes, 'x') + '"';
    for (std::size_t i = 0; i < count; ++i)
      the_hub().publish(make_message(++last_id, 1'700'000'000'000, {}, data), now);
  }
  hub::attach_result poll(std::uint64_t since) {
    recording_subscriber p(transport::poll);
    auto r = the_hub().attach(params("u", "0", since), p, now);
    the_hub().detach(*r.s, p, now);
    return r;
  }
  std::uint64_t last_id = 0;
};

TEST_F(PollBatch, AtMostMaxPollBatchMessagesAndMoreSaysTheRestIsOwed) {
  cfg.max_poll_batch = 4;
  publish(10, 10);
  std::vector<std::uint64_t> got;
  std::uint64_t since = 0;
  int polls = 0;
  for (bool more = true; more; ++polls) {
    const auto r = poll(since);
    EXPECT_LE(r.backlog.size(), 4u);
    for (const auto& m : r.backlog)
      got.push_back(m->id);
    more = r.more;
    EXPECT_FALSE(r.gap);
    since = r.last_id;
  }
  EXPECT_EQ(polls, 3);
  // Nothing lost, nothing repeated.
  EXPECT_EQ(got, (std::vector<std::uint64_t>{1, 2, 3, 4, 5, 6, 7, 8, 9, 10}));
  EXPECT_EQ(since, 10u);
  // A WebSocket resume is not cut.
  recording_subscriber ws(transport::ws);
  EXPECT_EQ(the_hub().attach(params("w", "0", 0), ws, now).backlog.size(), 10u);
}

TEST_F(PollBatch, StopsAddingOnceTheBodyPassedOneMebibyte) {
  publish(40, 60 * 1024);  // 40 x 60 KB: about 2.4 MB
  const auto r = poll(0);
  ASSERT_TRUE(r.more);
  std::size_t bytes = 0;
  for (const auto& m : r.backlog)
    bytes += m->json.size() + 1;
  const std::size_t one = r.backlog.front()->json.size() + 1;
  EXPECT_GT(bytes, max_poll_reply_bytes);
  EXPECT_LE(bytes, max_poll_reply_bytes + one);
  EXPECT_EQ(r.last_id, r.backlog.back()->id);
  // delivered counts only what the reply carries
  EXPECT_EQ(the_hub().find(r.last_id + 1)->delivered.load(), 0u);
  EXPECT_EQ(the_hub().find(r.last_id)->delivered.load(), 1u);
}

}  // namespace
}  // namespace ringcast
