// The handover to a new binary, hub side (core/loop_handover.cpp, core/schedule_handover.cpp), on
// a simulated clock: a hub's state is captured, written and read back through the codec, and
// restored into a fresh hub whose clock is an hour ahead. The old hub goes on as if nothing
// happened; both are then driven alike and must answer alike, at the same times relative to the
// capture: deliveries, heartbeats, expiries, token expiry, TTLs, resume, the schedule and reach.
// So nothing fires early, late or twice.
#include <algorithm>
#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "core/hub.hpp"
#include "core/presence.hpp"
#include "core/schedule.hpp"
#include "upgrade/state_codec.hpp"

namespace ringcast {
namespace {

using namespace std::chrono_literals;
using time_point = hub::time_point;

// One process: a hub and its schedule on the hub's wheel, its clients, a clock of its own.
struct node_side {
  // A client: what it was sent, each with the time after the capture ("-" before it).
  class recorder final : public subscriber {
   public:
    recorder(node_side& side, transport kind) : side_(side), kind_(kind) {}
    transport kind() const override { return kind_; }
    void deliver(const message_ptr& m) override { log(m->json); }
    void heartbeat() override { log("heartbeat"); }
    // The reason, not the notice: retry_ms is drawn at random.
    void end(const ending_notice& notice) override {
      log(fmt::format("end:{}", reason_of(notice.why)));
    }
    std::vector<std::string> got;

   private:
    void log(std::string what) { got.push_back(fmt::format("{} {}", side_.since_capture(), what)); }
    node_side& side_;
    transport kind_;
  };

  node_side(const config& settings, time_point start)
      : cfg(settings),
        epoch(start),
        now(start),
        // The wall clock is past every promotion's `at` here, so the steady deadlines alone decide
        // when one is published (schedule::fire's wall-clock check passes).
        clock(start, 1'700'001'000'000),
        timers(clock, start, cfg.tick, cfg.wheel_slots),
        h(std::make_unique<hub>(cfg, timers, stats, 0)),
        sched(10, timers, [this](const std::string& request) {
          published.push_back(fmt::format("{} {}", since_capture(), request));
        }) {}
  ~node_side() {
    h->drain(now);  // the recorders go first
  }

  std::string since_capture() const {
    if (!captured_at) return "-";
    return fmt::format(
        "{}ms", std::chrono::duration_cast<std::chrono::milliseconds>(now - *captured_at).count());
  }
  void tick() {
    now += cfg.tick;
    clock.set(now);
    timers.advance(now);
  }
  void advance_by(std::chrono::milliseconds d) {
    for (const time_point until = now + d; now < until;)
      tick();
  }
  session& connect(const std::string& user, transport kind, client_params p) {
    p.user = user;
    auto& conn = clients[user] = std::make_unique<recorder>(*this, kind);
    session* s = h->attach(p, *conn, now).s;
    live[user] = s;
    return *s;
  }
  void publish(std::uint64_t id, addressee to, std::int64_t expires_after_ms = 0,
               std::chrono::milliseconds spread = 0ms, bool sticky = false) {
    const std::int64_t ts = 1'700'000'000'000 + static_cast<std::int64_t>(id) * 100;
    h->publish(make_message(id, ts, std::move(to), std::to_string(id),
                            expires_after_ms ? ts + expires_after_ms : 0, spread, sticky),
               now);
  }

  const config& cfg;
  const time_point epoch;
  time_point now;
  std::optional<time_point> captured_at;
  simulated_clock clock;
  loop_timers timers;
  loop_stats stats;
  std::unique_ptr<hub> h;
  schedule sched;
  std::map<std::string, std::unique_ptr<recorder>> clients;  // by user (one session each)
  std::map<std::string, session*> live;                      // their sessions
  std::vector<std::string> published;                        // by the schedule
};

client_params params(std::vector<std::string> channels = {},
                     std::optional<std::uint64_t> since = std::nullopt) {
  client_params p;
  p.channels = std::move(channels);
  p.since = since;
  return p;
}

class HubHandoverTest : public ::testing::Test {
 protected:
  HubHandoverTest() {
    cfg.tick = 10ms;
    cfg.heartbeat = 1s;
    cfg.idle_timeout = 3s;
    cfg.session_ttl = 5s;
    cfg.poll_timeout = 2s;
    cfg.reconnect_delay = 1s;
    cfg.drain = 2s;
    cfg.max_connection_age = 0ms;
    cfg.history = 100;
    old = std::make_unique<node_side>(cfg, time_point{} + 1000s);
    fresh = std::make_unique<node_side>(cfg, time_point{} + 4600s);  // another process's clock
  }

  // What the old hub holds by the capture: live WebSocket, SSE and held-poll sessions, one
  // waiting out its TTL, a token expiry and a grant, history with reach and an ack, a sticky
  // message, a ttl running, a paced message part-way through its window, and promotions waiting
  // (one cancelled before). The capture falls between two ticks.
  void build_old() {
    node_side& o = *old;
    o.connect("alice", transport::ws, params({"news"}));
    auto p = params({"news", "deals"});
    p.allowed_channels = std::vector<std::string>{"news", "deals", "vip"};
    p.expires = o.now + 7s;  // the token's `exp`
    o.connect("bob", transport::sse, p);
    session& carol = o.connect("carol", transport::ws, params());
    o.advance_by(200ms);
    o.publish(1, {});
    o.publish(2, {audience::channel, "news"});
    o.publish(3, {audience::user, "bob"}, 0, 0ms, true);  // sticky
    o.publish(4, {audience::channel, "deals"}, 2'500);    // its ttl passes in 2.5 s
    o.h->acknowledge(*o.live["alice"], 2);
    o.advance_by(300ms);
    o.h->detach(carol, *o.clients["carol"], o.now);  // carol waits out her TTL
    o.live.erase("carol");
    o.advance_by(1s);
    o.connect("dave", transport::poll, params({}, 4));  // a held poll
    o.publish(5, {}, 0, 2s);                            // paced over 2 s
    o.advance_by(700ms);
    ASSERT_TRUE(o.sched.add(1'700'000'900'000, o.now + 3s, R"({"data":"a"})"));
    const auto b = o.sched.add(1'700'000'950'000, o.now + 4s, R"({"data":"b"})");
    ASSERT_TRUE(b && o.sched.cancel(*b));
    cancelled_id = *b;
    ASSERT_TRUE(o.sched.add(1'700'000'990'000, o.now + 6s, R"({"data":"c"})"));
    o.now += 5ms;  // between two ticks
    o.clock.set(o.now);
  }

  static upgrade::handover_state capture(node_side& side) {
    side.captured_at = side.now;
    upgrade::handover_state s;
    handover_messages messages;
    s.loops.push_back(side.h->capture(side.now, messages));
    s.messages = capture_messages(messages);
    s.last_id = side.h->newest_id();
    s.schedule = side.sched.capture(side.now);
    auto& sessions = s.loops[0].sessions;  // a hash map's order: sorted, to compare
    std::sort(sessions.begin(), sessions.end(),
              [](const auto& a, const auto& b) { return a.record.user_ < b.record.user_; });
    return s;
  }

  // Into the fresh hub, through the bytes as the new binary gets them, at the same phase of a
  // tick; the live clients' connections are adopted.
  void restore(const upgrade::handover_state& captured) {
    const auto read = upgrade::read_state(upgrade::write_state(captured));
    ASSERT_TRUE(read.state) << read.error;
    node_side& f = *fresh;
    f.now += *old->captured_at - old->epoch;
    f.clock.set(f.now);
    f.captured_at = f.now;
    const auto messages = restore_messages(read.state->messages);
    f.h->restore(read.state->loops[0], messages, f.now);
    f.sched.restore(read.state->schedule, f.now);
    for (const auto& [user, s] : old->live) {
      auto& conn = f.clients[user] = std::make_unique<node_side::recorder>(f, s->kind());
      f.live[user] = f.h->adopt(user, s->sid(), *conn);
      ASSERT_TRUE(f.live[user]) << user;
    }
    f.h->end_adoption(f.now);
    for (auto& [user, conn] : old->clients)
      before_capture[user] = std::exchange(conn->got, {});
  }

  // Both sides alike, tick by tick, comparing what both hold after each.
  void both_for(std::chrono::milliseconds d, const std::function<void(node_side&)>& at_start = {}) {
    if (at_start) {
      at_start(*old);
      at_start(*fresh);
    }
    for (auto left = d; left > 0ms; left -= cfg.tick) {
      old->tick();
      fresh->tick();
      ASSERT_EQ(old->h->session_count(), fresh->h->session_count()) << fresh->since_capture();
      ASSERT_EQ(old->h->connected_count(), fresh->h->connected_count()) << fresh->since_capture();
    }
  }

  void expect_same_clients() {
    for (const auto& [user, conn] : old->clients) {
      ASSERT_TRUE(fresh->clients.contains(user) || conn->got.empty()) << user;
      if (fresh->clients.contains(user)) {
        EXPECT_EQ(fresh->clients[user]->got, conn->got) << user;
      }
    }
  }

  config cfg;
  std::unique_ptr<node_side> old, fresh;
  std::string cancelled_id;
  std::map<std::string, std::vector<std::string>> before_capture;
};

TEST_F(HubHandoverTest, TheRestoredHubCapturesAsTheOldOne) {
  build_old();
  const auto captured = capture(*old);
  ASSERT_EQ(captured.loops[0].sessions.size(), 4u);
  ASSERT_EQ(captured.loops[0].paced.size(), 1u);
  ASSERT_EQ(captured.loops[0].expiring.size(), 1u);
  ASSERT_EQ(captured.schedule.waiting.size(), 2u);
  restore(captured);
  const auto again = capture(*fresh);
  // Part by part first, for a readable failure.
  EXPECT_EQ(again.messages, captured.messages);
  EXPECT_EQ(again.schedule, captured.schedule);
  const auto &l = again.loops[0], &c = captured.loops[0];
  EXPECT_EQ(l.history, c.history);
  EXPECT_EQ(l.history_floor, c.history_floor);
  EXPECT_EQ(l.sticky, c.sticky);
  EXPECT_EQ(l.expiring, c.expiring);
  EXPECT_EQ(l.paced_walked_to, c.paced_walked_to);
  EXPECT_EQ(l.paced, c.paced);
  ASSERT_EQ(l.sessions.size(), c.sessions.size());
  for (std::size_t i = 0; i < l.sessions.size(); ++i) {
    const auto &a = l.sessions[i], &b = c.sessions[i];
    EXPECT_EQ(a.record.user_, b.record.user_);
    EXPECT_EQ(a.live, b.live) << a.record.user_;
    EXPECT_EQ(a.record.online_, b.record.online_) << a.record.user_;
    EXPECT_EQ(a.record.token_expires_, b.record.token_expires_) << a.record.user_;
    EXPECT_EQ(a.record.attached_at_, b.record.attached_at_) << a.record.user_;
    EXPECT_EQ(a.record.last_activity_, b.record.last_activity_) << a.record.user_;
    EXPECT_EQ(a.record.last_sent_, b.record.last_sent_) << a.record.user_;
    EXPECT_EQ(a.record.detached_at_, b.record.detached_at_) << a.record.user_;
    EXPECT_EQ(a.record.paced_until_, b.record.paced_until_) << a.record.user_;
    EXPECT_EQ(a.timer_due, b.timer_due) << a.record.user_;
    EXPECT_EQ(a, b) << a.record.user_;
  }
  EXPECT_EQ(again, captured);
}

TEST_F(HubHandoverTest, BothHubsAnswerAlikeAfterwards) {
  build_old();
  restore(capture(*old));
  // Message 4's ttl, heartbeats, the paced walk, dave's poll timeout, bob's token expiry, the
  // scheduled promotions and carol's TTL all come due in these ten seconds.
  both_for(100ms, [](node_side& s) {
    s.publish(6, {});
    s.publish(7, {audience::channel, "news"});
  });
  both_for(400ms, [](node_side& s) { s.h->acknowledge(*s.live["alice"], 6); });
  // carol comes back (resume after 1) while her session still waits out its TTL.
  std::vector<std::uint64_t> resumed[2];
  int side = 0;
  both_for(10s, [&](node_side& s) {
    auto carol = params({}, 1);
    carol.user = "carol";
    auto& back = s.clients["carol"] = std::make_unique<node_side::recorder>(s, transport::ws);
    const auto r = s.h->attach(carol, *back, s.now);
    EXPECT_TRUE(r.resumed);
    EXPECT_FALSE(r.gap);
    for (const auto& m : r.backlog)
      resumed[side].push_back(m->id);
    ++side;
  });
  EXPECT_EQ(resumed[1], resumed[0]);
  EXPECT_TRUE(std::ranges::count(resumed[1], 6u) == 1);
  expect_same_clients();
  // And at the times the old hub had them due (the capture 5 ms after a tick, so each comes at
  // the tick after its deadline): no timer early, none twice.
  auto count = [&](const std::string& user, const std::string& line) {
    return std::ranges::count(fresh->clients[user]->got, line);
  };
  EXPECT_EQ(count("bob", R"(500ms {"type":"expired","id":4})"), 1);  // ttl at 2.7 s
  EXPECT_EQ(count("bob", "4800ms end:expired"), 1);                  // the token's exp at 7 s
  EXPECT_EQ(count("alice", "800ms end:idle"), 1);                    // idle since 0 s
  EXPECT_EQ(count("dave", "1300ms end:timeout"), 1);                 // held since 1.5 s
  EXPECT_EQ(count("bob", "1510ms heartbeat"), 1);
  EXPECT_EQ(fresh->published, old->published);
  EXPECT_EQ(fresh->published,  // a and c, at the times asked; b was cancelled
            (std::vector<std::string>{R"(3000ms {"data":"a"})", R"(6000ms {"data":"c"})"}));
  // The paced message reached each live client once, before the capture or after it.
  for (const std::string user : {"alice", "bob"}) {
    std::vector<std::string> all = before_capture[user];
    all.insert(all.end(), fresh->clients[user]->got.begin(), fresh->clients[user]->got.end());
    EXPECT_EQ(std::ranges::count_if(all,
                                    [](const std::string& line) {
                                      return line.find(R"("id":5,)") != std::string::npos;
                                    }),
              1)
        << user;
  }
  for (std::uint64_t id = 1; id <= 7; ++id) {
    const message_ptr a = old->h->find_held(id), b = fresh->h->find_held(id);
    ASSERT_TRUE(a && b) << id;
    EXPECT_EQ(b->recipients.load(), a->recipients.load()) << id;
    EXPECT_EQ(b->delivered.load(), a->delivered.load()) << id;
    EXPECT_EQ(b->acked.load(), a->acked.load()) << id;
    EXPECT_EQ(b->expired.load(), a->expired.load()) << id;
  }
}

TEST_F(HubHandoverTest, OnlyALiveSessionIsAdoptedOnceByItsTransport) {
  build_old();
  const auto captured = capture(*old);
  const auto read = upgrade::read_state(upgrade::write_state(captured));
  ASSERT_TRUE(read.state) << read.error;
  node_side& f = *fresh;
  f.h->restore(read.state->loops[0], restore_messages(read.state->messages), f.now);
  node_side::recorder ws(f, transport::ws), sse(f, transport::sse), poll(f, transport::poll);
  EXPECT_FALSE(f.h->adopt("carol", "0", ws));   // waiting out her TTL: no connection to adopt
  EXPECT_FALSE(f.h->adopt("alice", "0", sse));  // hers was a WebSocket
  EXPECT_FALSE(f.h->adopt("nobody", "0", ws));
  ASSERT_TRUE(f.h->adopt("alice", "0", ws));
  EXPECT_FALSE(f.h->adopt("alice", "0", ws));  // once
  EXPECT_EQ(f.h->connected_count(), 1u);
  EXPECT_EQ(f.h->session_count(), 4u);
  f.h->drain(f.now);
}

// bob's SSE and dave's held poll are not adopted (their connections did not survive): bob goes
// offline at end_adoption, dave stays online as between two polls, and both wait out their TTL
// from then, as if their connection had closed at that instant.
TEST_F(HubHandoverTest, ASessionWhoseConnectionIsNotAdoptedWaitsItsTtlFromThen) {
  build_old();
  const auto captured = capture(*old);
  node_side& f = *fresh;
  f.h->restore(captured.loops[0], restore_messages(captured.messages), f.now);
  presence_counts presence;
  f.h->tell_online(presence);
  EXPECT_EQ(presence.user_sessions("bob"), 1u);
  EXPECT_EQ(presence.channel("deals").sessions, 1u);
  EXPECT_EQ(presence.user_sessions("carol"), 0u);  // she left before the capture
  f.h->observe(presence);
  node_side::recorder alice(f, transport::ws);
  ASSERT_TRUE(f.h->adopt("alice", "0", alice));
  f.h->end_adoption(f.now);
  EXPECT_EQ(presence.user_sessions("bob"), 0u);
  EXPECT_EQ(presence.channel("deals").sessions, 0u);
  EXPECT_EQ(presence.user_sessions("dave"), 1u);
  EXPECT_EQ(f.h->connected_count(), 1u);
  f.advance_by(3'400ms);  // carol's TTL has passed (she left 1.705 s before the capture)
  EXPECT_EQ(f.h->session_count(), 3u);
  f.advance_by(1'590ms);  // bob's and dave's have not, a tick before their end
  EXPECT_EQ(f.h->session_count(), 3u);
  f.advance_by(20ms);
  EXPECT_EQ(f.h->session_count(), 1u);  // alice, adopted
  EXPECT_EQ(presence.user_sessions("dave"), 0u);
  f.h->unobserve(presence);
  f.h->drain(f.now);
}

TEST_F(HubHandoverTest, ScheduleIdsMeanTheSamePromotionsAfter) {
  build_old();
  const auto captured = capture(*old);
  restore(captured);
  const auto listed = [](const schedule& s) {
    std::vector<std::string> out;
    for (const auto& w : s.list())
      out.push_back(fmt::format("{} {} {}", w.id, w.at_ms, w.request_json));
    return out;
  };
  EXPECT_EQ(listed(fresh->sched), listed(old->sched));
  ASSERT_EQ(listed(fresh->sched).size(), 2u);
  EXPECT_FALSE(fresh->sched.cancel(cancelled_id));  // cancelled before: still unknown
  // The next id issued is the same on both: the cancelled slot's new generation.
  const auto next_old = old->sched.add(1'700'001'000'000, old->now + 1s, "{}");
  const auto next_fresh = fresh->sched.add(1'700'001'000'000, fresh->now + 1s, "{}");
  ASSERT_TRUE(next_old && next_fresh);
  EXPECT_EQ(*next_fresh, *next_old);
  EXPECT_NE(*next_fresh, cancelled_id);
  const std::string first = fresh->sched.list().front().id;
  EXPECT_TRUE(fresh->sched.cancel(first));
  EXPECT_EQ(fresh->sched.size(), 2u);
}

// A resume from an id between the floor and the first message retained (ids skip: another
// loop's users) is no gap before the upgrade, and none after.
TEST_F(HubHandoverTest, HistoryKeepsItsFloor) {
  old->publish(3, {});
  old->publish(4, {});
  restore(capture(*old));
  for (node_side* side : {old.get(), fresh.get()}) {
    auto& conn = side->clients["erin"] =
        std::make_unique<node_side::recorder>(*side, transport::ws);
    auto p = params({}, 1);
    p.user = "erin";
    const auto r = side->h->attach(p, *conn, side->now);
    EXPECT_FALSE(r.gap);
    EXPECT_EQ(r.backlog.size(), 2u);
  }
}

// Every loop of a node holds the same message objects, and counts its clients into them: after
// the restore the loops share one object per message again, so reach still sums over them.
TEST_F(HubHandoverTest, LoopsShareEachRestoredMessage) {
  node_side second{cfg, old->now};
  const message_ptr m = make_message(1, 1'700'000'000'000, {}, "1");
  old->connect("alice", transport::ws, params());
  second.connect("bob", transport::ws, params());
  old->h->publish(m, old->now);
  second.h->publish(m, second.now);
  ASSERT_EQ(m->recipients.load(), 2u);
  upgrade::handover_state state;
  handover_messages messages;
  state.loops.push_back(old->h->capture(old->now, messages));
  state.loops.push_back(second.h->capture(second.now, messages));
  state.messages = capture_messages(messages);
  state.last_id = 1;
  ASSERT_EQ(state.messages.size(), 1u);
  const auto read = upgrade::read_state(upgrade::write_state(state));
  ASSERT_TRUE(read.state) << read.error;
  const auto restored = restore_messages(read.state->messages);
  node_side other{cfg, fresh->now};
  fresh->h->restore(read.state->loops[0], restored, fresh->now);
  other.h->restore(read.state->loops[1], restored, other.now);
  const message_ptr a = fresh->h->find(1), b = other.h->find(1);
  ASSERT_TRUE(a);
  EXPECT_EQ(a, b);
  EXPECT_EQ(a->recipients.load(), 2u);
  EXPECT_EQ(a->json, m->json);
  EXPECT_EQ(a->poll_body, m->poll_body);
  EXPECT_EQ(a->sse_prefix, m->sse_prefix);
  second.h->drain(second.now);
}

}  // namespace
}  // namespace ringcast
