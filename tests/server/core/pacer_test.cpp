// The pacer alone, then paced publish through the hub, on a simulated clock (docs/protocol.md,
// "Paced publish"): every live session gets the message at its turn, never before and at most one
// tick after; a session that reconnects keeps its turn; one that was away gets what it is owed
// exactly once.
#include <chrono>
#include <functional>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "hub_fixture.hpp"
#include "parts_fixture.hpp"

namespace ringcast {
namespace {

using namespace std::chrono_literals;
using time_point = hub::time_point;

// ---- the pacer alone ---------------------------------------------------------------------------

class PacerAlone : public test::parts_fixture {
 protected:
  PacerAlone() {
    cfg.tick = 10ms;
    cfg.session_ttl = 1h;
  }
};

// Each live session on the ring gets a paced message at its turn (never before, at most a tick
// after); one that lost its connection before its turn is not sent it, and is owed it on resume.
TEST_F(PacerAlone, EachLiveSessionAtItsTurnAndOneAwayIsOwedIt) {
  constexpr auto spread = 2s;
  test::recording_connection a, b;
  const session& alice = live("alice", "1", a);
  session& bob = live("bob", "1", b);
  const auto m = make({.spread = spread});
  parts().store.keep(m, now);
  parts().pacing.publish(m, now);
  const time_point published = now;
  const time_point alice_due =
      published + pacing::offset_of(pacing::place_of("alice/1"), m->id, spread);
  table().detach_now(bob, now);
  time_point alice_got = time_point::max();
  while (now < published + spread + cfg.tick) {
    advance_by(cfg.tick);
    if (!a.got.empty() && alice_got == time_point::max()) alice_got = now;
  }
  EXPECT_EQ(a.got, (std::vector<std::uint64_t>{m->id}));
  EXPECT_GE(alice_got, alice_due);
  EXPECT_LT(alice_got, alice_due + cfg.tick);
  EXPECT_TRUE(parts().pacing.turn_came(alice, *m));
  EXPECT_TRUE(b.got.empty());
  EXPECT_EQ(stats.paced_delivered, 1u);
  EXPECT_EQ(parts().pacing.in_flight(), 0u);

  const history& h = parts().store.messages();
  const auto owed = parts().pacing.resume_backlog(bob, 0, h.after(0), false, h);
  ASSERT_EQ(owed.size(), 1u);
  EXPECT_EQ(owed[0]->id, m->id);
}

// ---- through the hub ---------------------------------------------------------------------------

// Records what it is given and when; a long-poll detaches on its first reply, as the real one.
class recording_subscriber final : public subscriber {
 public:
  recording_subscriber(transport kind, const time_point& clock) : kind_(kind), clock_(clock) {}
  transport kind() const override { return kind_; }
  void deliver(const message_ptr& m) override { deliver_many(std::span(&m, 1)); }
  void deliver_many(std::span<const message_ptr> messages) override {
    for (const auto& m : messages)
      received.push_back({m->id, clock_});
    ++replies;
    if (kind_ == transport::poll && on_poll_reply) on_poll_reply();
  }
  void heartbeat() override {}
  void end(const ending_notice&) override { ended = true; }

  struct receipt {
    std::uint64_t id;
    time_point at;
  };
  std::vector<std::uint64_t> ids() const {
    std::vector<std::uint64_t> out;
    for (const auto& r : received)
      out.push_back(r.id);
    return out;
  }
  std::vector<receipt> received;
  int replies = 0;
  bool ended = false;
  std::function<void()> on_poll_reply;

 private:
  transport kind_;
  const time_point& clock_;
};

client_params params(std::string user, std::optional<std::uint64_t> since = std::nullopt) {
  client_params p;
  p.user = std::move(user);
  p.sid = "0";
  p.since = since;
  return p;
}

class PacerTest : public test::hub_fixture {
 protected:
  PacerTest() {
    cfg.tick = 10ms;
    cfg.heartbeat = 1h;
    cfg.idle_timeout = 1h;
    cfg.session_ttl = 1h;
    cfg.poll_timeout = 1h;
    make_hub();
    h = &the_hub();
  }

  message_ptr make(std::chrono::milliseconds spread) {
    const std::uint64_t id = ++last_id;
    return make_message(id, 1'700'000'000'000, {}, std::to_string(id), 0, spread);
  }
  std::uint64_t publish(std::chrono::milliseconds spread = 0ms) {
    auto m = make(spread);
    h->publish(m, now);
    return m->id;
  }
  time_point due(const std::string& user, std::uint64_t id, std::chrono::milliseconds spread,
                 time_point published) const {
    return published + pacing::offset_of(pacing::place_of(user + "/0"), id, spread);
  }
  // Attaches `conn` and hands it the backlog, as a connection does.
  hub::attach_result attach(const client_params& p, recording_subscriber& conn) {
    auto r = h->attach(p, conn, now);
    for (const auto& m : r.backlog)
      conn.received.push_back({m->id, now});
    return r;
  }

  std::uint64_t last_id = 0;
  hub* h = nullptr;
};

TEST_F(PacerTest, EverySessionAtItsTurnNeverBeforeAtMostOneTickAfter) {
  constexpr int n = 2000;
  std::vector<std::unique_ptr<recording_subscriber>> conns;
  for (int i = 0; i < n; ++i) {
    conns.push_back(std::make_unique<recording_subscriber>(transport::ws, now));
    attach(params(fmt::format("u{}", i)), *conns.back());
  }
  const time_point published = now;
  auto m = make(5s);
  EXPECT_EQ(h->publish(m, now), static_cast<std::size_t>(n));  // recipients: live now
  EXPECT_EQ(h->paced_in_flight(), 1u);
  advance_to(published + 5s + cfg.tick);
  EXPECT_EQ(h->paced_in_flight(), 0u);
  for (int i = 0; i < n; ++i) {
    const auto& got = conns[i]->received;
    ASSERT_EQ(got.size(), 1u) << i;
    const time_point turn = due(fmt::format("u{}", i), m->id, 5s, published);
    EXPECT_GE(got[0].at, turn) << i;
    EXPECT_LE(got[0].at, turn + cfg.tick) << i;
  }
  EXPECT_EQ(stats.paced_delivered, static_cast<std::uint64_t>(n));
}

TEST_F(PacerTest, AReconnectBeforeItsTurnKeepsTheTurn) {
  recording_subscriber first(transport::ws, now), second(transport::sse, now);
  auto r = attach(params("alice"), first);
  const time_point published = now;
  const auto id = publish(10s);
  const time_point turn = due("alice", id, 10s, published);
  ASSERT_GT(turn, published + 20ms) << "pick another user: this one's turn is at once";
  advance_to(published + (turn - published) / 2);
  h->detach(*r.s, first, now);
  attach(params("alice", id), second);  // resumes from the paced id itself: nothing earlier owed
  advance_to(published + 10s + cfg.tick);
  EXPECT_TRUE(first.received.empty());
  ASSERT_EQ(second.received.size(), 1u);
  EXPECT_GE(second.received[0].at, turn);
  EXPECT_LE(second.received[0].at, turn + cfg.tick);
}

TEST_F(PacerTest, AResumeBeforeTheTurnDoesNotGetItEarly) {
  recording_subscriber first(transport::ws, now), second(transport::ws, now);
  auto r = attach(params("carol"), first);
  const std::uint64_t before = h->newest_id();
  const time_point published = now;
  const auto id = publish(10s);
  const time_point turn = due("carol", id, 10s, published);
  h->detach(*r.s, first, now);
  // `since` below the paced id: history has it, but its turn has not come.
  attach(params("carol", before), second);
  EXPECT_TRUE(second.received.empty());
  advance_to(published + 10s + cfg.tick);
  ASSERT_EQ(second.ids(), std::vector<std::uint64_t>{id});
  EXPECT_GE(second.received[0].at, turn);
}

// Away before its turn while a later message arrives; it resumes from that later (higher) id
// after its turn: the paced message is owed, and comes once.
TEST_F(PacerTest, AwayDuringItsTurnGetsItOnResumeExactlyOnce) {
  for (const transport kind : {transport::ws, transport::sse, transport::poll}) {
    const std::string user = "dave" + std::string(name_of(kind));
    recording_subscriber first(kind, now), second(kind, now), third(kind, now);
    auto r = attach(params(user), first);
    const time_point published = now;
    const auto paced = publish(4s);
    const time_point turn = due(user, paced, 4s, published);
    h->detach(*r.s, first, now);
    ASSERT_GT(turn, now) << "pick another user: this one's turn is at once";
    r = attach(params(user, paced - 1), second);
    const auto later = publish();  // immediate, higher id
    ASSERT_EQ(second.ids(), std::vector<std::uint64_t>{later});
    h->detach(*r.s, second, now);
    advance_to(published + 4s + cfg.tick);
    r = attach(params(user, later), third);
    EXPECT_EQ(third.ids(), std::vector<std::uint64_t>{paced}) << name_of(kind);
    advance_to(now + 5s);
    EXPECT_EQ(third.ids(), std::vector<std::uint64_t>{paced}) << name_of(kind);
    EXPECT_TRUE(first.ids().empty());
    h->detach(*r.s, third, now);
  }
}

TEST_F(PacerTest, LiveThroughItsTurnIsNotSentItAgainOnResume) {
  recording_subscriber first(transport::ws, now), second(transport::ws, now);
  auto r = attach(params("erin"), first);
  const auto paced = publish(3s);
  advance_to(now + 3s + cfg.tick);
  ASSERT_EQ(first.ids(), std::vector<std::uint64_t>{paced});
  const auto later = publish();
  h->detach(*r.s, first, now);
  advance_to(now + 1s);
  attach(params("erin", later), second);
  EXPECT_TRUE(second.received.empty());
}

// A long-poll that comes back between replies during the window gets every paced message once,
// several turns of one tick in one reply.
TEST_F(PacerTest, LongPollCyclingThroughTheWindowGetsEachOnce) {
  std::vector<std::uint64_t> paced;
  recording_subscriber* current = nullptr;
  std::vector<std::unique_ptr<recording_subscriber>> polls;
  std::uint64_t since = h->newest_id();
  std::function<void()> repoll = [&] {
    auto p = std::make_unique<recording_subscriber>(transport::poll, now);
    current = p.get();
    polls.push_back(std::move(p));
    auto r = attach(params("frank", since), *current);
    current->on_poll_reply = [&, s = r.s, c = current] {
      h->detach(*s, *c, now);
      for (const auto& got : c->received)
        since = std::max(since, got.id);
    };
    if (!r.backlog.empty()) current->on_poll_reply();
  };
  repoll();
  for (int i = 0; i < 20; ++i)
    paced.push_back(publish(2s));
  const time_point end = now + 2s + cfg.tick;
  while (now < end) {
    advance_to(now + 30ms);
    if (current->replies > 0 || !current->received.empty()) repoll();
  }
  std::vector<std::uint64_t> got;
  for (const auto& p : polls)
    for (const auto id : p->ids())
      got.push_back(id);
  std::sort(got.begin(), got.end());
  EXPECT_EQ(got, paced);
}

TEST_F(PacerTest, ANewSessionWithoutSinceIsNotSentEarlierPacedMessages) {
  recording_subscriber old_client(transport::ws, now), newcomer(transport::ws, now);
  attach(params("grace"), old_client);
  publish(2s);
  attach(params("heidi"), newcomer);
  advance_to(now + 2s + cfg.tick);
  EXPECT_EQ(old_client.received.size(), 1u);
  EXPECT_TRUE(newcomer.received.empty());
}

// History of 2: the paced message is pushed out by later ones, yet a session away during its
// turn still gets it on resume while the window is open.
TEST_F(PacerTest, RetrievableUntilItsWindowHasPassedWhateverTheHistorySize) {
  cfg.history = 2;
  make_hub();
  h = &the_hub();
  recording_subscriber first(transport::ws, now), second(transport::ws, now);
  auto r = attach(params("ivan"), first);
  const time_point published = now;
  const auto paced = publish(6s);
  const time_point turn = due("ivan", paced, 6s, published);
  h->detach(*r.s, first, now);
  std::uint64_t last = 0;
  for (int i = 0; i < 5; ++i)
    last = publish();
  advance_to(std::max(turn, now) + cfg.tick);
  attach(params("ivan", last), second);
  EXPECT_EQ(second.ids(), std::vector<std::uint64_t>{paced});
}

// A paced message whose ttl passes within its window: the sessions whose turn came are told to
// take it down, the others never get it nor the notice.
TEST_F(PacerTest, AnExpiredNoticeOfAPacedMessageGoesOnlyToTurnsThatCame) {
  constexpr int n = 200;
  std::vector<std::unique_ptr<recording_subscriber>> conns;
  for (int i = 0; i < n; ++i) {
    conns.push_back(std::make_unique<recording_subscriber>(transport::ws, now));
    attach(params(fmt::format("u{}", i)), *conns.back());
  }
  const std::uint64_t id = ++last_id;
  // Published at wall-clock 1'700'000'000'000 ms, expiring 1 s later, spread over 4 s.
  h->publish(make_message(id, 1'700'000'000'000, {}, "x", 1'700'000'001'000, 4s), now);
  advance_to(now + 4s + cfg.tick);
  int got = 0;
  for (const auto& c : conns) {
    // Nothing, or the message and then its notice (which carries the same id).
    if (c->received.empty()) continue;
    EXPECT_EQ(c->ids(), (std::vector<std::uint64_t>{id, id}));
    ++got;
  }
  EXPECT_GT(got, n / 8);  // about a quarter of the turns fell in the first second
  EXPECT_LT(got, n / 2);
  EXPECT_EQ(stats.expired_notices, static_cast<std::uint64_t>(got));
}

// A paced message reaches a session at its turn, after a message published later: the client acks
// the later one first, then the paced one. Both count, each once.
TEST_F(PacerTest, AnAckOfAPacedMessageBelowTheNewestAckCountsOnce) {
  recording_subscriber conn(transport::ws, now);
  auto r = attach(params("dave"), conn);
  const time_point published = now;
  const auto paced = publish(10s);
  const time_point turn = due("dave", paced, 10s, published);
  ASSERT_GT(turn, published + 20ms) << "pick another user: this one's turn is at once";
  const auto later = publish();
  advance_to(turn + cfg.tick);
  ASSERT_EQ(conn.ids(), (std::vector<std::uint64_t>{later, paced}));
  h->acknowledge(*r.s, later);
  h->acknowledge(*r.s, paced);
  h->acknowledge(*r.s, paced);  // a repeat
  h->acknowledge(*r.s, later);  // a repeat
  EXPECT_EQ(h->find(paced)->acked, 1u);
  EXPECT_EQ(h->find(later)->acked, 1u);
  EXPECT_EQ(stats.acked, 2u);
}

// A paced message is sent to a session at its turn: an ack before that is not for anything the
// client had, and changes nothing (hub::was_sent).
TEST_F(PacerTest, APacedMessageIsSentOnlyAtItsTurnAndAnEarlierAckIsRefused) {
  recording_subscriber conn(transport::ws, now);
  auto r = attach(params("dave"), conn);
  const time_point published = now;
  const auto paced = publish(10s);
  const time_point turn = due("dave", paced, 10s, published);
  ASSERT_GT(turn, published + 20ms) << "pick another user: this one's turn is at once";
  EXPECT_FALSE(h->was_sent(*r.s, *h->find(paced)));
  h->acknowledge(*r.s, paced);
  EXPECT_EQ(h->find(paced)->acked, 0u);
  EXPECT_EQ(stats.acks_refused, 1u);
  advance_to(turn + cfg.tick);
  ASSERT_EQ(conn.ids(), std::vector<std::uint64_t>{paced});
  EXPECT_TRUE(h->was_sent(*r.s, *h->find(paced)));
  h->acknowledge(*r.s, paced);
  EXPECT_EQ(h->find(paced)->acked, 1u);
}

// An immediate message below the newest ack is not the paced exception: it was acked already.
TEST_F(PacerTest, AnAckOfAnOlderImmediateMessageIsIgnored) {
  recording_subscriber conn(transport::ws, now);
  auto r = attach(params("erin"), conn);
  const auto first = publish();
  const auto second = publish();
  h->acknowledge(*r.s, second);
  h->acknowledge(*r.s, first);
  EXPECT_EQ(h->find(first)->acked, 0u);
  EXPECT_EQ(h->find(second)->acked, 1u);
}

}  // namespace
}  // namespace ringcast
