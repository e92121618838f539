#include "core/envelope.hpp"

#include <string>
#include <vector>

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include "core/message.hpp"

namespace ringcast {
namespace {

namespace json = boost::json;

json::object parse_object(std::string_view text) {
  boost::system::error_code ec;
  json::value v = json::parse(text, ec);
  EXPECT_FALSE(ec) << "not JSON: " << text;
  EXPECT_TRUE(v.is_object()) << "not an object: " << text;
  return v.is_object() ? v.as_object() : json::object{};
}

// The object's keys, in order.
std::vector<std::string> keys_of(const json::object& o) {
  std::vector<std::string> keys;
  for (const auto& kv : o)
    keys.emplace_back(kv.key());
  return keys;
}

using keys = std::vector<std::string>;

constexpr ending every_ending[] = {
    ending::reconnect_timeout,   ending::reconnect_replaced, ending::reconnect_shutdown,
    ending::reconnect_rebalance, ending::close_idle,         ending::close_kicked,
    ending::close_replaced,      ending::close_slow,         ending::close_expired,
};

TEST(Envelope, ReasonsAreTheProtocolsWords) {
  EXPECT_EQ(reason_of(ending::reconnect_timeout), "timeout");
  EXPECT_EQ(reason_of(ending::reconnect_replaced), "replaced");
  EXPECT_EQ(reason_of(ending::reconnect_shutdown), "shutdown");
  EXPECT_EQ(reason_of(ending::reconnect_rebalance), "rebalance");
  EXPECT_EQ(reason_of(ending::close_idle), "idle");
  EXPECT_EQ(reason_of(ending::close_kicked), "kicked");
  EXPECT_EQ(reason_of(ending::close_replaced), "replaced");
  EXPECT_EQ(reason_of(ending::close_slow), "slow");
  EXPECT_EQ(reason_of(ending::close_expired), "expired");

  EXPECT_TRUE(is_reconnect(ending::reconnect_timeout));
  EXPECT_TRUE(is_reconnect(ending::reconnect_replaced));
  EXPECT_TRUE(is_reconnect(ending::reconnect_shutdown));
  EXPECT_TRUE(is_reconnect(ending::reconnect_rebalance));
  EXPECT_FALSE(is_reconnect(ending::close_idle));
  EXPECT_FALSE(is_reconnect(ending::close_kicked));
  EXPECT_FALSE(is_reconnect(ending::close_replaced));
  EXPECT_FALSE(is_reconnect(ending::close_slow));
  EXPECT_FALSE(is_reconnect(ending::close_expired));
}

TEST(Envelope, ReconnectCarriesReasonRetryAndLastId) {
  for (ending why : every_ending) {
    if (!is_reconnect(why)) continue;
    const ending_notice n = make_ending(why, 1234, 42);
    EXPECT_EQ(n.why, why);
    EXPECT_EQ(n.retry_ms, 1234u);
    const json::object o = parse_object(n.json);
    EXPECT_EQ(keys_of(o), (keys{"type", "reason", "retry_ms", "last_id"})) << n.json;
    EXPECT_EQ(o.at("type"), "reconnect");
    EXPECT_EQ(o.at("reason").as_string(), reason_of(why));
    EXPECT_EQ(o.at("retry_ms").to_number<std::uint64_t>(), 1234u);
    EXPECT_EQ(o.at("last_id").to_number<std::uint64_t>(), 42u);
  }
}

TEST(Envelope, LastIdKeepsAll64Bits) {
  const ending_notice n = make_ending(ending::reconnect_shutdown, 0, UINT64_MAX);
  const json::object o = parse_object(n.json);
  EXPECT_EQ(o.at("last_id").to_number<std::uint64_t>(), UINT64_MAX);
  EXPECT_EQ(o.at("retry_ms").to_number<std::uint64_t>(), 0u);
}

TEST(Envelope, CloseCarriesOnlyItsReason) {
  for (ending why : every_ending) {
    if (is_reconnect(why)) continue;
    const ending_notice n = make_ending(why, 999, 42);
    EXPECT_EQ(n.why, why);
    const json::object o = parse_object(n.json);
    EXPECT_EQ(keys_of(o), (keys{"type", "reason"})) << n.json;
    EXPECT_EQ(o.at("type"), "close");
    EXPECT_EQ(o.at("reason").as_string(), reason_of(why));
  }
}

TEST(Envelope, HelloHasEveryProtocolField) {
  const std::string text = hello_json({.user = "alice",
                                       .sid = "tab1",
                                       .resumed = true,
                                       .last_id = 41,
                                       .gap = false,
                                       .heartbeat_s = 25,
                                       .idle_timeout_s = 60,
                                       .session_ttl_s = 120});
  const json::object o = parse_object(text);
  EXPECT_EQ(keys_of(o), (keys{"type", "session", "resumed", "last_id", "gap", "heartbeat_s",
                              "idle_timeout_s", "session_ttl_s"}));
  EXPECT_EQ(o.at("type"), "hello");
  EXPECT_EQ(o.at("session"), "alice/tab1");
  EXPECT_EQ(o.at("resumed"), true);
  EXPECT_EQ(o.at("last_id").to_number<std::uint64_t>(), 41u);
  EXPECT_EQ(o.at("gap"), false);
  EXPECT_EQ(o.at("heartbeat_s").to_number<std::uint64_t>(), 25u);
  EXPECT_EQ(o.at("idle_timeout_s").to_number<std::uint64_t>(), 60u);
  EXPECT_EQ(o.at("session_ttl_s").to_number<std::uint64_t>(), 120u);

  const json::object other = parse_object(hello_json({.user = "u", .sid = "0", .gap = true}));
  EXPECT_EQ(other.at("resumed"), false);
  EXPECT_EQ(other.at("gap"), true);
  EXPECT_EQ(other.at("session"), "u/0");
}

TEST(Envelope, HelloAcceptsEveryIdentifierCharacter) {
  const json::object o = parse_object(hello_json({.user = "a_b.c:d@e-f", .sid = "Z9-x"}));
  EXPECT_EQ(o.at("session"), "a_b.c:d@e-f/Z9-x");
}

TEST(Envelope, Pong) {
  const json::object o = parse_object(pong_json());
  EXPECT_EQ(keys_of(o), (keys{"type"}));
  EXPECT_EQ(o.at("type"), "pong");
}

TEST(Envelope, ErrorEscapesItsMessage) {
  const std::string awkward = "bad \"quote\" \\ back\nslash \x01 é";
  const json::object o = parse_object(error_json("bad_request", awkward));
  EXPECT_EQ(keys_of(o), (keys{"type", "code", "message"}));
  EXPECT_EQ(o.at("type"), "error");
  EXPECT_EQ(o.at("code"), "bad_request");
  EXPECT_EQ(o.at("message").as_string(), awkward);
}

TEST(Envelope, MessagesReplyWrapsMessageEnvelopes) {
  const std::vector<message_ptr> two = {
      make_message(7, 1000, {audience::broadcast, ""}, R"({"a":1})"),
      make_message(9, 2000, {audience::channel, "news"}, R"([1,2])"),
  };
  json::object o = parse_object(messages_json(two, 9, true));
  EXPECT_EQ(keys_of(o), (keys{"type", "messages", "last_id", "gap"}));
  EXPECT_EQ(o.at("type"), "messages");
  EXPECT_EQ(o.at("last_id").to_number<std::uint64_t>(), 9u);
  EXPECT_EQ(o.at("gap"), true);
  const json::array& list = o.at("messages").as_array();
  ASSERT_EQ(list.size(), 2u);
  EXPECT_EQ(list[0].at("type"), "message");
  EXPECT_EQ(list[0].at("id").to_number<std::uint64_t>(), 7u);
  EXPECT_EQ(list[0].at("data"), json::parse(R"({"a":1})"));
  EXPECT_EQ(list[1].at("id").to_number<std::uint64_t>(), 9u);
  EXPECT_EQ(list[1].at("channel"), "news");
  EXPECT_EQ(list[1].at("data"), json::parse("[1,2]"));

  o = parse_object(messages_json({}, 3, false));
  EXPECT_TRUE(o.at("messages").as_array().empty());
  EXPECT_EQ(o.at("last_id").to_number<std::uint64_t>(), 3u);
  EXPECT_EQ(o.at("gap"), false);

  o = parse_object(messages_json({two[0]}, 7, false));
  EXPECT_EQ(o.at("messages").as_array().size(), 1u);
}

TEST(Envelope, SseEventFraming) {
  EXPECT_EQ(sse_event("hello", R"({"type":"hello"})"),
            "event: hello\ndata: {\"type\":\"hello\"}\n\n");
  EXPECT_EQ(sse_event("reconnect", R"({"x":1})", 1500),
            "event: reconnect\nretry: 1500\ndata: {\"x\":1}\n\n");
}

TEST(Message, EnvelopeOfEachAudience) {
  const auto b = make_message(42, 1763700000000, {audience::broadcast, ""}, R"({"price":9.5})");
  EXPECT_EQ(b->id, 42u);
  EXPECT_EQ(b->ts_ms, 1763700000000);
  EXPECT_EQ(b->to, audience::broadcast);
  EXPECT_EQ(b->target, "");
  json::object o = parse_object(b->json);
  EXPECT_EQ(keys_of(o), (keys{"type", "id", "channel", "ts", "data"}));
  EXPECT_EQ(o.at("type"), "message");
  EXPECT_EQ(o.at("id").to_number<std::uint64_t>(), 42u);
  EXPECT_EQ(o.at("channel"), "*");
  EXPECT_EQ(o.at("ts").to_number<std::int64_t>(), 1763700000000);
  EXPECT_EQ(o.at("data"), json::parse(R"({"price":9.5})"));

  const auto c = make_message(43, 5, {audience::channel, "news"}, R"("text")");
  EXPECT_EQ(c->to, audience::channel);
  EXPECT_EQ(c->target, "news");
  o = parse_object(c->json);
  EXPECT_EQ(o.at("channel"), "news");
  EXPECT_EQ(o.at("data"), "text");

  const auto u = make_message(44, 5, {audience::user, "alice"}, "null");
  EXPECT_EQ(u->to, audience::user);
  EXPECT_EQ(u->target, "alice");  // the user id, for addressing
  o = parse_object(u->json);
  EXPECT_EQ(o.at("channel"), "user:alice");  // the label the client sees
  EXPECT_TRUE(o.at("data").is_null());
}

TEST(Message, DataIsAnyJson) {
  for (std::string_view data :
       {"null", "true", "0", "-1.5e3", R"("s")", "[]", "{}", R"({"a":[1,{"b":null}],"c":"\n"})"}) {
    const auto m = make_message(1, 1, {audience::broadcast, ""}, data);
    const json::object o = parse_object(m->json);
    EXPECT_EQ(o.at("data"), json::parse(data)) << data;
  }
}

TEST(Message, SsePrefixMakesAWholeEvent) {
  const auto m = make_message(UINT64_MAX, 1, {audience::broadcast, ""}, R"({"a":1})");
  EXPECT_EQ(m->sse_prefix, "id: 18446744073709551615\nevent: message\ndata: ");
  const auto small = make_message(42, 1, {audience::channel, "c"}, "1");
  EXPECT_EQ(small->sse_prefix, "id: 42\nevent: message\ndata: ");
  // The frame is prefix + json + blank line; the JSON is one line, so it is one data field.
  EXPECT_EQ(small->json.find('\n'), std::string::npos);
  const std::string frame = small->sse_prefix + small->json + "\n\n";
  EXPECT_EQ(frame, "id: 42\nevent: message\ndata: " + small->json + "\n\n");
  EXPECT_EQ(parse_object(frame.substr(small->sse_prefix.size(), small->json.size())).at("id"), 42);
}

}  // namespace
}  // namespace ringcast
