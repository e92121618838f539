// Pusher's webhooks through the hook outbox on a simulated clock (hooks/pusher_webhooks.hpp):
// the body Pusher sends and its signature, batching, and the failback retry, re-signed.
#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include "hooks/pusher_webhooks.hpp"
#include "pusher/pusher_crypto.hpp"

namespace ringcast {
namespace {

using namespace std::chrono_literals;
using time_point = loop_timers::time_point;

// A POST as the webhook URL would see it; the test answers it.
class fake_exchange final : public http_exchange {
 public:
  void cancel() override { cancelled = true; }
  bool cancelled = false;
};

struct seen_post {
  std::string body;
  std::vector<http_exchange::header> headers;
  http_exchange::handler answer;
  std::shared_ptr<fake_exchange> exchange;
  std::string header(std::string_view name) const {
    for (const auto& [n, v] : headers)
      if (n == name) return v;
    return {};
  }
};

class PusherWebhooksTest : public ::testing::Test {
 protected:
  PusherWebhooksTest() {
    cfg_tick = 10ms;
    timers = std::make_unique<loop_timers>(clock, epoch, cfg_tick, 4096);
    target = std::make_unique<pusher_webhook_target>(
        *timers, app, "http://shop.test/pusher",
        [this](std::string body, std::vector<http_exchange::header> headers,
               http_exchange::handler done) {
          auto x = std::make_shared<fake_exchange>();
          posts.push_back({std::move(body), std::move(headers), std::move(done), x});
          return x;
        },
        hook_outbox::limits{.batch = 3, .flush = 250ms, .timeout = 2s, .queue = 100}, 7);
  }
  void advance_by(std::chrono::milliseconds d) {
    const time_point until = now + d;
    while (now < until) {
      now += cfg_tick;
      clock.set(now);
      timers->advance(now);
    }
  }
  void answer(std::size_t i, unsigned status) {
    http_answer a;
    a.status = status;
    posts.at(i).answer(a);
  }
  static std::vector<std::string> names(const seen_post& p) {
    std::vector<std::string> out;
    const boost::json::value body = boost::json::parse(p.body);
    for (const auto& e : body.at("events").as_array())
      out.emplace_back(e.at("name").as_string());
    return out;
  }

  pusher::app app{.id = "1", .key = "key-1", .secret = "secret-1"};
  std::chrono::milliseconds cfg_tick{};
  const time_point epoch = time_point{} + 1h;
  time_point now = epoch;
  simulated_clock clock{epoch};
  std::unique_ptr<loop_timers> timers;
  std::vector<seen_post> posts;
  std::unique_ptr<pusher_webhook_target> target;
};

TEST(PusherWebhookPost, TimeMsComesFirstAndTheSignatureIsTheBodysHmac) {
  const pusher::app app{.id = "1", .key = "k", .secret = "s"};
  const auto post =
      pusher_webhook_post(app, 1700000000123, R"({"events":[{"name":"channel_occupied"}]})");
  EXPECT_EQ(post.body, R"({"time_ms":1700000000123,"events":[{"name":"channel_occupied"}]})");
  EXPECT_EQ(post.key, "k");
  EXPECT_EQ(post.signature, pusher::hmac_sha256_hex("s", post.body));
}

TEST_F(PusherWebhooksTest, EventsAreBatchedSignedAndSentAsPusherSendsThem) {
  target->push(boost::json::serialize(pusher::channel_occupied_event("sale")));
  target->push(boost::json::serialize(pusher::member_added_event("presence-a", "10")));
  EXPECT_TRUE(posts.empty());  // a partial batch waits for the flush interval
  advance_by(260ms);
  ASSERT_EQ(posts.size(), 1u);
  const auto body = boost::json::parse(posts[0].body).as_object();
  // The time of the POST: the flush deadline, 250 ms after the first event.
  EXPECT_EQ(body.at("time_ms").as_int64(), simulated_clock::default_unix_ms + 250);
  EXPECT_EQ(names(posts[0]), (std::vector<std::string>{"channel_occupied", "member_added"}));
  EXPECT_EQ(posts[0].header("X-Pusher-Key"), "key-1");
  EXPECT_EQ(posts[0].header("X-Pusher-Signature"),
            pusher::hmac_sha256_hex("secret-1", posts[0].body));
  answer(0, 200);
  EXPECT_TRUE(target->empty());
  EXPECT_EQ(target->counters().sent, 2u);
}

TEST_F(PusherWebhooksTest, AFailedBatchIsRetriedFromTheWheelAndSignedAgain) {
  for (int i = 0; i < 3; ++i)
    target->push(boost::json::serialize(pusher::channel_vacated_event("c" + std::to_string(i))));
  ASSERT_EQ(posts.size(), 1u);  // a full batch goes at once
  answer(0, 500);
  EXPECT_FALSE(target->empty());
  for (int i = 0; i < 1000 && posts.size() == 1; ++i)
    advance_by(cfg_tick);
  ASSERT_EQ(posts.size(), 2u);
  EXPECT_EQ(names(posts[1]), names(posts[0]));
  EXPECT_GT(boost::json::parse(posts[1].body).at("time_ms").as_int64(),
            boost::json::parse(posts[0].body).at("time_ms").as_int64());
  EXPECT_EQ(posts[1].header("X-Pusher-Signature"),
            pusher::hmac_sha256_hex("secret-1", posts[1].body));
  answer(1, 204);
  EXPECT_TRUE(target->empty());
  EXPECT_EQ(target->counters().retried, 1u);
}

TEST_F(PusherWebhooksTest, ABatchNotAnsweredInTimeIsCancelledAndRetried) {
  for (int i = 0; i < 3; ++i)
    target->push(boost::json::serialize(pusher::cache_miss_event("cache-x")));
  ASSERT_EQ(posts.size(), 1u);
  advance_by(2010ms);
  EXPECT_TRUE(posts[0].exchange->cancelled);
  answer(0, 200);  // too late: ignored
  EXPECT_FALSE(target->empty());
  EXPECT_EQ(target->counters().failed, 1u);
}

}  // namespace
}  // namespace ringcast
