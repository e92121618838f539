// The hub's session events (core/session_events.hpp) on a simulated clock, and the JSON the hook
// writer makes of them (hooks/hook_events.hpp).
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include "hooks/hook_events.hpp"
#include "hub_fixture.hpp"

namespace ringcast {
namespace {

using namespace std::chrono_literals;
using time_point = hub::time_point;

class quiet_subscriber final : public subscriber {
 public:
  explicit quiet_subscriber(transport kind) : kind_(kind) {}
  transport kind() const override { return kind_; }
  void deliver(const message_ptr&) override {}
  void heartbeat() override {}
  void end(const ending_notice& n) override { endings.push_back(n.why); }
  std::vector<ending> endings;

 private:
  transport kind_;
};

// Every event as one line: "connect alice/0 resumed=0 [news]", "disconnect alice/0 closed", …
class recorder final : public session_events {
 public:
  void on_connect(const session& s, bool resumed) override {
    lines.push_back("connect " + s.key() + " resumed=" + std::to_string(resumed) +
                    list(s.channels()));
  }
  void on_disconnect(const session& s, std::string_view reason) override {
    lines.push_back("disconnect " + s.key() + " " + std::string(reason));
  }
  void on_subscribe(const session& s, const std::vector<std::string>& c) override {
    lines.push_back("subscribe " + s.key() + list(c));
  }
  void on_unsubscribe(const session& s, const std::vector<std::string>& c) override {
    lines.push_back("unsubscribe " + s.key() + list(c));
  }
  static std::string list(const std::vector<std::string>& c) {
    std::string out = " [";
    for (std::size_t i = 0; i < c.size(); ++i)
      out += (i ? "," : "") + c[i];
    return out + "]";
  }
  std::vector<std::string> lines;
};

client_params params(std::string user, std::string sid, std::vector<std::string> channels = {}) {
  client_params p;
  p.user = std::move(user);
  p.sid = std::move(sid);
  p.channels = std::move(channels);
  return p;
}

class SessionEventsTest : public test::hub_fixture {
 protected:
  SessionEventsTest() {
    cfg.tick = 10ms;
    cfg.heartbeat = 10s;
    cfg.idle_timeout = 30s;
    cfg.session_ttl = 5s;
    cfg.poll_timeout = 2s;
    h = &the_hub();
    h->observe(events);
  }
  ~SessionEventsTest() override { h->unobserve(events); }
  recorder events;
  hub* h = nullptr;
};

TEST_F(SessionEventsTest, AWebSocketConnectsSubscribesAndDisconnects) {
  quiet_subscriber ws(transport::ws);
  auto r = h->attach(params("alice", "0", {"news"}), ws, now);
  ASSERT_TRUE(h->subscribe(*r.s, {"news", "sport"}));  // news it already has
  h->unsubscribe(*r.s, {"news", "weather"});           // weather it never had
  h->detach(*r.s, ws, now);
  EXPECT_EQ(events.lines, (std::vector<std::string>{
                              "connect alice/0 resumed=0 [news]", "subscribe alice/0 [sport]",
                              "unsubscribe alice/0 [news]", "disconnect alice/0 closed"}));
  // Back within the TTL: online again, resumed.
  quiet_subscriber again(transport::ws);
  h->attach(params("alice", "0", {"sport"}), again, now);
  EXPECT_EQ(events.lines.back(), "connect alice/0 resumed=1 [sport]");
}

TEST_F(SessionEventsTest, AReplacedConnectionKeepsTheSessionOnline) {
  quiet_subscriber first(transport::ws), second(transport::sse);
  h->attach(params("alice", "0", {"a"}), first, now);
  h->attach(params("alice", "0", {"b"}), second, now);
  EXPECT_EQ(first.endings, (std::vector<ending>{ending::close_replaced}));
  // No disconnect, no second connect: the channels it changed are told as such.
  EXPECT_EQ(events.lines,
            (std::vector<std::string>{"connect alice/0 resumed=0 [a]", "unsubscribe alice/0 [a]",
                                      "subscribe alice/0 [b]"}));
}

TEST_F(SessionEventsTest, ALongPollSessionStaysOnlineBetweenPollsUntilItsTtl) {
  for (int poll = 0; poll < 3; ++poll) {
    quiet_subscriber p(transport::poll);
    auto r = h->attach(params("bob", "t", {"x"}), p, now);
    advance_by(cfg.poll_timeout);  // answered reconnect/timeout
    EXPECT_EQ(p.endings, (std::vector<ending>{ending::reconnect_timeout}));
    advance_by(100ms);
    (void)r;
  }
  EXPECT_EQ(events.lines, (std::vector<std::string>{"connect bob/t resumed=0 [x]"}));
  advance_by(cfg.session_ttl + cfg.tick);
  EXPECT_EQ(events.lines.back(), "disconnect bob/t session_ttl");
  EXPECT_EQ(events.lines.size(), 2u);
}

TEST_F(SessionEventsTest, EndingsTheServerDecidesAreTheReason) {
  quiet_subscriber a(transport::ws), b(transport::poll);
  h->attach(params("carol", "1"), a, now);
  auto rb = h->attach(params("carol", "2"), b, now);
  h->detach(*rb.s, b, now);  // between polls: still online
  EXPECT_EQ(h->kick("carol", now), 1u);
  std::sort(events.lines.begin(), events.lines.end());
  EXPECT_EQ(events.lines, (std::vector<std::string>{
                              "connect carol/1 resumed=0 []", "connect carol/2 resumed=0 []",
                              "disconnect carol/1 kicked", "disconnect carol/2 kicked"}));
}

TEST_F(SessionEventsTest, DrainTakesEverySessionOffline) {
  quiet_subscriber a(transport::sse), b(transport::poll);
  h->attach(params("dave", "1"), a, now);
  auto rb = h->attach(params("dave", "2"), b, now);
  h->detach(*rb.s, b, now);
  h->drain(now);
  std::sort(events.lines.begin(), events.lines.end());
  EXPECT_EQ(events.lines[2], "disconnect dave/1 shutdown");
  EXPECT_EQ(events.lines[3], "disconnect dave/2 shutdown");
  advance_by(cfg.session_ttl + cfg.tick);  // the poll session's TTL: no second disconnect
  EXPECT_EQ(events.lines.size(), 4u);
}

// The writer's JSON, read back from the outbox's queue.
class null_sender final : public hook_sender {
 public:
  void post(std::string, std::function<void(bool)>) override {}
  void abort() override {}
};

TEST_F(SessionEventsTest, TheHookWriterMakesOneJsonObjectPerEventWithUniqueIds) {
  null_sender sender;
  hook_outbox out(timers(), sender, {.batch = 1000, .flush = 10s, .timeout = 2s, .queue = 1000},
                  retry_backoff(1));
  hook_event_writer writer(out, "node1", 3, [] { return std::int64_t{1'700'000'000'123}; });
  h->observe(writer);
  quiet_subscriber ws(transport::ws);
  auto r = h->attach(params("eve", "s", {"c1"}), ws, now);
  h->subscribe(*r.s, {"c2"});
  h->unsubscribe(*r.s, {"c1"});
  h->end_connection(*r.s, ending::close_idle, now);
  h->unobserve(writer);

  ASSERT_EQ(out.queue().size(), 4u);
  std::vector<boost::json::object> e;
  for (const auto& text : out.queue())
    e.push_back(boost::json::parse(text).as_object());
  EXPECT_EQ(e[0], boost::json::parse(R"({"event_id":"node1-3-1","type":"connect",
      "ts":1700000000123,"user":"eve","session":"eve/s","sid":"s","transport":"ws","resumed":false,
      "channels":["c1"],"node":"node1"})"));
  EXPECT_EQ(e[1].at("type"), "subscribe");
  EXPECT_EQ(e[1].at("channels"), boost::json::parse(R"(["c2"])"));
  EXPECT_EQ(e[2].at("type"), "unsubscribe");
  EXPECT_EQ(e[2].at("channels"), boost::json::parse(R"(["c1"])"));
  EXPECT_EQ(e[3].at("type"), "disconnect");
  EXPECT_EQ(e[3].at("reason"), "idle");
  EXPECT_EQ(e[3].at("event_id"), "node1-3-4");
}

// Channel changes reach the outbox coalesced per session per batch (issue 25).
class recording_sender final : public hook_sender {
 public:
  void post(std::string body, std::function<void(bool)> done) override {
    bodies.push_back(std::move(body));
    answers.push_back(std::move(done));
  }
  void abort() override { answers.clear(); }
  std::vector<std::string> bodies;
  std::vector<std::function<void(bool)>> answers;
};

class CoalescingTest : public SessionEventsTest {
 protected:
  CoalescingTest()
      : out(timers(), sender, {.batch = 1000, .flush = 250ms, .timeout = 2s, .queue = 1000},
            retry_backoff(1)),
        writer(out, "n", 0, [] { return std::int64_t{1}; }) {
    h->observe(writer);
  }
  ~CoalescingTest() override { h->unobserve(writer); }
  // Moves the clock (the flush timer fires) and has the backend accept every POST.
  void settle(std::chrono::milliseconds d) {
    advance_by(d);
    while (!sender.answers.empty()) {
      auto answers = std::move(sender.answers);
      sender.answers.clear();
      for (auto& done : answers)
        done(true);
    }
  }
  // The events of every POST so far, as "type [channels]".
  std::vector<std::string> posted() const {
    std::vector<std::string> lines;
    for (const auto& body : sender.bodies) {
      const boost::json::value batch = boost::json::parse(body);
      for (const auto& e : batch.at("events").as_array()) {
        std::string line(e.at("type").as_string());
        if (const auto* c = e.as_object().if_contains("channels")) line += " " + serialize(*c);
        lines.push_back(line);
      }
    }
    return lines;
  }
  recording_sender sender;
  hook_outbox out;
  hook_event_writer writer;
};

TEST_F(CoalescingTest, TenThousandSubscribesUndoneBeforeTheFlushSendNothing) {
  quiet_subscriber ws(transport::ws);
  auto r = h->attach(params("mallory", "s"), ws, now);
  settle(300ms);
  ASSERT_EQ(posted(), (std::vector<std::string>{"connect []"}));
  for (int i = 0; i < 5'000; ++i) {
    ASSERT_TRUE(h->subscribe(*r.s, {"flood"}));
    h->unsubscribe(*r.s, {"flood"});
  }
  EXPECT_TRUE(out.queue().empty());
  settle(300ms);
  EXPECT_EQ(sender.bodies.size(), 1u) << "no POST for changes that came to nothing";
  EXPECT_TRUE(out.empty());
  h->end_connection(*r.s, ending::close_idle, now);
  settle(300ms);
  EXPECT_EQ(posted(), (std::vector<std::string>{"connect []", "disconnect"}));
}

TEST_F(CoalescingTest, TheNetChangeOfABatchIsOneSubscribeAndOneUnsubscribe) {
  quiet_subscriber ws(transport::ws);
  auto r = h->attach(params("amy", "s", {"old1", "old2"}), ws, now);
  settle(300ms);
  ASSERT_TRUE(h->subscribe(*r.s, {"a", "b"}));
  h->unsubscribe(*r.s, {"old1", "a"});
  ASSERT_TRUE(h->subscribe(*r.s, {"old1", "c"}));
  h->unsubscribe(*r.s, {"old2"});
  EXPECT_EQ(sender.bodies.size(), 1u) << "nothing before the flush";
  settle(300ms);
  EXPECT_EQ(posted(),
            (std::vector<std::string>{R"(connect ["old1","old2"])", R"(subscribe ["b","c"])",
                                      R"(unsubscribe ["old2"])"}));
  // The next batch carries only what changed after the last.
  h->unsubscribe(*r.s, {"b"});
  settle(300ms);
  EXPECT_EQ(posted().back(), R"(unsubscribe ["b"])");
  EXPECT_EQ(posted().size(), 4u);
}

TEST_F(CoalescingTest, ADisconnectSendsThePendingChangeFirstSoTheOrderHolds) {
  quiet_subscriber ws(transport::ws);
  auto r = h->attach(params("bob", "s"), ws, now);
  ASSERT_TRUE(h->subscribe(*r.s, {"x"}));
  h->end_connection(*r.s, ending::close_idle, now);
  settle(300ms);
  EXPECT_EQ(posted(), (std::vector<std::string>{"connect []", R"(subscribe ["x"])", "disconnect"}));
}

TEST_F(CoalescingTest, APendingChangeAloneIsSentWithinTheFlushInterval) {
  quiet_subscriber ws(transport::ws);
  auto r = h->attach(params("cy", "s"), ws, now);
  settle(300ms);
  ASSERT_EQ(sender.bodies.size(), 1u);
  ASSERT_TRUE(h->subscribe(*r.s, {"x"}));
  settle(200ms);
  EXPECT_EQ(sender.bodies.size(), 1u) << "not before --hook-flush";
  settle(60ms);
  EXPECT_EQ(posted().back(), R"(subscribe ["x"])");
}

}  // namespace
}  // namespace ringcast
