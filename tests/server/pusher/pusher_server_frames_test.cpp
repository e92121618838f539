// The frames the server sends a Pusher client (server/pusher/pusher_server_frames): the exact
// text, and `data` double encoded as pusher-js's decodeMessage reads it (the frame parsed, then a
// string `data` parsed again). pusher_sdk_check_test feeds these frames to pusher-js itself.
#include "pusher/pusher_server_frames.hpp"

#include <string>

#include <gtest/gtest.h>
#include <boost/json.hpp>

namespace ringcast::pusher {
namespace {

namespace json = boost::json;

// decodeMessage's reading: the frame, with a string `data` replaced by what it holds.
json::object decoded(const std::string& frame) {
  json::object out = json::parse(frame).as_object();
  if (auto* data = out.if_contains("data"); data && data->is_string())
    *data = json::parse(data->get_string());
  return out;
}

TEST(PusherServerFrames, ConnectionEstablishedHoldsItsDataAsAString) {
  const std::string frame = connection_established("123.456", 120);
  EXPECT_EQ(frame, R"({"event":"pusher:connection_established",)"
                   R"("data":"{\"socket_id\":\"123.456\",\"activity_timeout\":120}"})");
  EXPECT_EQ(decoded(frame).at("data"),
            (json::object{{"socket_id", "123.456"}, {"activity_timeout", 120}}));
}

TEST(PusherServerFrames, ErrorPingAndPongCarryObjects) {
  EXPECT_EQ(error_frame(4001, "App key nope not in this cluster"),
            R"({"event":"pusher:error","data":{"code":4001,)"
            R"("message":"App key nope not in this cluster"}})");
  EXPECT_EQ(error_frame(std::nullopt, "client events are off"),
            R"({"event":"pusher:error","data":{"code":null,"message":"client events are off"}})");
  EXPECT_EQ(ping_frame_text(), R"({"event":"pusher:ping","data":{}})");
  EXPECT_EQ(pong_frame_text(), R"({"event":"pusher:pong","data":{}})");
}

TEST(PusherServerFrames, SubscriptionSucceededPublicAndPresence) {
  EXPECT_EQ(subscription_succeeded("orders"),
            R"({"event":"pusher_internal:subscription_succeeded","channel":"orders","data":"{}"})");
  const std::string frame = presence_subscription_succeeded(
      "presence-room", {{"10", json::parse(R"({"name":"Ann"})")}, {"u2", nullptr}});
  EXPECT_EQ(frame, R"({"event":"pusher_internal:subscription_succeeded","channel":"presence-room",)"
                   R"("data":"{\"presence\":{\"ids\":[\"10\",\"u2\"],)"
                   R"(\"hash\":{\"10\":{\"name\":\"Ann\"},\"u2\":null},\"count\":2}}"})");
  EXPECT_EQ(decoded(frame).at("data").at("presence").at("count"), 2);
  EXPECT_EQ(decoded(presence_subscription_succeeded("presence-room", {})).at("data").at("presence"),
            (json::object{{"ids", json::array{}}, {"hash", json::object{}}, {"count", 0}}));
}

TEST(PusherServerFrames, SubscriptionErrorOnItsChannel) {
  const std::string frame =
      subscription_error("private-x", {"AuthError", "invalid signature", 401});
  EXPECT_EQ(frame,
            R"({"event":"pusher:subscription_error","channel":"private-x",)"
            R"("data":"{\"type\":\"AuthError\",\"error\":\"invalid signature\",\"status\":401}"})");
}

TEST(PusherServerFrames, MembersCacheMissAndSignin) {
  EXPECT_EQ(member_added("presence-r", {"7", json::parse(R"({"n":"A \"q\""})")}),
            R"({"event":"pusher_internal:member_added","channel":"presence-r",)"
            R"("data":"{\"user_id\":\"7\",\"user_info\":{\"n\":\"A \\\"q\\\"\"}}"})");
  EXPECT_EQ(member_removed("presence-r", "7"),
            R"({"event":"pusher_internal:member_removed","channel":"presence-r",)"
            R"("data":"{\"user_id\":\"7\"}"})");
  EXPECT_EQ(cache_miss("cache-x"), R"({"event":"pusher:cache_miss","channel":"cache-x"})");
  // pusher-js JSON.parses data.user_data once more: a string in a string in a string.
  const std::string signin = signin_success(R"({"id":"7"})");
  EXPECT_EQ(
      signin,
      R"({"event":"pusher:signin_success","data":"{\"user_data\":\"{\\\"id\\\":\\\"7\\\"}\"}"})");
  EXPECT_EQ(json::parse(decoded(signin).at("data").at("user_data").as_string()),
            (json::object{{"id", "7"}}));
}

TEST(PusherServerFrames, EventsRelayTheirDataStringUntouched) {
  // The HTTP API's data is already a string (the SDK JSON.stringifies objects): sent as a
  // string, never parsed or re-encoded.
  EXPECT_EQ(channel_event("App\\Events\\OrderShipped", "orders", R"({"id":1})"),
            R"({"event":"App\\Events\\OrderShipped","channel":"orders","data":"{\"id\":1}"})");
  EXPECT_EQ(channel_event("plain", "orders", "not json"),
            R"({"event":"plain","channel":"orders","data":"not json"})");
  EXPECT_EQ(channel_event("client-typing", "presence-r", R"({"on":true})", "10"),
            R"({"event":"client-typing","channel":"presence-r","data":"{\"on\":true}",)"
            R"("user_id":"10"})");
  EXPECT_EQ(channel_event("client-x", "private-c", std::nullopt),
            R"({"event":"client-x","channel":"private-c"})");
}

}  // namespace
}  // namespace ringcast::pusher
