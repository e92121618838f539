// The hub as coordinator, on a simulated clock: attach (a session found or made, its connection
// replaced, its backlog), the hello, and acknowledge (reach, was_sent).
#include "hub_test_support.hpp"

namespace ringcast {
namespace {

class HubTest : public hub_test_base {};

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

// A message a connection does not want (subscriber::wants: the sender of a Pusher client event,
// a Pusher connection and a broadcast) is neither sent to it nor counted, at once, at its paced
// turn, or in a resumed backlog. Fails on the hub that counted every addressee.
TEST_F(HubTest, AMessageTheConnectionDoesNotWantIsNeitherSentNorCounted) {
  fake_subscriber a(transport::ws), b(transport::ws);
  b.wanted = false;
  attach(params("alice"), a);
  const auto rb = attach(params("bob"), b);
  publish();  // 1
  const message_ptr m = the_hub().find(1);
  ASSERT_NE(m, nullptr);
  EXPECT_EQ(m->recipients, 1u);
  EXPECT_EQ(m->delivered, 1u);
  EXPECT_EQ(stats.delivered, 1u);
  const message_ptr paced = make_message(++last_id, 1'700'000'000'000, {}, "2", 0, 1s);
  EXPECT_EQ(the_hub().publish(paced, now), 1u);
  advance_to(now + 1s + cfg.tick);
  EXPECT_EQ(paced->delivered, 1u);
  EXPECT_EQ(stats.delivered, 2u);
  EXPECT_EQ(stats.paced_delivered, 1u);
  EXPECT_EQ(a.ids(), (ids{1, 2}));
  EXPECT_TRUE(b.messages.empty());
  detach(rb, b);
  fake_subscriber back(transport::ws);
  back.wanted = false;
  attach(params("bob", "0", {}, 0), back);  // resumed from 0: both in its backlog
  EXPECT_EQ(m->delivered, 1u);
  EXPECT_EQ(paced->delivered, 1u);
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

}  // namespace
}  // namespace ringcast
