// The HTTP API's publishing bodies (server/pusher/pusher_api_events): events and batch_events as
// the SDKs send them, and each refusal with Pusher's status. The SDK's own bodies are read in
// pusher_sdk_check_test.
#include "pusher/pusher_api_events.hpp"

#include <string>

#include <gtest/gtest.h>

namespace ringcast::pusher {
namespace {

api_refusal refusal_of(const std::variant<api_event, api_refusal>& result) {
  if (const auto* refused = std::get_if<api_refusal>(&result)) return *refused;
  ADD_FAILURE() << "accepted";
  return {};
}

TEST(PusherApiEvents, AnEventToOneOrSeveralChannels) {
  const auto one = parse_event_body(
      R"({"name":"App\\Events\\OrderShipped","data":"{\"id\":1}","channel":"orders"})");
  ASSERT_TRUE(std::holds_alternative<api_event>(one)) << std::get<api_refusal>(one).body;
  const auto& e = std::get<api_event>(one);
  EXPECT_EQ(e.name, "App\\Events\\OrderShipped");
  EXPECT_EQ(e.data, R"({"id":1})");
  EXPECT_EQ(e.channels, std::vector<std::string>{"orders"});
  EXPECT_EQ(e.socket_id, std::nullopt);
  EXPECT_FALSE(e.user_count || e.subscription_count);

  const auto many = parse_event_body(
      R"({"name":"n","data":"plain","channels":["a","presence-b","#server-to-user-7"],)"
      R"("socket_id":"1.2","info":"user_count,subscription_count"})");
  ASSERT_TRUE(std::holds_alternative<api_event>(many)) << std::get<api_refusal>(many).body;
  const auto& m = std::get<api_event>(many);
  EXPECT_EQ(m.channels, (std::vector<std::string>{"a", "presence-b", "#server-to-user-7"}));
  EXPECT_EQ(m.socket_id, "1.2");
  EXPECT_TRUE(m.user_count && m.subscription_count);
}

TEST(PusherApiEvents, PushersLimits) {
  std::string hundred = R"({"name":"n","data":"d","channels":[)";
  for (int i = 0; i < 100; ++i)
    hundred += (i ? ",\"c" : "\"c") + std::to_string(i) + "\"";
  EXPECT_TRUE(std::holds_alternative<api_event>(parse_event_body(hundred + "]}")));
  EXPECT_EQ(refusal_of(parse_event_body(hundred + ",\"c100\"]}")).body,
            "channels: 101 given; at most 100");
  const std::string data(max_event_data, 'd');
  EXPECT_TRUE(std::holds_alternative<api_event>(
      parse_event_body(R"({"name":"n","channel":"c","data":")" + data + "\"}")));
  const auto big =
      refusal_of(parse_event_body(R"({"name":"n","channel":"c","data":")" + data + "d\"}"));
  EXPECT_EQ(big.status, 413);
  EXPECT_EQ(big.body, "data is 10241 bytes; at most 10240");
  EXPECT_EQ(refusal_of(parse_event_body(R"({"name":")" + std::string(201, 'n') +
                                        R"(","channel":"c","data":"d"})"))
                .body,
            "event name is 201 characters; at most 200");
}

TEST(PusherApiEvents, RefusalsAre400WithAReason) {
  for (const auto& [body, why] : std::vector<std::pair<std::string, std::string>>{
           {"not json", "body: invalid JSON"},
           {"[]", "body: expected a JSON object"},
           {R"({"name":"n","name":"m","data":"d","channel":"c"})",
            "body: the key \"name\" is given twice"},
           {R"({"data":"d","channel":"c"})", "Missing parameter: name"},
           {R"({"name":"n","channel":"c"})", "Missing parameter: data"},
           {R"({"name":"n","data":{"a":1},"channel":"c"})", "data must be a string"},
           {R"({"name":"n","data":"d"})", "Missing parameter: channels"},
           {R"({"name":"n","data":"d","channel":"c","channels":["c"]})",
            "give either channels or channel, not both"},
           {R"({"name":"n","data":"d","channels":[]})", "channels must be a non-empty array"},
           {R"({"name":"n","data":"d","channels":[1]})", "a channel must be a string"},
           {R"({"name":"n","data":"d","channel":"a b"})",
            "channel name 'a b' has a character outside [A-Za-z0-9_\\-=@,.;]"},
           {R"({"name":"n","data":"d","channel":"#server-to-user-"})", "user id is empty"},
           {R"({"name":"n","data":"d","channel":"c","socket_id":"12"})",
            "socket_id '12' is not of the form digits.digits"},
           {R"({"name":"n","data":"d","channel":"c","info":"members"})",
            "info: unknown attribute 'members' (user_count, subscription_count)"},
       }) {
    const auto refused = refusal_of(parse_event_body(body));
    EXPECT_EQ(refused.status, 400) << body;
    EXPECT_EQ(refused.body, why) << body;
  }
}

TEST(PusherApiEvents, ABatchOfUpToTenEventsEachOnOneChannel) {
  const auto batch = parse_batch_body(
      R"({"batch":[{"channel":"a","name":"x","data":"1"},)"
      R"({"channel":"presence-b","name":"y","data":"2","info":"user_count","socket_id":"3.4"}]})");
  ASSERT_TRUE(std::holds_alternative<std::vector<api_event>>(batch))
      << std::get<api_refusal>(batch).body;
  const auto& events = std::get<std::vector<api_event>>(batch);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[1].channels, std::vector<std::string>{"presence-b"});
  EXPECT_TRUE(events[1].user_count);
  EXPECT_EQ(events[1].socket_id, "3.4");

  auto refused = [](const std::string& body) {
    const auto result = parse_batch_body(body);
    if (const auto* r = std::get_if<api_refusal>(&result)) return *r;
    ADD_FAILURE() << body << " accepted";
    return api_refusal{};
  };
  std::string eleven = R"({"batch":[)";
  for (int i = 0; i < 11; ++i)
    eleven += std::string(i ? "," : "") + R"({"channel":"a","name":"x","data":"1"})";
  EXPECT_EQ(refused(eleven + "]}").body, "batch: 11 events; at most 10");
  EXPECT_EQ(refused(R"({"batch":[]})").body, "batch must be a non-empty array");
  EXPECT_EQ(
      refused(R"({"batch":[{"channel":"a","name":"x","data":"1"},{"name":"x","data":"1"}]})").body,
      "batch[1]: Missing parameter: channel");
  EXPECT_EQ(refused(R"({"batch":[{"channels":["a"],"name":"x","data":"1"}]})").body,
            "batch[0]: Missing parameter: channel");
  const auto big = refused(R"({"batch":[{"channel":"a","name":"x","data":")" +
                           std::string(10241, 'd') + "\"}]}");
  EXPECT_EQ(big.status, 413);
  EXPECT_EQ(big.body, "batch[0]: data is 10241 bytes; at most 10240");
}

}  // namespace
}  // namespace ringcast::pusher
