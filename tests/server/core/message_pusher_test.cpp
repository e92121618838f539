// A message as the Pusher door sends it: its frame (data a string whatever the publish gave,
// event name or its default, the sender of a client event), built once and shared, and who is
// excluded from it.
#include "core/message_pusher.hpp"

#include <string>

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include "core/handover_messages.hpp"
#include "protocol/ws_codec.hpp"

namespace ringcast {
namespace {

namespace json = boost::json;

json::object frame_object(const message& m) {
  return json::parse(pusher_event_frame(m)).as_object();
}

message_ptr on_channel(std::string_view channel, std::string_view data_json, pusher_shape p = {}) {
  return make_message(7, 1'700'000'000'000, {audience::channel, std::string(channel)}, data_json, 0,
                      std::chrono::milliseconds{0}, false, std::move(p));
}

TEST(MessagePusher, ObjectDataIsSentAsItsJsonText) {
  const auto m = on_channel("sale", R"({"price":9,"tags":["a"]})");
  const auto f = frame_object(*m);
  EXPECT_EQ(f.at("event"), "message");  // the default of a publish without "event"
  EXPECT_EQ(f.at("channel"), "sale");
  ASSERT_TRUE(f.at("data").is_string());
  EXPECT_EQ(f.at("data").as_string(), R"({"price":9,"tags":["a"]})");
  EXPECT_FALSE(f.contains("user_id"));
}

TEST(MessagePusher, StringDataIsSentAsTheStringItself) {
  // A Pusher API event's data is a string: a Pusher client gets that string back, not quoted twice.
  const auto m = on_channel("private-chat", R"("{\"a\":1}")", {R"(App\Events\Sent)", "", ""});
  const auto f = frame_object(*m);
  EXPECT_EQ(f.at("event"), R"(App\Events\Sent)");
  EXPECT_EQ(f.at("data").as_string(), R"({"a":1})");
  EXPECT_EQ(frame_object(*on_channel("c", R"("plain")")).at("data").as_string(), "plain");
  EXPECT_EQ(frame_object(*on_channel("c", "null")).at("data").as_string(), "null");
}

TEST(MessagePusher, ClientEventCarriesItsSender) {
  const auto m = on_channel("presence-room", R"("hi")",
                            {.event = "client-typing", .except_socket = "1.2", .user_id = "u7"});
  EXPECT_EQ(frame_object(*m).at("user_id"), "u7");
}

TEST(MessagePusher, ChannelNameIsEscapedInBothEnvelopes) {
  // The server-to-user channel takes any user id; neither envelope may break on it.
  const auto m = on_channel("#server-to-user-a\"b\\c", "1");
  EXPECT_EQ(json::parse(m->json).as_object().at("channel"), "#server-to-user-a\"b\\c");
  EXPECT_EQ(frame_object(*m).at("channel"), "#server-to-user-a\"b\\c");
}

TEST(MessagePusher, FrameIsBuiltOnceAndShared) {
  const auto m = on_channel("sale", "[1,2]");
  const std::string& first = pusher_ws_frame(*m);
  EXPECT_EQ(&first, &pusher_ws_frame(*m));
  const std::string_view text = pusher_event_frame(*m);
  EXPECT_EQ(first, std::string(ws::text_frame_header(text.size()).view()) + std::string(text));
  EXPECT_EQ(text.data(), first.data() + (first.size() - text.size()));  // no second copy
}

TEST(MessagePusher, SenderIsExcludedAndOnlyChannelMessagesGo) {
  const auto m = on_channel("sale", "1", {"", "123.456", ""});
  EXPECT_FALSE(pusher_receives(*m, "123.456"));
  EXPECT_TRUE(pusher_receives(*m, "123.457"));
  EXPECT_TRUE(pusher_receives(*on_channel("sale", "1"), "1.1"));
  EXPECT_FALSE(pusher_receives(*make_message(8, 1, {}, "1"), "1.1"));  // a broadcast
  EXPECT_FALSE(pusher_receives(*make_message(9, 1, {audience::user, "u"}, "1"), "1.1"));
  EXPECT_FALSE(pusher_receives(*make_expired_notice(7, 9), "1.1"));
}

TEST(MessagePusher, ShapeSurvivesTheHandover) {
  handover_messages held;
  held[7] = on_channel("presence-r", R"("x")",
                       {.event = "client-e", .except_socket = "4.5", .user_id = "u"});
  const auto restored = restore_messages(capture_messages(held)).at(7);
  EXPECT_EQ(restored->pusher_event, "client-e");
  EXPECT_EQ(restored->pusher_except_socket, "4.5");
  EXPECT_EQ(pusher_event_frame(*restored), pusher_event_frame(*held[7]));
}

}  // namespace
}  // namespace ringcast
