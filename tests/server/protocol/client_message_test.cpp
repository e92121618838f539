#include "protocol/client_message.hpp"

#include <string>

#include <gtest/gtest.h>

namespace ringcast {
namespace {

client_message parse_ok(std::string_view text) {
  auto m = parse_client_message(text);
  EXPECT_TRUE(m) << text << ": " << m.error;
  return m.value.value_or(client_message{});
}

std::string parse_error(std::string_view text) {
  auto m = parse_client_message(text);
  EXPECT_FALSE(m) << "accepted " << text;
  return m.error;
}

std::uint64_t ack_id(std::string_view text) {
  const auto m = parse_ok(text);
  EXPECT_TRUE(std::holds_alternative<ack_message>(m)) << text;
  return std::holds_alternative<ack_message>(m) ? std::get<ack_message>(m).id : 0;
}

const std::string bad_type = R"(type: expected "ping", "ack", "subscribe" or "unsubscribe")";
const std::string bad_channels =
    "channels: an array of names, each 1-64 characters of [A-Za-z0-9_.:@-]";

TEST(ParseClientMessage, Ping) {
  EXPECT_TRUE(std::holds_alternative<ping_message>(parse_ok(R"({"type":"ping"})")));
  // Extra fields are ignored, whitespace is JSON's business.
  EXPECT_TRUE(std::holds_alternative<ping_message>(parse_ok(R"( { "x": [1], "type" : "ping" } )")));
}

TEST(ParseClientMessage, AckIds) {
  EXPECT_EQ(ack_id(R"({"type":"ack","id":0})"), 0u);
  EXPECT_EQ(ack_id(R"({"type":"ack","id":42})"), 42u);
  EXPECT_EQ(ack_id(R"({"type":"ack","id":9223372036854775807})"), 9'223'372'036'854'775'807u);
  EXPECT_EQ(ack_id(R"({"type":"ack","id":18446744073709551615})"), 18'446'744'073'709'551'615u);
  // Integral numbers written as floating point are the same number.
  EXPECT_EQ(ack_id(R"({"type":"ack","id":42.0})"), 42u);
  EXPECT_EQ(ack_id(R"({"type":"ack","id":4.2e1})"), 42u);
}

TEST(ParseClientMessage, AckIdMustBeAnUnsignedInteger) {
  const std::string error = "id: expected an unsigned integer";
  for (std::string_view text :
       {R"({"type":"ack"})", R"({"type":"ack","id":-1})", R"({"type":"ack","id":1.5})",
        R"({"type":"ack","id":"42"})", R"({"type":"ack","id":null})", R"({"type":"ack","id":true})",
        R"({"type":"ack","id":[1]})", R"({"type":"ack","id":18446744073709551616})",
        R"({"type":"ack","id":1e30})"})
    EXPECT_EQ(parse_error(text), error) << text;
}

TEST(ParseClientMessage, Subscribe) {
  const auto m = parse_ok(R"({"type":"subscribe","channels":["news","sale:eu","news"]})");
  ASSERT_TRUE(std::holds_alternative<subscribe_message>(m));
  EXPECT_EQ(std::get<subscribe_message>(m).channels, (std::vector<std::string>{"news", "sale:eu"}));
  const auto empty = parse_ok(R"({"type":"subscribe","channels":[]})");
  ASSERT_TRUE(std::holds_alternative<subscribe_message>(empty));
  EXPECT_TRUE(std::get<subscribe_message>(empty).channels.empty());
}

TEST(ParseClientMessage, Unsubscribe) {
  const auto m = parse_ok(R"({"type":"unsubscribe","channels":["a"]})");
  ASSERT_TRUE(std::holds_alternative<unsubscribe_message>(m));
  EXPECT_EQ(std::get<unsubscribe_message>(m).channels, (std::vector<std::string>{"a"}));
}

TEST(ParseClientMessage, BadChannelLists) {
  for (std::string_view text :
       {R"({"type":"subscribe"})", R"({"type":"subscribe","channels":"a"})",
        R"({"type":"subscribe","channels":null})", R"({"type":"subscribe","channels":[1]})",
        R"({"type":"subscribe","channels":[""]})", R"({"type":"unsubscribe","channels":["a b"]})",
        R"({"type":"subscribe","channels":["ok",["nested"]]})"})
    EXPECT_EQ(parse_error(text), bad_channels) << text;
  const std::string long_name(65, 'c');
  EXPECT_EQ(parse_error(R"({"type":"subscribe","channels":[")" + long_name + "\"]}"), bad_channels);
}

TEST(ParseClientMessage, AtMost32Channels) {
  auto message = [](int count, std::string_view extra) {
    std::string text = R"({"type":"subscribe","channels":[)";
    for (int i = 0; i < count; ++i)
      text += (i ? ",\"c" : "\"c") + std::to_string(i) + "\"";
    return text + std::string{extra} + "]}";
  };
  EXPECT_EQ(std::get<subscribe_message>(parse_ok(message(32, ""))).channels.size(), 32u);
  EXPECT_EQ(std::get<subscribe_message>(parse_ok(message(32, R"(,"c0")"))).channels.size(), 32u);
  EXPECT_EQ(parse_error(message(33, "")), "channels: at most 32");
}

TEST(ParseClientMessage, NotAMessage) {
  EXPECT_EQ(parse_error(""), "invalid JSON");
  EXPECT_EQ(parse_error("{"), "invalid JSON");
  EXPECT_EQ(parse_error(R"({"type":"ping"} x)"), "invalid JSON");
  EXPECT_EQ(parse_error(R"({"type":"ping"}{"type":"ping"})"), "invalid JSON");
  EXPECT_EQ(parse_error("ping"), "invalid JSON");
  EXPECT_EQ(parse_error(R"("ping")"), "expected a JSON object");
  EXPECT_EQ(parse_error(R"([{"type":"ping"}])"), "expected a JSON object");
  EXPECT_EQ(parse_error("null"), "expected a JSON object");
}

TEST(ParseClientMessage, BadType) {
  for (std::string_view text : {R"({})", R"({"type":null})", R"({"type":1})", R"({"type":"PING"})",
                                R"({"type":"pong"})", R"({"type":["ping"]})", R"({"Type":"ping"})"})
    EXPECT_EQ(parse_error(text), bad_type) << text;
}

TEST(ParseClientMessage, DeepNestingIsRefusedNotCrashed) {
  const std::string deep =
      R"({"type":"ping","x":)" + std::string(10'000, '[') + std::string(10'000, ']') + "}";
  EXPECT_EQ(parse_error(deep), "invalid JSON");
}

}  // namespace
}  // namespace ringcast
