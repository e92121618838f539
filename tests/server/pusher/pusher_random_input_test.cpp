// The Pusher parsers of outside input fed mutants of valid input (a fixed seed): no crash, every
// refusal says why, and nothing changed in a signed part is ever admitted.
#include <random>
#include <string>
#include <string_view>

#include <gtest/gtest.h>

#include "pusher/pusher_api_auth.hpp"
#include "pusher/pusher_auth.hpp"
#include "pusher/pusher_client_frame.hpp"
#include "pusher/pusher_names.hpp"
#include "pusher/pusher_subscription.hpp"

namespace ringcast::pusher {
namespace {

constexpr int rounds = 3000;
const app test_app{"3", "278d425bdf160c739803", "7ad3773142a6692b25b8", true};

// A few bytes of `text` replaced, inserted or erased, drawn from the characters the grammars
// care about (and NUL, 0xFF).
class mutator {
 public:
  std::string operator()(std::string text) {
    static constexpr char bytes[] = "{}[]\":,%2Fa0.-_#&=\\\x00\xff";
    constexpr std::string_view pool{bytes, sizeof bytes - 1};
    const int edits = 1 + below(3);
    for (int i = 0; i < edits; ++i) {
      const auto at = static_cast<std::size_t>(below(static_cast<int>(text.size()) + 1));
      const char c = pool[static_cast<std::size_t>(below(static_cast<int>(pool.size())))];
      const int how = below(3);
      if (how == 0 && at < text.size()) text[at] = c;
      if (how == 1) text.insert(at, 1, c);
      if (how == 2 && at < text.size()) text.erase(at, 1);
    }
    return text;
  }

 private:
  int below(int n) { return std::uniform_int_distribution<int>(0, n - 1)(rng_); }
  std::mt19937 rng_{38};
};

TEST(PusherRandomInput, ClientFramesAreReadOrRefusedWithAReason) {
  const std::vector<std::string> seeds{
      R"({"event":"pusher:subscribe","data":{"auth":"k:1","channel_data":"{\"user_id\":1}","channel":"presence-r"}})",
      R"({"event":"pusher:signin","data":{"auth":"k:s","user_data":"{\"id\":\"7\"}"}})",
      R"({"event":"client-typing","data":{"on":true},"channel":"private-chat"})",
      R"({"event":"pusher:ping","data":{}})",
  };
  mutator mutate;
  for (int i = 0; i < rounds; ++i) {
    const std::string input = mutate(seeds[static_cast<std::size_t>(i) % seeds.size()]);
    const client_frame frame = parse_client_frame(input);
    if (const auto* refused = std::get_if<frame_refusal>(&frame)) {
      EXPECT_FALSE(refused->message.empty()) << input;
    }
    if (const auto* event = std::get_if<client_event_frame>(&frame)) {
      EXPECT_EQ(check_client_event_name(event->event), "") << input;
    }
    if (const auto* subscribe = std::get_if<subscribe_frame>(&frame)) {
      // Whatever the name, the subscription check answers; a refusal says why.
      const auto result = check_subscription(test_app, "1.2", *subscribe);
      if (const auto* refusal = std::get_if<subscription_refusal>(&result)) {
        EXPECT_FALSE(refusal->error.empty()) << input;
      }
    }
  }
}

TEST(PusherRandomInput, AChangedPresenceSubscriptionIsNeverAdmitted) {
  const std::string data = R"({"user_id":"ann","user_info":{"name":"Ann"}})";
  const std::string auth =
      test_app.key + ":" + channel_signature(test_app, "1.2", "presence-room", data);
  mutator mutate;
  int admitted = 0;
  for (int i = 0; i < rounds; ++i) {
    subscribe_frame frame{"presence-room", auth, data};
    if (i % 2 == 0) {
      frame.channel_data = mutate(data);
    } else {
      frame.auth = mutate(auth);
    }
    const auto result = check_subscription(test_app, "1.2", frame);
    if (std::holds_alternative<subscription_grant>(result)) {
      ++admitted;
      EXPECT_EQ(frame.channel_data, data);
      EXPECT_EQ(frame.auth, auth);
    }
  }
  EXPECT_LT(admitted, rounds / 10);  // only the mutants that changed nothing
}

TEST(PusherRandomInput, AChangedApiRequestIsAdmittedOnlyWhenItMeansTheSame) {
  const std::int64_t now = 1'700'000'000;
  const std::string path = "/apps/3/channels", body;
  const query_parameters original{{"filter_by_prefix", "presence-"}, {"info", "user_count"}};
  const std::string query = signed_query(test_app, "GET", path, original, body, now);
  const auto expected =
      std::get<query_parameters>(verify_api_request(test_app, {"GET", path, query, body}, now));
  mutator mutate;
  for (int i = 0; i < rounds; ++i) {
    const std::string changed_query = i % 3 == 0 ? query : mutate(query);
    const std::string changed_path = i % 3 == 0 ? mutate(path) : path;
    const auto result =
        verify_api_request(test_app, {"GET", changed_path, changed_query, body}, now);
    if (const auto* refused = std::get_if<api_refusal>(&result)) {
      EXPECT_TRUE(refused->status == 400 || refused->status == 401) << changed_query;
      EXPECT_FALSE(refused->body.empty());
    } else {
      // %61 for "a" and the like: the same request in other bytes.
      EXPECT_EQ(std::get<query_parameters>(result), expected) << changed_query;
      EXPECT_EQ(changed_path, path);
    }
  }
}

}  // namespace
}  // namespace ringcast::pusher
