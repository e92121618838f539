#include "protocol/admin_request.hpp"
#include "protocol/messages_query.hpp"

#include <string>

#include <gtest/gtest.h>

namespace ringcast {
namespace {

publish_request publish_ok(std::string_view body) {
  auto r = parse_publish_request(body);
  EXPECT_TRUE(r) << body << ": " << r.error;
  return r.value.value_or(publish_request{});
}

std::string publish_error(std::string_view body) {
  auto r = parse_publish_request(body);
  EXPECT_FALSE(r) << "accepted " << body;
  return r.error;
}

std::string kick_error(std::string_view body) {
  auto r = parse_kick_request(body);
  EXPECT_FALSE(r) << "accepted " << body;
  return r.error;
}

TEST(ParsePublishRequest, Broadcast) {
  const auto r = publish_ok(R"({"data":{"sale":"20%","items":[1,2]}})");
  EXPECT_EQ(r.data_json, R"({"sale":"20%","items":[1,2]})");
  EXPECT_EQ(r.channel, std::nullopt);
  EXPECT_EQ(r.user, std::nullopt);
}

TEST(ParsePublishRequest, SpreadIsADurationUpToTheLimit) {
  using std::chrono::milliseconds;
  EXPECT_EQ(publish_ok(R"({"data":1})").spread, milliseconds(0));
  EXPECT_EQ(publish_ok(R"({"data":1,"spread":"30s"})").spread, milliseconds(30'000));
  EXPECT_EQ(publish_ok(R"({"data":1,"spread":"500ms","channel":"news"})").spread,
            milliseconds(500));
  EXPECT_EQ(publish_ok(R"({"data":1,"spread":"0"})").spread, milliseconds(0));
  EXPECT_EQ(publish_ok(R"({"data":1,"spread":"10m"})").spread, milliseconds(600'000));
  EXPECT_EQ(publish_error(R"({"data":1,"spread":"11m"})"), "spread: at most 10m (--max-spread)");
  auto tighter = parse_publish_request(R"({"data":1,"spread":"2s"})", milliseconds(1000));
  ASSERT_FALSE(tighter);
  EXPECT_EQ(tighter.error, "spread: at most 1s (--max-spread)");
  for (const char* bad : {R"({"data":1,"spread":"-5s"})", R"({"data":1,"spread":"soon"})",
                          R"({"data":1,"spread":"5 s"})", R"({"data":1,"spread":""})"}) {
    EXPECT_EQ(publish_error(bad).rfind("spread: expected a duration", 0), 0u) << bad;
  }
  for (const char* bad : {R"({"data":1,"spread":30})", R"({"data":1,"spread":null})",
                          R"({"data":1,"spread":["30s"]})"}) {
    EXPECT_EQ(publish_error(bad).rfind("spread: a duration string", 0), 0u) << bad;
  }
}

TEST(ParsePublishRequest, StickyIsABoolean) {
  EXPECT_FALSE(publish_ok(R"({"data":1})").sticky);
  EXPECT_TRUE(publish_ok(R"({"data":1,"sticky":true})").sticky);
  EXPECT_FALSE(publish_ok(R"({"data":1,"sticky":false})").sticky);
  const auto all = publish_ok(R"({"data":1,"sticky":true,"ttl":"2h","spread":"30s","user":"a"})");
  EXPECT_TRUE(all.sticky);
  EXPECT_EQ(all.spread, std::chrono::milliseconds(30'000));
  for (const char* bad : {R"({"data":1,"sticky":"true"})", R"({"data":1,"sticky":1})",
                          R"({"data":1,"sticky":null})"}) {
    EXPECT_EQ(publish_error(bad), "sticky: true or false") << bad;
  }
}

// The Pusher door's event name: optional, 1-200 characters; never an except_socket from a body.
TEST(ParsePublishRequest, EventNamesThePusherEvent) {
  EXPECT_EQ(publish_ok(R"({"data":1})").event, "");
  EXPECT_EQ(publish_ok(R"({"data":1,"event":"App\\Events\\Sale"})").event, "App\\Events\\Sale");
  EXPECT_EQ(publish_ok(R"({"data":1,"event":")" + std::string(200, 'e') + "\"}").event.size(),
            200U);
  EXPECT_EQ(publish_ok(R"({"data":1,"event":"x"})").except_socket, "");
  for (const std::string& bad :
       {std::string(R"({"data":1,"event":""})"), std::string(R"({"data":1,"event":1})"),
        std::string(R"({"data":1,"event":null})"),
        R"({"data":1,"event":")" + std::string(201, 'e') + "\"}"}) {
    EXPECT_EQ(publish_error(bad), "event: a string of 1-200 characters (the Pusher event name)")
        << bad;
  }
}

TEST(ParsePublishRequest, DataIsReserializedCompactly) {
  EXPECT_EQ(publish_ok(R"( { "data" : [ 1 , "a\u0041" , true ] } )").data_json, R"([1,"aA",true])");
}

TEST(ParsePublishRequest, DataMayBeAnyJsonValue) {
  EXPECT_EQ(publish_ok(R"({"data":null})").data_json, "null");
  EXPECT_EQ(publish_ok(R"({"data":0})").data_json, "0");
  EXPECT_EQ(publish_ok(R"({"data":-1.5})").data_json, "-1.5E0");
  EXPECT_EQ(publish_ok(R"({"data":"hi"})").data_json, R"("hi")");
  EXPECT_EQ(publish_ok(R"({"data":false})").data_json, "false");
  EXPECT_EQ(publish_ok(R"({"data":[]})").data_json, "[]");
  EXPECT_EQ(publish_ok(R"({"data":{}})").data_json, "{}");
}

TEST(ParsePublishRequest, NumbersBeyondDoubleAreRefused) {
  // They would otherwise be re-serialized as "Infinity", which clients cannot parse.
  EXPECT_EQ(publish_error(R"({"data":1e400})"), "data: number out of range");
  EXPECT_EQ(publish_error(R"({"data":-1e400})"), "data: number out of range");
  EXPECT_EQ(publish_error(R"({"data":{"a":[1,{"b":[2e999]}]}})"), "data: number out of range");
  EXPECT_EQ(publish_ok(R"({"data":1e300})").data_json, "1E300");
  // Integers beyond 64 bits become (finite) doubles.
  EXPECT_EQ(publish_ok(R"({"data":18446744073709551616})").data_json, "1.8446744073709552E19");
}

TEST(ParsePublishRequest, AKeyGivenTwiceIsRefusedAtAnyDepth) {
  // Boost.JSON would keep the last one: {"ttl":"1h","ttl":"2h"} would read as 2 hours.
  EXPECT_EQ(publish_error(R"({"data":1,"ttl":"1h","ttl":"2h"})"), "the key \"ttl\" is given twice");
  EXPECT_EQ(publish_error(R"({"data":{"a":1,"b":[{"c":1,"c":2}]}})"),
            "the key \"c\" is given twice");
  EXPECT_EQ(publish_error(R"({"data":1,"da\u0074a":2})"), "the key \"data\" is given twice");
  EXPECT_EQ(kick_error(R"({"user":"a","user":"b"})"), "the key \"user\" is given twice");
  // The same key in two objects, or in an object and its parent, is no duplicate.
  EXPECT_EQ(publish_ok(R"({"data":{"data":{"x":1},"y":{"x":2}}})").data_json,
            R"({"data":{"x":1},"y":{"x":2}})");
}

TEST(ParsePublishRequest, ChannelOrUser) {
  const auto to_channel = publish_ok(R"({"data":1,"channel":"news:eu"})");
  EXPECT_EQ(to_channel.channel, "news:eu");
  EXPECT_EQ(to_channel.user, std::nullopt);
  const auto to_user = publish_ok(R"({"user":"alice@example.com","data":1})");
  EXPECT_EQ(to_user.user, "alice@example.com");
  EXPECT_EQ(to_user.channel, std::nullopt);
  EXPECT_EQ(publish_error(R"({"data":1,"channel":"a","user":"b"})"),
            "give one of channel, user and users");
}

TEST(ParsePublishRequest, UsersAreSortedWithoutDuplicates) {
  const auto r = publish_ok(R"({"data":1,"users":["carol","alice","bob","alice"]})");
  ASSERT_TRUE(r.users);
  EXPECT_EQ(*r.users, (std::vector<std::string>{"alice", "bob", "carol"}));
  EXPECT_EQ(r.user, std::nullopt);
  EXPECT_EQ(r.channel, std::nullopt);
}

TEST(ParsePublishRequest, UsersErrors) {
  const std::string list_rule = "users: an array of 1-1000 user ids";
  EXPECT_EQ(publish_error(R"({"data":1,"users":[]})"), list_rule);
  EXPECT_EQ(publish_error(R"({"data":1,"users":"alice"})"), list_rule);
  EXPECT_EQ(publish_error(R"({"data":1,"users":null})"), list_rule);
  std::string thousand = R"({"data":1,"users":[)";
  for (int i = 0; i < 1000; ++i)
    thousand += (i ? ",\"u" : "\"u") + std::to_string(i) + "\"";
  EXPECT_EQ(publish_ok(thousand + "]}").users->size(), 1000u);
  EXPECT_EQ(publish_error(thousand + R"(,"u1000"]})"), list_rule);
  const std::string each_rule = "users: each 1-64 characters of [A-Za-z0-9_.:@-]";
  EXPECT_EQ(publish_error(R"({"data":1,"users":["a",""]})"), each_rule);
  EXPECT_EQ(publish_error(R"({"data":1,"users":["a",7]})"), each_rule);
  EXPECT_EQ(publish_error(R"({"data":1,"users":["a b"]})"), each_rule);
  EXPECT_EQ(publish_error(R"({"data":1,"users":["a"],"user":"b"})"),
            "give one of channel, user and users");
  EXPECT_EQ(publish_error(R"({"data":1,"users":["a"],"channel":"b"})"),
            "give one of channel, user and users");
}

TEST(ParsePublishRequest, AtDelayAndTtl) {
  const auto at = publish_ok(R"({"data":1,"at":1800000000000})");
  EXPECT_EQ(at.at_ms, 1'800'000'000'000);
  EXPECT_EQ(at.delay, std::nullopt);
  const auto delay = publish_ok(R"({"data":1,"delay":"90s","ttl":"2h"})");
  EXPECT_EQ(delay.delay, std::chrono::milliseconds{90'000});
  EXPECT_EQ(delay.ttl, std::chrono::milliseconds{7'200'000});
  EXPECT_EQ(delay.at_ms, std::nullopt);
  EXPECT_EQ(publish_ok(R"({"data":1})").ttl, std::nullopt);
}

TEST(ParsePublishRequest, AtDelayAndTtlErrors) {
  const std::string at_rule = "at: an integer, milliseconds since the Unix epoch";
  EXPECT_EQ(publish_error(R"({"data":1,"at":-1})"), at_rule);
  EXPECT_EQ(publish_error(R"({"data":1,"at":1.8e12})"), at_rule);
  EXPECT_EQ(publish_error(R"({"data":1,"at":"1800000000000"})"), at_rule);
  EXPECT_EQ(publish_error(R"({"data":1,"at":18446744073709551615})"), at_rule);
  EXPECT_EQ(publish_error(R"({"data":1,"at":1,"delay":"1s"})"), "give at or delay, not both");
  EXPECT_EQ(publish_error(R"({"data":1,"delay":90})"),
            R"(delay: a duration string like "90s" or "2h")");
  EXPECT_EQ(publish_error(R"({"data":1,"delay":"soon"})"),
            "delay: expected a duration like 25, 25s, 500ms or 2m, got 'soon'");
  EXPECT_EQ(publish_error(R"({"data":1,"delay":"8785h"})"), "delay: at most 366 days");
  EXPECT_EQ(publish_error(R"({"data":1,"ttl":"0"})"), "ttl: more than 0");
  EXPECT_EQ(publish_error(R"({"data":1,"ttl":"9999999h"})"), "ttl: at most 366 days");
}

TEST(PublishTime, NowPastFutureAndTooFar) {
  const std::int64_t now = 1'800'000'000'000;
  auto when = [&](std::string_view body) { return publish_time(publish_ok(body), now); };
  EXPECT_EQ(*when(R"({"data":1})").value, std::nullopt);
  EXPECT_EQ(*when(R"({"data":1,"at":1})").value, std::nullopt);              // past: at once
  EXPECT_EQ(*when(R"({"data":1,"at":1800000000000})").value, std::nullopt);  // now: at once
  EXPECT_EQ(*when(R"({"data":1,"at":1800000000001})").value, now + 1);
  EXPECT_EQ(*when(R"({"data":1,"delay":"90s"})").value, now + 90'000);
  EXPECT_EQ(*when(R"({"data":1,"delay":"0"})").value, std::nullopt);
  const auto too_far = when(R"({"data":1,"at":9000000000000000})");
  EXPECT_FALSE(too_far);
  EXPECT_EQ(too_far.error, "at: at most 366 days from now");
}

TEST(ParsePublishRequest, Errors) {
  const std::string data_required = "data: required (any JSON value, null included)";
  EXPECT_EQ(publish_error(R"({})"), data_required);
  EXPECT_EQ(publish_error(R"({"channel":"a"})"), data_required);
  // A misspelt "data" is named, not reported as missing.
  EXPECT_EQ(publish_error(R"({"Data":1})").substr(0, 20), "unknown field \"Data\"");
  EXPECT_EQ(publish_error(""), "invalid JSON");
  EXPECT_EQ(publish_error(R"({"data":1)"), "invalid JSON");
  EXPECT_EQ(publish_error(R"({"data":1} trailing)"), "invalid JSON");
  EXPECT_EQ(publish_error(R"([{"data":1}])"), "expected a JSON object");
  EXPECT_EQ(publish_error("null"), "expected a JSON object");

  const std::string channel_rule = "channel: 1-64 characters of [A-Za-z0-9_.:@-]";
  EXPECT_EQ(publish_error(R"({"data":1,"channel":""})"), channel_rule);
  EXPECT_EQ(publish_error(R"({"data":1,"channel":null})"), channel_rule);
  EXPECT_EQ(publish_error(R"({"data":1,"channel":7})"), channel_rule);
  EXPECT_EQ(publish_error(R"({"data":1,"channel":["a"]})"), channel_rule);
  EXPECT_EQ(publish_error(R"({"data":1,"channel":"a b"})"), channel_rule);
  EXPECT_EQ(publish_error(R"({"data":1,"channel":")" + std::string(65, 'c') + "\"}"), channel_rule);
  EXPECT_EQ(publish_ok(R"({"data":1,"channel":")" + std::string(64, 'c') + "\"}").channel,
            std::string(64, 'c'));
  EXPECT_EQ(publish_error(R"({"data":1,"user":"*"})"), "user: 1-64 characters of [A-Za-z0-9_.:@-]");
}

TEST(ParsePublishRequest, UnknownFieldIsRefusedByName) {
  const std::string known =
      " (known fields: data, channel, user, users, at, delay, ttl, spread, sticky, event)";
  EXPECT_EQ(publish_error(R"({"data":{"x":1},"chanel":"vip"})"),
            "unknown field \"chanel\"" + known);
  EXPECT_EQ(publish_error(R"({"usres":["a"],"data":1})"), "unknown field \"usres\"" + known);
  EXPECT_EQ(publish_error(R"({"data":1,"channel":"vip","Channel":"x"})"),
            "unknown field \"Channel\"" + known);
  // Fields inside "data" are the publisher's own.
  EXPECT_EQ(publish_ok(R"({"data":{"chanel":1}})").data_json, R"({"chanel":1})");
}

TEST(ParsePublishRequest, StoredRequestsMayCarryUnknownFields) {
  const auto r = parse_publish_request(R"({"data":1,"channel":"vip","note":"from v2"})",
                                       default_max_spread, unknown_fields::ignore);
  ASSERT_TRUE(r) << r.error;
  EXPECT_EQ(r.value->channel, "vip");
}

TEST(ParseKickRequest, User) {
  const auto r = parse_kick_request(R"({"user":"alice"})");
  ASSERT_TRUE(r) << r.error;
  EXPECT_EQ(r.value->user, "alice");
}

TEST(ParseKickRequest, UnknownFieldIsRefusedByName) {
  EXPECT_EQ(kick_error(R"({"user":"alice","why":"spam"})"),
            "unknown field \"why\" (known fields: user)");
  EXPECT_EQ(kick_error(R"({"usr":"alice"})"), "unknown field \"usr\" (known fields: user)");
}

TEST(ParseKickRequest, Errors) {
  EXPECT_EQ(kick_error(R"({})"), "user: required, 1-64 characters of [A-Za-z0-9_.:@-]");
  EXPECT_EQ(kick_error(R"({"user":""})"), "user: 1-64 characters of [A-Za-z0-9_.:@-]");
  EXPECT_EQ(kick_error(R"({"user":1})"), "user: 1-64 characters of [A-Za-z0-9_.:@-]");
  EXPECT_EQ(kick_error(R"({"user":"a/b"})"), "user: 1-64 characters of [A-Za-z0-9_.:@-]");
  EXPECT_EQ(kick_error("user=alice"), "invalid JSON");
  EXPECT_EQ(kick_error(R"("alice")"), "expected a JSON object");
}

TEST(MessagesQuery, LimitIsOptionalFromOneToAHundred) {
  EXPECT_EQ(parse_messages_query("/admin/messages").value, default_recent_messages);
  EXPECT_EQ(parse_messages_query("/admin/messages?limit=1").value, 1u);
  EXPECT_EQ(parse_messages_query("/admin/messages?limit=100").value, 100u);
  for (const char* bad :
       {"/admin/messages?limit=0", "/admin/messages?limit=101",
        "/admin/messages?limit=", "/admin/messages?limit=3x", "/admin/messages?limit=-1"}) {
    const auto r = parse_messages_query(bad);
    EXPECT_FALSE(r.value) << bad;
    EXPECT_EQ(r.error, "limit: expected a whole number from 1 to 100") << bad;
  }
  EXPECT_EQ(parse_messages_query("/admin/messages?top=3").error,
            "unknown parameter 'top'; expected limit");
}

}  // namespace
}  // namespace ringcast
