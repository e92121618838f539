// The event hooks' failback on a simulated clock: the retry schedule (retry_backoff), the outbox
// (batches, flush, retry in order, timeout, queue bound, drain), the signature and the URL; the
// connect hook's concurrency cap.
#include <chrono>
#include <functional>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>

#include "config/config.hpp"
#include "core/loop_timers.hpp"
#include "hooks/concurrency_cap.hpp"
#include "hooks/connect_gate.hpp"
#include "hooks/hook_outbox.hpp"
#include "hooks/hook_signature.hpp"
#include "hooks/retry_backoff.hpp"
#include "protocol/connect_answer.hpp"
#include "protocol/http_url.hpp"

namespace ringcast {
namespace {

using namespace std::chrono_literals;
using std::chrono::milliseconds;
using time_point = loop_timers::time_point;

TEST(RetryBackoff, DoublesFromOneSecondToSixtyWithAtMostTwentyPercentMore) {
  for (std::uint32_t seed : {1u, 2u, 99u, 123456u}) {
    retry_backoff b(seed);
    const long nominal[] = {1000, 2000, 4000, 8000, 16000, 32000, 60000, 60000, 60000};
    for (long n : nominal) {
      const auto wait = b.next().count();
      EXPECT_GE(wait, n) << "seed " << seed;
      EXPECT_LE(wait, n + n / 5) << "seed " << seed;
    }
    b.reset();
    EXPECT_LE(b.next().count(), 1200);
  }
}

TEST(RetryBackoff, JitterSpreadsNodesApart) {
  // Ten nodes whose backend failed at the same instant do not all retry at the same millisecond.
  std::set<long> first_waits;
  for (std::uint32_t seed = 1; seed <= 10; ++seed)
    first_waits.insert(retry_backoff(seed).next().count());
  EXPECT_GT(first_waits.size(), 5u);
}

TEST(HookSignature, IsTheHexHmacSha256OfTheBody) {
  // RFC 4231, test case 2.
  EXPECT_EQ(hook_signature("Jefe", "what do ya want for nothing?"),
            "sha256=5bdcc146bf60754e6a042426089575c75a003f089d2739839dec58b964ec3843");
}

TEST(HttpUrl, ParsesHttpAndHttps) {
  auto a = parse_http_url("http://127.0.0.1:9000/hooks?x=1");
  ASSERT_TRUE(a) << a.error;
  EXPECT_FALSE(a.value->tls);
  EXPECT_EQ(a.value->host, "127.0.0.1");
  EXPECT_EQ(a.value->port, 9000);
  EXPECT_EQ(a.value->target, "/hooks?x=1");
  auto b = parse_http_url("https://shop.example");
  ASSERT_TRUE(b) << b.error;
  EXPECT_TRUE(b.value->tls);
  EXPECT_EQ(b.value->port, 443);
  EXPECT_EQ(b.value->target, "/");
  auto c = parse_http_url("http://[::1]:8080/x");
  ASSERT_TRUE(c) << c.error;
  EXPECT_EQ(c.value->host, "::1");
  for (const char* bad : {"", "shop.example/x", "ftp://shop.example/", "http://", "http://h:0/",
                          "http://h:70000/", "http://u:p@h/", "http://h/#f"}) {
    EXPECT_FALSE(parse_http_url(bad)) << bad;
  }
}

TEST(ConnectAnswer, TakesUserAndChannelsAndRefusesAnythingElse) {
  auto empty = parse_connect_answer("{}");
  ASSERT_TRUE(empty) << empty.error;
  EXPECT_FALSE(empty.value->user);
  EXPECT_FALSE(empty.value->channels);
  auto both = parse_connect_answer(R"({"user":"u2","channels":["vip","news","vip"],"x":1})");
  ASSERT_TRUE(both) << both.error;
  EXPECT_EQ(*both.value->user, "u2");
  EXPECT_EQ(*both.value->channels, (std::vector<std::string>{"vip", "news"}));
  std::string many = R"({"channels":[)";
  for (int i = 0; i < 33; ++i)
    many += (i ? ",\"c" : "\"c") + std::to_string(i) + "\"";
  many += "]}";
  for (const std::string& bad :
       std::vector<std::string>{"", "not json", "[]", "\"u\"", R"({"user":5})", R"({"user":""})",
                                R"({"user":"has space"})", R"({"channels":"vip"})",
                                R"({"channels":[1]})", R"({"channels":["a/b"]})", many}) {
    EXPECT_FALSE(parse_connect_answer(bad)) << bad;
  }
}

// A backend as the outbox sees it: records each POST; the test answers it.
class fake_sender final : public hook_sender {
 public:
  struct post_record {
    std::string body;
    time_point at;
    std::function<void(bool)> done;
  };
  void post(std::string body, std::function<void(bool)> done) override {
    posts.push_back({std::move(body), *clock, std::move(done)});
    in_flight = true;
  }
  void abort() override {
    ++aborts;
    in_flight = false;
  }
  void answer(bool accepted) {
    ASSERT_TRUE(in_flight);
    in_flight = false;
    posts.back().done(accepted);
  }
  // The event ids ("n" fields) of a POST's body, in order.
  std::vector<std::int64_t> ids(std::size_t i) const {
    std::vector<std::int64_t> out;
    const boost::json::value body = boost::json::parse(posts.at(i).body);
    for (const auto& e : body.at("events").as_array())
      out.push_back(e.at("n").as_int64());
    return out;
  }

  const time_point* clock = nullptr;
  std::vector<post_record> posts;
  bool in_flight = false;
  int aborts = 0;
};

class OutboxTest : public ::testing::Test {
 protected:
  OutboxTest() {
    cfg.tick = 10ms;
    sender.clock = &now;
  }
  hook_outbox& outbox() {
    if (!outbox_) {
      timers = std::make_unique<loop_timers>(clock, epoch, cfg.tick, cfg.wheel_slots);
      outbox_ = std::make_unique<hook_outbox>(*timers, sender, limits, retry_backoff(seed));
    }
    return *outbox_;
  }
  void push(int n) { outbox().push(R"({"n":)" + std::to_string(n) + "}"); }
  void push_range(int first, int last) {
    for (int n = first; n <= last; ++n)
      push(n);
  }
  void advance_to(time_point t) {
    while (now < t) {
      now = std::min(t, now + cfg.tick);
      clock.set(now);
      timers->advance(now);
    }
  }
  void advance_by(milliseconds d) { advance_to(now + d); }
  // Advances tick by tick until a new POST is made; returns how long that took.
  milliseconds until_next_post(milliseconds limit = 100s) {
    const auto before = sender.posts.size();
    const time_point start = now;
    while (sender.posts.size() == before && now - start < limit)
      advance_by(cfg.tick);
    return std::chrono::duration_cast<milliseconds>(now - start);
  }

  config cfg;
  hook_outbox::limits limits{.batch = 3, .flush = 250ms, .timeout = 2s, .queue = 1000};
  std::uint32_t seed = 7;
  const time_point epoch = time_point{} + 1h;
  time_point now = epoch;
  fake_sender sender;
  simulated_clock clock{epoch};
  std::unique_ptr<loop_timers> timers;
  std::unique_ptr<hook_outbox> outbox_;
};

TEST_F(OutboxTest, AFullBatchGoesOutAtOnce) {
  push_range(1, 3);
  ASSERT_EQ(sender.posts.size(), 1u);
  EXPECT_EQ(sender.ids(0), (std::vector<std::int64_t>{1, 2, 3}));
  EXPECT_EQ(sender.posts[0].body.rfind(R"({"events":[)", 0), 0u);
}

TEST_F(OutboxTest, APartialBatchWaitsForTheFlushInterval) {
  push(1);
  advance_by(100ms);
  push(2);  // does not push the deadline later: it is the oldest event's
  EXPECT_TRUE(sender.posts.empty());
  const auto waited = until_next_post();
  EXPECT_GE(waited, 150ms - cfg.tick);
  EXPECT_LE(waited, 150ms + cfg.tick);
  EXPECT_EQ(sender.ids(0), (std::vector<std::int64_t>{1, 2}));
}

TEST_F(OutboxTest, OneBatchInFlightAtATimeAndTheNextFollowsTheAnswer) {
  push_range(1, 5);
  ASSERT_EQ(sender.posts.size(), 1u);
  push(6);
  EXPECT_EQ(sender.posts.size(), 1u);
  sender.answer(true);
  ASSERT_EQ(sender.posts.size(), 2u);  // 4, 5, 6 make a full batch: sent at once
  EXPECT_EQ(sender.ids(1), (std::vector<std::int64_t>{4, 5, 6}));
  sender.answer(true);
  EXPECT_TRUE(outbox().empty());
  EXPECT_EQ(outbox().counters().sent, 6u);
  EXPECT_EQ(outbox().counters().batches, 2u);
}

TEST_F(OutboxTest, AFailedBatchIsRetriedOnTheBackOffScheduleInOrderUntilAccepted) {
  push_range(1, 2);
  until_next_post();
  retry_backoff expected(seed);  // the same seed: the same jitter
  for (int failure = 0; failure < 9; ++failure) {
    sender.answer(false);
    EXPECT_FALSE(outbox().counters().backend_up);
    push(100 + failure);  // arrives meanwhile: goes after the failed events
    const auto waited = until_next_post();
    const auto wait = expected.next();
    EXPECT_GE(waited, wait) << "retry " << failure + 1;
    EXPECT_LE(waited, wait + cfg.tick) << "retry " << failure + 1;
    const auto ids = sender.ids(sender.posts.size() - 1);
    EXPECT_EQ(ids[0], 1);
    EXPECT_EQ(ids[1], 2);
  }
  EXPECT_GE(expected.nominal(), 60s);  // the schedule reached its cap
  // Each retry is rebuilt from the head of the queue: the failed events, then a newer one.
  EXPECT_EQ(sender.ids(sender.posts.size() - 1), (std::vector<std::int64_t>{1, 2, 100}));
  sender.answer(true);
  EXPECT_TRUE(outbox().counters().backend_up);
  EXPECT_EQ(outbox().counters().retried, 9u);
  EXPECT_EQ(outbox().counters().failed, 9u);
  // The rest (101..108) follows in order, a batch at a time, each at once after the last.
  std::vector<std::int64_t> rest;
  while (sender.in_flight) {
    for (auto id : sender.ids(sender.posts.size() - 1))
      rest.push_back(id);
    sender.answer(true);
  }
  EXPECT_EQ(rest, (std::vector<std::int64_t>{101, 102, 103, 104, 105, 106, 107, 108}));
  EXPECT_TRUE(outbox().empty());
  // A success starts the schedule over: the next failure waits about 1 s again.
  push_range(200, 202);
  sender.answer(false);
  EXPECT_LE(until_next_post(), 1200ms + cfg.tick);
}

TEST_F(OutboxTest, NoAnswerWithinTheTimeoutIsAFailure) {
  push_range(1, 3);
  advance_by(limits.timeout - 2 * cfg.tick);
  EXPECT_EQ(sender.aborts, 0);
  advance_by(2 * cfg.tick);
  EXPECT_EQ(sender.aborts, 1);
  EXPECT_EQ(outbox().counters().failed, 1u);
  EXPECT_FALSE(outbox().counters().backend_up);
  const auto waited = until_next_post();
  EXPECT_GE(waited, 1s);
  EXPECT_LE(waited, 1200ms + cfg.tick);
  EXPECT_EQ(sender.ids(1), (std::vector<std::int64_t>{1, 2, 3}));
}

TEST_F(OutboxTest, BeyondTheBoundTheOldestAreDroppedAndCounted) {
  limits.queue = 5;
  push_range(1, 3);  // in flight
  sender.answer(false);
  push_range(4, 10);
  EXPECT_EQ(outbox().counters().dropped, 5u);
  EXPECT_EQ(outbox().counters().queued, 5u);
  until_next_post();
  EXPECT_EQ(sender.ids(1), (std::vector<std::int64_t>{6, 7, 8}));
  // Dropped while in flight: the batch's accepted events that are left are not sent again.
  push(11);
  push(12);
  EXPECT_EQ(outbox().counters().dropped, 7u);  // 6 and 7, though they are in the POST
  sender.answer(true);
  ASSERT_EQ(sender.posts.size(), 3u);
  EXPECT_EQ(sender.ids(2), (std::vector<std::int64_t>{9, 10, 11}));
  sender.answer(true);
  advance_by(limits.flush + cfg.tick);
  EXPECT_EQ(sender.ids(3), (std::vector<std::int64_t>{12}));
}

TEST_F(OutboxTest, FlushAllSendsWithoutWaitingForTheFlushOrTheBackOff) {
  push(1);
  outbox().flush_all();
  ASSERT_EQ(sender.posts.size(), 1u);
  sender.answer(false);  // draining: retried at the next tick, not after a second
  EXPECT_LE(until_next_post(), cfg.tick);
  push(2);  // a disconnect during the drain joins the queue
  sender.answer(true);
  ASSERT_EQ(sender.posts.size(), 3u);
  EXPECT_EQ(sender.ids(2), (std::vector<std::int64_t>{2}));
}

TEST_F(OutboxTest, DestroyingItAbortsThePostInFlight) {
  push_range(1, 3);
  outbox_.reset();
  EXPECT_EQ(sender.aborts, 1);
}

TEST(ConcurrencyCap, GivesAtMostLimitPlacesAndTakesThemBack) {
  concurrency_cap cap(2);
  EXPECT_TRUE(cap.try_acquire());
  EXPECT_TRUE(cap.try_acquire());
  EXPECT_FALSE(cap.try_acquire());
  EXPECT_EQ(cap.in_flight(), 2u);
  cap.release();
  EXPECT_TRUE(cap.try_acquire());
  EXPECT_FALSE(cap.try_acquire());
}

// The connect gate against a backend that accepts and never answers: at most the cap's POSTs are
// in flight (across gates: the cap is the node's), the next connect is refused at once without
// being asked, and a place comes back when a POST times out or the gate goes.
TEST(ConnectGate, BeyondTheCapAConnectIsRefusedUnaskedAndPlacesComeBack) {
  namespace asio = boost::asio;
  asio::io_context io;
  asio::ip::tcp::acceptor backend(io, {asio::ip::make_address("127.0.0.1"), 0});
  std::vector<asio::ip::tcp::socket> held;
  std::function<void()> accept = [&] {
    backend.async_accept([&](boost::system::error_code ec, asio::ip::tcp::socket s) {
      if (ec) return;
      held.push_back(std::move(s));
      accept();
    });
  };
  accept();

  config cfg;
  cfg.tick = 10ms;
  const time_point epoch = time_point{} + 1h;
  simulated_clock clock{epoch};
  loop_timers timers(clock, epoch, cfg.tick, cfg.wheel_slots);
  concurrency_cap cap(2);
  connect_hook_settings settings{
      .url = *parse_http_url("http://127.0.0.1:" + std::to_string(backend.local_endpoint().port()) +
                             "/connect")
                  .value,
      .timeout = 1s,
      .tls = nullptr,
      .secret = "s",
      .cap = &cap,
      .max_idle = 4};
  auto asking = [](std::string user) {
    connect_question q;
    q.user = std::move(user);
    return q;
  };
  std::vector<connect_verdict::kind> verdicts;
  auto record = [&](connect_verdict v) { verdicts.push_back(v.what); };
  auto run_until = [&](auto done) {
    for (int i = 0; i < 200 && !done(); ++i)
      io.run_for(5ms);
  };
  {
    connect_gate one(io, timers, settings);
    connect_gate other(io, timers, settings);  // another loop's
    one.ask(asking("a"), record);
    other.ask(asking("b"), record);
    one.ask(asking("c"), record);
    run_until([&] { return !verdicts.empty() && held.size() == 2; });
    ASSERT_EQ(verdicts, std::vector{connect_verdict::kind::overloaded});
    EXPECT_EQ(held.size(), 2u) << "the refused connect reached the backend";
    EXPECT_EQ(cap.in_flight(), 2u);
    EXPECT_EQ(one.counters().overloaded, 1u);

    // The two time out: their places are free for the next.
    for (; clock.now() < epoch + 1100ms; clock.advance(cfg.tick))
      timers.advance();
    EXPECT_EQ(verdicts.size(), 3u);
    EXPECT_EQ(cap.in_flight(), 0u);
    one.ask(asking("d"), record);
    EXPECT_EQ(cap.in_flight(), 1u);
  }
  EXPECT_EQ(cap.in_flight(), 0u) << "a gate destroyed with a POST in flight kept its place";
}

}  // namespace
}  // namespace ringcast
