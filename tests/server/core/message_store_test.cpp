// The message store alone; then promotions in force, rewind and take-down through the hub on a
// simulated clock (docs/protocol.md, "Promotions in force" and "Rewind"): what a connect without
// `since` gets first, that it respects audience, expiry and paced turns, and that a take-down
// expires a message at once.
#include <chrono>
#include <memory>
#include <optional>
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

// ---- the store alone ---------------------------------------------------------------------------

class MessageStoreAlone : public test::parts_fixture {
 protected:
  MessageStoreAlone() {
    cfg.tick = 10ms;
    cfg.history = 3;
  }
  message_store& store() { return parts().store; }
  static std::vector<std::uint64_t> ids_of(const std::vector<message_ptr>& messages) {
    std::vector<std::uint64_t> out;
    for (const auto& m : messages)
      out.push_back(m->id);
    return out;
  }
  using ids = std::vector<std::uint64_t>;
  static constexpr std::int64_t ts_ms = 1'700'000'000'000;  // make()'s
};

TEST_F(MessageStoreAlone, HistoryKeepsTheNewestAndFindForgetsTheRest) {
  for (int i = 0; i < 5; ++i)
    store().keep(make(), now);
  EXPECT_EQ(store().newest_id(), 5u);
  EXPECT_EQ(store().find(2), nullptr);
  ASSERT_NE(store().find(3), nullptr);
  EXPECT_EQ(store().find(3)->id, 3u);
  EXPECT_EQ(ids_of(store().retained()), (ids{3, 4, 5}));
  EXPECT_EQ(ids_of(store().newest(2)), (ids{5, 4}));
  EXPECT_EQ(ids_of(store().newest(10)), (ids{5, 4, 3}));
}

TEST_F(MessageStoreAlone, ATtlExpiresOnTheWheelAndTellsTheLiveSessionsItReached) {
  test::recording_connection a;
  live("alice", "1", a);
  const auto m = make({.ttl = 1s, .sticky = true});
  store().keep(m, now);
  EXPECT_EQ(store().sticky_in_force(), 1u);
  advance_by(990ms);
  EXPECT_FALSE(m->is_expired());
  EXPECT_TRUE(a.texts.empty());
  advance_by(20ms);
  EXPECT_TRUE(m->is_expired());
  EXPECT_EQ(store().sticky_in_force(), 0u);
  EXPECT_EQ(stats.messages_expired, 1u);
  EXPECT_EQ(a.texts, (std::vector<std::string>{R"({"type":"expired","id":1})"}));
  EXPECT_EQ(stats.expired_notices, 1u);
}

TEST_F(MessageStoreAlone, ATakeDownIsClaimedOnceAndEndsTheMessageAtOnce) {
  const auto m = make({.ttl = 1h, .sticky = true});
  store().keep(m, now);
  EXPECT_EQ(store().find_held(m->id), m);
  EXPECT_TRUE(store().claim_take_down(m));
  EXPECT_FALSE(store().claim_take_down(m));
  EXPECT_EQ(stats.taken_down, 1u);
  store().take_down(m, now);
  EXPECT_EQ(store().sticky_in_force(), 0u);
  jump_to(now + 2h);
  EXPECT_EQ(stats.messages_expired, 0u);  // its ttl timer went with it
}

TEST_F(MessageStoreAlone, SeedingMarksWhatExpiredAndKeepsTheStickyInForce) {
  const auto gone = make({.ttl = 5s});
  const auto kept = make({.ttl = 1h, .sticky = true});
  const auto evicted = make({.ttl = 1h, .sticky = true});  // no longer in the cluster's history
  store().seed_history({gone, kept}, now, ts_ms + 10'000);
  store().seed_in_force({kept, evicted}, now, ts_ms + 10'000);
  EXPECT_TRUE(gone->is_expired());
  EXPECT_FALSE(kept->is_expired());
  EXPECT_EQ(stats.messages_expired, 0u);  // nobody here received it: not counted, no notice
  EXPECT_EQ(store().sticky_in_force(), 2u);
  EXPECT_EQ(store().find(evicted->id), nullptr);
  EXPECT_EQ(store().find_held(evicted->id), evicted);
  jump_to(now + 1h);  // both ttls count from the seeding's wall clock
  EXPECT_EQ(store().sticky_in_force(), 0u);
  EXPECT_EQ(stats.messages_expired, 2u);
}

// ---- through the hub ---------------------------------------------------------------------------

// Records the ids of the messages it is given, and apart the ids of the `expired` notices.
class recorder final : public subscriber {
 public:
  explicit recorder(transport kind = transport::ws) : kind_(kind) {}
  transport kind() const override { return kind_; }
  void deliver(const message_ptr& m) override { deliver_many(std::span(&m, 1)); }
  void deliver_many(std::span<const message_ptr> messages) override {
    for (const auto& m : messages)
      (m->json.starts_with(R"({"type":"expired")") ? expired : ids).push_back(m->id);
  }
  void heartbeat() override {}
  void end(const ending_notice&) override {}

  std::vector<std::uint64_t> ids, expired;

 private:
  transport kind_;
};

using ids = std::vector<std::uint64_t>;

constexpr std::int64_t t0_ms = 1'700'000'000'000;

class StickyMessagesTest : public test::hub_fixture {
 protected:
  StickyMessagesTest() {
    cfg.tick = 10ms;
    cfg.heartbeat = 1h;
    cfg.idle_timeout = 1h;
    cfg.session_ttl = 1h;
    cfg.poll_timeout = 1h;
    cfg.history = 100;
    remake_hub();
  }
  void remake_hub() {
    make_hub();
    h = &the_hub();
  }

  struct publish_options {
    bool sticky = false;
    addressee to{};
    std::chrono::milliseconds ttl{0};
    std::chrono::milliseconds spread{0};
    std::int64_t ts_ms = t0_ms;
  };
  message_ptr publish(publish_options o) {
    const std::uint64_t id = ++last_id;
    auto m = make_message(id, o.ts_ms, o.to, std::to_string(id),
                          o.ttl.count() ? o.ts_ms + o.ttl.count() : 0, o.spread, o.sticky);
    h->publish(m, now);
    return m;
  }
  message_ptr sticky(addressee to = {}, std::chrono::milliseconds ttl = 0ms) {
    return publish({.sticky = true, .to = std::move(to), .ttl = ttl});
  }
  message_ptr plain() { return publish({}); }

  static client_params params(std::string user, std::vector<std::string> channels = {}) {
    client_params p;
    p.user = std::move(user);
    p.channels = std::move(channels);
    return p;
  }
  // Attaches `conn` and hands it the backlog, as a connection does.
  hub::attach_result attach(const client_params& p, recorder& conn) {
    auto r = h->attach(p, conn, now);
    for (const auto& m : r.backlog)
      conn.ids.push_back(m->id);
    return r;
  }
  // A user whose turn for message `id` paced over `spread` falls in (spread/4, 3*spread/4).
  static std::string user_with_turn_mid_window(std::uint64_t id, std::chrono::milliseconds spread) {
    for (int i = 0;; ++i) {
      std::string user = fmt::format("u{}", i);
      const auto offset = pacing::offset_of(pacing::place_of(user + "/0"), id, spread);
      if (offset > spread / 4 && offset < spread * 3 / 4) return user;
    }
  }

  std::uint64_t last_id = 0;
  hub* h = nullptr;
};

TEST_F(StickyMessagesTest, AConnectWithoutSinceGetsTheStickyMessagesInForceThenLive) {
  const auto before = plain();
  const auto a = sticky();
  plain();
  const auto b = sticky();
  EXPECT_EQ(h->sticky_in_force(), 2u);
  for (const transport kind : {transport::ws, transport::sse, transport::poll}) {
    recorder conn(kind);
    auto r = attach(params(fmt::format("new{}", name_of(kind))), conn);
    EXPECT_EQ(conn.ids, (ids{a->id, b->id})) << name_of(kind);
    EXPECT_FALSE(r.gap);
    h->detach(*r.s, conn, now);  // the poll too: `conn` dies with this iteration
  }
  // With `since` it is a resume: history after `since`, sticky or not, as always.
  recorder resumed;
  attach(
      [&] {
        auto p = params("old");
        p.since = before->id;
        return p;
      }(),
      resumed);
  EXPECT_EQ(resumed.ids, (ids{a->id, a->id + 1, b->id}));
  const auto live = plain();
  EXPECT_EQ(resumed.ids.back(), live->id);
  EXPECT_EQ(a->delivered.load(), 4u);  // three connects and one resume
}

TEST_F(StickyMessagesTest, ATtlThatPassesBetweenPublishAndConnectTakesItOutOfForce) {
  const auto short_lived = sticky({}, 2s);
  const auto long_lived = sticky({}, 1h);
  advance_to(now + 2s - cfg.tick);
  recorder early;
  attach(params("early"), early);
  EXPECT_EQ(early.ids, (ids{short_lived->id, long_lived->id}));
  advance_to(now + 2 * cfg.tick);                  // the ttl has passed (at most a tick late)
  EXPECT_EQ(early.expired, ids{short_lived->id});  // it had it on its page
  EXPECT_EQ(h->sticky_in_force(), 1u);
  recorder late;
  attach(params("late"), late);
  EXPECT_EQ(late.ids, ids{long_lived->id});
  EXPECT_TRUE(late.expired.empty());
}

TEST_F(StickyMessagesTest, InForceEvenAfterHistoryHasEvictedIt) {
  cfg.history = 2;
  remake_hub();
  const auto kept = sticky();
  for (int i = 0; i < 5; ++i)
    plain();
  EXPECT_EQ(h->find(kept->id), nullptr);  // out of history: no resume returns it
  recorder conn;
  attach(params("shopper"), conn);
  EXPECT_EQ(conn.ids, ids{kept->id});
  EXPECT_EQ(h->find_held(kept->id), kept);
}

TEST_F(StickyMessagesTest, OnlyThoseAddressedToTheClient) {
  const auto all = sticky();
  const auto shoes = sticky({audience::channel, "shoes"});
  const auto bob = sticky({audience::user, "bob"});
  const auto list = sticky({audience::users, "ann,bob"});
  recorder ann, bob_conn, carl;
  attach(params("ann", {"hats"}), ann);
  attach(params("bob", {"shoes"}), bob_conn);
  attach(params("carl"), carl);
  EXPECT_EQ(ann.ids, (ids{all->id, list->id}));
  EXPECT_EQ(bob_conn.ids, (ids{all->id, shoes->id, bob->id, list->id}));
  EXPECT_EQ(carl.ids, ids{all->id});
}

TEST_F(StickyMessagesTest, APacedOneOnlyOnceTheSessionsTurnHasCome) {
  const std::uint64_t next = last_id + 1;
  const std::string user = user_with_turn_mid_window(next, 10s);
  const time_point published = now;
  const auto m = publish({.sticky = true, .spread = 10s});
  const time_point turn = published + pacing::offset_of(pacing::place_of(user + "/0"), m->id, 10s);
  // Before its turn: not on connect, but at the turn, never before, at most a tick after.
  recorder before;
  attach(params(user), before);
  EXPECT_TRUE(before.ids.empty());
  advance_to(turn - cfg.tick);
  EXPECT_TRUE(before.ids.empty());
  advance_to(turn + cfg.tick);
  EXPECT_EQ(before.ids, ids{m->id});
  // After its turn (the window still open), another session of the same user gets it on connect.
  recorder after;
  auto p = params(user);
  p.sid = "tab2";
  const time_point tab2_turn =
      published + pacing::offset_of(pacing::place_of(user + "/tab2"), m->id, 10s);
  advance_to(std::max(now, tab2_turn + 2 * cfg.tick));  // the walk has passed it
  attach(p, after);
  EXPECT_EQ(after.ids, ids{m->id});
  // Once the window has passed, any new session gets it on connect.
  advance_to(published + 10s + cfg.tick);
  recorder later;
  attach(params("someone-else"), later);
  EXPECT_EQ(later.ids, ids{m->id});
  advance_to(now + 1s);
  EXPECT_EQ(before.ids, ids{m->id});  // once
}

TEST_F(StickyMessagesTest, TakeDownExpiresAtOnceAndTellsThoseWhoHaveIt) {
  const auto m = sticky({}, 1h);
  recorder had, other;
  attach(params("had"), had);
  ASSERT_EQ(had.ids, ids{m->id});
  const auto unrelated = sticky({audience::user, "other"});
  attach(params("other"), other);
  ASSERT_TRUE(h->claim_take_down(m));
  h->take_down(m, now);
  EXPECT_EQ(had.expired, ids{m->id});
  EXPECT_EQ(other.expired, ids{m->id});  // it had it too (a broadcast)
  EXPECT_TRUE(m->expired.load());
  EXPECT_EQ(stats.taken_down, 1u);
  EXPECT_FALSE(h->claim_take_down(m));  // already expired: a second DELETE is 404
  recorder fresh;
  attach(params("fresh"), fresh);
  EXPECT_TRUE(fresh.ids.empty());
  EXPECT_EQ(h->sticky_in_force(), 1u);  // `unrelated` only
  // Its ttl timer is gone with it: nothing more when the hour passes.
  advance_to(now + 1h + cfg.tick);
  EXPECT_EQ(had.expired, ids{m->id});
  EXPECT_EQ(stats.messages_expired, 0u);
  EXPECT_NE(unrelated, nullptr);
}

TEST_F(StickyMessagesTest, TakeDownOfAMessageThatIsNotStickyHidesItFromResume) {
  const auto first = plain();
  const auto gone = plain();
  const auto last = plain();
  ASSERT_TRUE(h->claim_take_down(gone));
  h->take_down(gone, now);
  recorder conn;
  auto p = params("resumer");
  p.since = first->id;
  const auto r = attach(p, conn);
  EXPECT_EQ(conn.ids, ids{last->id});
  EXPECT_FALSE(r.gap);
}

TEST_F(StickyMessagesTest, RewindByCountSkipsWhatIsNotTheClientsOrExpired) {
  const auto m1 = plain();
  const auto m2 = plain();
  publish({.to = {audience::user, "other"}});
  const auto m4 = plain();
  publish({.ttl = 1s});  // expires before the connect
  advance_to(now + 1s + cfg.tick);
  recorder two, many;
  auto p = params("ann");
  p.rewind_count = 2;
  attach(p, two);
  EXPECT_EQ(two.ids, (ids{m2->id, m4->id}));
  p.user = "bea";
  p.rewind_count = 100;
  attach(p, many);
  EXPECT_EQ(many.ids, (ids{m1->id, m2->id, m4->id}));
}

TEST_F(StickyMessagesTest, RewindByDurationTakesThoseOfTheLastDuration) {
  publish({.ts_ms = t0_ms});
  const auto recent = publish({.ts_ms = t0_ms + 50'000});
  const auto newest = publish({.ts_ms = t0_ms + 59'000});
  recorder conn;
  auto p = params("ann");
  p.rewind_after_ms = t0_ms + 30'000;  // the admission's now (t0 + 60 s) minus rewind=30s
  attach(p, conn);
  EXPECT_EQ(conn.ids, (ids{recent->id, newest->id}));
}

TEST_F(StickyMessagesTest, RewindAndStickyTogetherInIdOrderOnce) {
  const auto old_sticky = sticky();
  plain();
  const auto new_sticky = sticky();
  const auto last = plain();
  recorder conn;
  auto p = params("ann");
  p.rewind_count = 2;
  attach(p, conn);
  EXPECT_EQ(conn.ids, (ids{old_sticky->id, new_sticky->id, last->id}));
}

TEST_F(StickyMessagesTest, RewindLeavesAPacedMessageToItsTurn) {
  const std::uint64_t next = last_id + 1;
  const std::string user = user_with_turn_mid_window(next, 10s);
  const time_point published = now;
  const auto paced = publish({.spread = 10s});
  const auto after = plain();
  const time_point turn =
      published + pacing::offset_of(pacing::place_of(user + "/0"), paced->id, 10s);
  recorder conn;
  auto p = params(user);
  p.rewind_count = 10;
  attach(p, conn);
  EXPECT_EQ(conn.ids, ids{after->id});  // the paced one's turn has not come
  advance_to(turn + cfg.tick);
  EXPECT_EQ(conn.ids, (ids{after->id, paced->id}));
}

// ---- a first connect's long-poll reply is bounded as a resume's is (issue 35) ------------------

// Polls as ringcast.js does: without `since` first, then from each reply's last_id while it says
// "more". Returns the ids of every reply, one vector a reply.
std::vector<ids> poll_all(hub& h, const client_params& first, hub::time_point now) {
  std::vector<ids> replies;
  client_params p = first;
  for (bool more = true; more;) {
    recorder poll(transport::poll);
    const auto r = h.attach(p, poll, now);
    h.detach(*r.s, poll, now);
    EXPECT_FALSE(r.gap);
    EXPECT_EQ(r.last_id, r.more ? r.backlog.back()->id : h.newest_id());
    replies.emplace_back();
    for (const auto& m : r.backlog)
      replies.back().push_back(m->id);
    more = r.more;
    p.since = r.last_id;
    if (replies.size() > 100) break;
  }
  return replies;
}

TEST_F(StickyMessagesTest, AFirstConnectPollIsCutAtMaxPollBatchAndTheRestFollowsOnce) {
  cfg.history = 5;
  cfg.max_poll_batch = 4;
  remake_hub();
  for (int i = 0; i < 6; ++i)
    sticky();  // 1-6, evicted from history by what follows
  for (int i = 0; i < 10; ++i)
    plain();  // 7-16: history holds 12-16
  auto p = params("ann");
  p.rewind_count = 3;  // 14, 15, 16: older than no sticky one, yet after them in id order
  recorder first(transport::poll);
  auto r = attach(p, first);
  h->detach(*r.s, first, now);
  EXPECT_EQ(first.ids, (ids{1, 2, 3, 4}));
  EXPECT_TRUE(r.more);
  EXPECT_EQ(r.last_id, 4u);
  EXPECT_FALSE(r.gap);
  // Between the polls: one more plain message (history now 14-18), and one more sticky one.
  plain();
  sticky();
  // From last_id 4: the sticky ones after it, and history from the rewind's start, not from 4
  // (7-13 were never asked for, and history no longer holding them is no gap).
  p.since = 4;
  const auto replies = poll_all(*h, p, now);
  EXPECT_EQ(replies, (std::vector<ids>{{5, 6, 14, 15}, {16, 17, 18}}));
  // Resumed after that, nothing is owed; a WebSocket's first connect is not cut.
  recorder ws;
  EXPECT_EQ(attach(params("bob"), ws).backlog.size(), 7u);
}

TEST_F(StickyMessagesTest, AFirstConnectPollReplyStopsAfterOneMebibyteAndTheRestFollowsOnce) {
  const std::string blob = '"' + std::string(60 * 1024, 'x') + '"';
  ids expected;
  for (int i = 0; i < 40; ++i) {
    const std::uint64_t id = ++last_id;
    const bool is_sticky = id % 2 == 1;  // the odd ids are in force
    h->publish(make_message(id, t0_ms, {}, blob, 0, 0ms, is_sticky), now);
    if (is_sticky || id > 20) expected.push_back(id);
  }
  auto p = params("ann");
  p.rewind_count = 20;  // 21-40, with the sticky 1, 3, ... 19 before them: 1.8 MB
  const auto replies = poll_all(*h, p, now);
  ASSERT_GE(replies.size(), 2u);
  ids got;
  for (const auto& reply : replies) {
    const std::size_t bytes = reply.size() * (h->find(reply.front())->json.size() + 1);
    EXPECT_LE(bytes, max_poll_reply_bytes + h->find(reply.front())->json.size() + 1);
    got.insert(got.end(), reply.begin(), reply.end());
  }
  EXPECT_EQ(got, expected);  // in id order, each once
}

TEST(StickyQuota, CountsUntilExpiryOrRemoval) {
  sticky_quota q(2);
  EXPECT_TRUE(q.has_room(1000));
  q.add(1, 0);
  q.add(2, 2000);
  EXPECT_FALSE(q.has_room(1999));
  EXPECT_TRUE(q.has_room(2000));  // 2's expiry has come
  q.add(3, 0);
  EXPECT_FALSE(q.has_room(3000));
  q.remove(1);
  EXPECT_TRUE(q.has_room(3000));
  EXPECT_EQ(q.in_force(3000), 1u);
}

}  // namespace
}  // namespace ringcast
