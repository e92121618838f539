// The frames a Pusher client sends (server/pusher/pusher_client_frame), as pusher-js writes them.
#include "pusher/pusher_client_frame.hpp"

#include <string>

#include <gtest/gtest.h>

#include "pusher/pusher_client_event.hpp"

namespace ringcast::pusher {
namespace {

template <class T>
T frame_as(std::string_view text) {
  const client_frame parsed = parse_client_frame(text);
  if (const auto* refused = std::get_if<frame_refusal>(&parsed))
    ADD_FAILURE() << text << " refused: " << refused->message;
  EXPECT_TRUE(std::holds_alternative<T>(parsed)) << text;
  return std::holds_alternative<T>(parsed) ? std::get<T>(parsed) : T{};
}

std::string refusal_of(std::string_view text) {
  const client_frame parsed = parse_client_frame(text);
  const auto* refused = std::get_if<frame_refusal>(&parsed);
  if (!refused) {
    ADD_FAILURE() << text << " was accepted";
    return {};
  }
  EXPECT_EQ(refused->code, std::nullopt) << text;  // a refusal that does not close: code null
  return refused->message;
}

TEST(PusherClientFrame, PingAndPongWithOrWithoutData) {
  frame_as<ping_frame>(R"({"event":"pusher:ping","data":{}})");
  frame_as<ping_frame>(R"({"event":"pusher:ping"})");
  frame_as<pong_frame>(R"({"event":"pusher:pong","data":{}})");
}

TEST(PusherClientFrame, SubscribeAsPusherJsSendsIt) {
  const auto pub = frame_as<subscribe_frame>(
      R"({"event":"pusher:subscribe","data":{"auth":"","channel":"orders"}})");
  EXPECT_EQ(pub.channel, "orders");
  EXPECT_EQ(pub.auth, "");
  EXPECT_EQ(pub.channel_data, std::nullopt);
  const auto presence = frame_as<subscribe_frame>(
      R"({"event":"pusher:subscribe","data":{"auth":"k:abc","channel_data":"{\"user_id\":1}",)"
      R"("channel":"presence-room"}})");
  EXPECT_EQ(presence.channel, "presence-room");
  EXPECT_EQ(presence.auth, "k:abc");
  EXPECT_EQ(presence.channel_data, R"({"user_id":1})");
  EXPECT_EQ(
      frame_as<unsubscribe_frame>(R"({"event":"pusher:unsubscribe","data":{"channel":"orders"}})")
          .channel,
      "orders");
}

TEST(PusherClientFrame, SigninCarriesAuthAndUserData) {
  const auto signin = frame_as<signin_frame>(
      R"({"event":"pusher:signin","data":{"auth":"k:s","user_data":"{\"id\":\"7\"}"}})");
  EXPECT_EQ(signin.auth, "k:s");
  EXPECT_EQ(signin.user_data, R"({"id":"7"})");
  EXPECT_EQ(refusal_of(R"({"event":"pusher:signin","data":{"auth":"k:s"}})"),
            "pusher:signin: data.auth and data.user_data are needed");
}

TEST(PusherClientFrame, ClientEventDataBecomesTheStringPusherJsParsesBack) {
  const auto object = frame_as<client_event_frame>(
      R"({"event":"client-typing","data":{"who":"ann","n":1},"channel":"private-chat"})");
  EXPECT_EQ(object.event, "client-typing");
  EXPECT_EQ(object.channel, "private-chat");
  EXPECT_EQ(object.data, R"({"who":"ann","n":1})");
  // A string is relayed as its text, not encoded once more.
  EXPECT_EQ(frame_as<client_event_frame>(
                R"({"event":"client-x","data":"{\"a\":1}","channel":"private-c"})")
                .data,
            R"({"a":1})");
  EXPECT_EQ(frame_as<client_event_frame>(R"({"event":"client-x","channel":"private-c"})").data,
            std::nullopt);
}

TEST(PusherClientFrame, RefusalsSayWhatIsWrong) {
  EXPECT_EQ(refusal_of("not json"), "frame refused: invalid JSON");
  EXPECT_EQ(refusal_of(R"({"event":"pusher:ping","event":"client-x","channel":"private-c"})"),
            "frame refused: the key \"event\" is given twice");
  EXPECT_EQ(refusal_of(R"({"event":"pusher:subscribe","data":{"channel":"a","channel":"b"}})"),
            "frame refused: the key \"channel\" is given twice");
  EXPECT_EQ(refusal_of("[1]"), "frame is not a JSON object");
  EXPECT_EQ(refusal_of(R"({"data":{}})"), "frame has no event name");
  EXPECT_EQ(refusal_of(R"({"event":7})"), "frame has no event name");
  EXPECT_EQ(refusal_of(R"({"event":"pusher:subscribe","data":"{\"channel\":\"a\"}"})"),
            "pusher:subscribe: data must be an object");
  EXPECT_EQ(refusal_of(R"({"event":"pusher:subscribe","data":{}})"),
            "pusher:subscribe: data.channel is missing");
  EXPECT_EQ(refusal_of(R"({"event":"pusher:subscribe","data":{"channel":5}})"),
            "pusher:subscribe: 'channel' must be a string");
  EXPECT_EQ(refusal_of(R"({"event":"pusher:unsubscribe","data":{"channel":["a"]}})"),
            "pusher:unsubscribe: 'channel' must be a string");
  EXPECT_EQ(refusal_of(R"({"event":"pusher:connection_established","data":{}})"),
            "unsupported event 'pusher:connection_established': a client sends pusher:ping, "
            "pusher:pong, pusher:subscribe, pusher:unsubscribe, pusher:signin or client-*");
  EXPECT_EQ(refusal_of(R"({"event":"typing","data":{},"channel":"private-c"})"),
            "unsupported event 'typing': a client sends pusher:ping, pusher:pong, "
            "pusher:subscribe, pusher:unsubscribe, pusher:signin or client-*");
  EXPECT_EQ(refusal_of(R"({"event":"client-x","data":{}})"),
            "client event 'client-x' has no channel");
  EXPECT_EQ(
      refusal_of(R"({"event":"client-)" + std::string(194, 'x') + R"(","channel":"private-c"})"),
      "event name is 201 characters; at most 200");
}

TEST(PusherClientFrame, AFrameOverTenKilobytesIsRefusedUnread) {
  const std::string head = R"({"event":"client-x","channel":"private-c","data":")";
  std::string fits = head + std::string(max_client_frame - head.size() - 2, 'a') + "\"}";
  ASSERT_EQ(fits.size(), max_client_frame);
  frame_as<client_event_frame>(fits);
  fits.insert(head.size(), "a");
  EXPECT_EQ(refusal_of(fits), "frame is 10241 bytes; at most 10240");
}

TEST(PusherClientEvent, OnlyWhenOnForSubscribersOfPrivateAndPresenceChannels) {
  const app on{"1", "k", "s", true}, off{"1", "k", "s", false};
  auto refusal = [](const app& a, const std::string& channel, bool subscribed) {
    const auto refused = check_client_event(a, {"client-typing", channel, "{}"}, subscribed);
    if (!refused) return std::string("allowed");
    EXPECT_EQ(refused->code, std::nullopt);
    return refused->message;
  };
  EXPECT_EQ(refusal(on, "private-chat", true), "allowed");
  EXPECT_EQ(refusal(on, "presence-room", true), "allowed");
  EXPECT_EQ(refusal(on, "private-cache-chat", true), "allowed");
  EXPECT_EQ(refusal(off, "private-chat", true),
            "client event 'client-typing' on 'private-chat' refused: client events are off "
            "(--pusher-client-events)");
  EXPECT_EQ(refusal(on, "chat", true),
            "client event 'client-typing' on 'chat' refused: client events are only supported on "
            "private and presence channels");
  EXPECT_EQ(refusal(on, "cache-chat", true),
            "client event 'client-typing' on 'cache-chat' refused: client events are only "
            "supported on private and presence channels");
  EXPECT_EQ(refusal(on, "private-encrypted-chat", true),
            "client event 'client-typing' on 'private-encrypted-chat' refused: client events are "
            "not supported on private-encrypted- channels");
  EXPECT_EQ(
      refusal(on, "private-chat", false),
      "client event 'client-typing' on 'private-chat' refused: not subscribed to the channel");
  EXPECT_EQ(refusal(on, "private chat", true),
            "client event 'client-typing' on 'private chat' refused: channel name 'private chat' "
            "has a character outside [A-Za-z0-9_\\-=@,.;]");
}

}  // namespace
}  // namespace ringcast::pusher
