#include "protocol/client_params.hpp"

#include <string>

#include <gtest/gtest.h>

namespace ringcast {
namespace {

client_params parse_ok(std::string_view target) {
  auto p = parse_client_params(target);
  EXPECT_TRUE(p) << target << ": " << p.error;
  return p.value.value_or(client_params{});
}

std::string parse_error(std::string_view target) {
  auto p = parse_client_params(target);
  EXPECT_FALSE(p) << "accepted " << target;
  return p.error;
}

std::string channel_list(int count) {
  std::string list;
  for (int i = 0; i < count; ++i)
    list += (i ? ",c" : "c") + std::to_string(i);
  return list;
}

const std::string user_rule = "user: 1-64 characters of [A-Za-z0-9_.:@-]";

TEST(ParseClientParams, RewindIsACountOrADurationWithAUnit) {
  const auto none = parse_ok("/ws?user=a");
  EXPECT_EQ(none.rewind_count, std::nullopt);
  EXPECT_EQ(none.rewind_for, std::nullopt);
  EXPECT_EQ(parse_ok("/ws?user=a&rewind=1").rewind_count, 1u);
  EXPECT_EQ(parse_ok("/ws?user=a&rewind=100").rewind_count, 100u);
  EXPECT_EQ(parse_ok("/ws?user=a&rewind=10").rewind_for, std::nullopt);
  EXPECT_EQ(parse_ok("/sse?user=a&rewind=30s").rewind_for, std::chrono::milliseconds(30'000));
  EXPECT_EQ(parse_ok("/poll?user=a&rewind=2m").rewind_for, std::chrono::milliseconds(120'000));
  EXPECT_EQ(parse_ok("/poll?user=a&rewind=500ms").rewind_count, std::nullopt);
  const std::string rule = "rewind: a count from 1 to 100, or a duration such as 30s or 2m";
  for (const char* bad : {"/ws?user=a&rewind=0", "/ws?user=a&rewind=101",
                          "/ws?user=a&rewind=", "/ws?user=a&rewind=-1", "/ws?user=a&rewind=0s",
                          "/ws?user=a&rewind=soon", "/ws?user=a&rewind=99999999999999999999",
                          "/ws?user=a&rewind=1.5", "/ws?user=a&rewind=+5"}) {
    EXPECT_EQ(parse_error(bad), rule) << bad;
  }
  EXPECT_EQ(parse_error("/ws?user=a&rewind=1&rewind=2"), "rewind: given more than once");
}

TEST(ValidIdentifier, LengthLimits) {
  EXPECT_FALSE(valid_identifier(""));
  EXPECT_TRUE(valid_identifier("a"));
  EXPECT_TRUE(valid_identifier(std::string(64, 'a')));
  EXPECT_FALSE(valid_identifier(std::string(65, 'a')));
}

TEST(ValidIdentifier, EveryAllowedCharacterAndNoOther) {
  const std::string allowed = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_.:@-";
  for (int c = 0; c < 256; ++c) {
    const std::string one(1, static_cast<char>(c));
    EXPECT_EQ(valid_identifier(one), allowed.find(static_cast<char>(c)) != std::string::npos)
        << "character " << c;
  }
  EXPECT_TRUE(valid_identifier("alice@example.com:tab-1_x"));
}

TEST(ParseMessageId, Range) {
  EXPECT_EQ(parse_message_id("0"), 0u);
  EXPECT_EQ(parse_message_id("41"), 41u);
  EXPECT_EQ(parse_message_id("18446744073709551615"), 18'446'744'073'709'551'615u);
  EXPECT_EQ(parse_message_id("18446744073709551616"), std::nullopt);
  EXPECT_EQ(parse_message_id("99999999999999999999999"), std::nullopt);
}

TEST(ParseMessageId, RefusesAnythingButDigits) {
  for (std::string_view text : {"", "-1", "+1", " 1", "1 ", "1.0", "1e3", "0x1", "abc", "1,2"})
    EXPECT_EQ(parse_message_id(text), std::nullopt) << "'" << text << "'";
}

TEST(ParseClientParams, AllParameters) {
  const auto p = parse_ok("/ws?user=alice&sid=t1&since=41&channels=a,b");
  EXPECT_EQ(p.user, "alice");
  EXPECT_EQ(p.sid, "t1");
  EXPECT_EQ(p.since, 41u);
  EXPECT_EQ(p.channels, (std::vector<std::string>{"a", "b"}));
}

TEST(ParseClientParams, Defaults) {
  const auto p = parse_ok("/poll?user=bob");
  EXPECT_EQ(p.user, "bob");
  EXPECT_EQ(p.sid, "0");
  EXPECT_EQ(p.since, std::nullopt);
  EXPECT_TRUE(p.channels.empty());
}

TEST(ParseClientParams, UserRequiredAndValid) {
  EXPECT_EQ(parse_error("/ws"), "user: required, 1-64 characters of [A-Za-z0-9_.:@-]");
  EXPECT_EQ(parse_error("/ws?sid=1"), "user: required, 1-64 characters of [A-Za-z0-9_.:@-]");
  EXPECT_EQ(parse_error("/ws?user="), user_rule);
  EXPECT_EQ(parse_error("/ws?user"), user_rule);
  EXPECT_EQ(parse_error("/ws?user=a%20b"), user_rule);
  EXPECT_EQ(parse_error("/ws?user=a+b"), user_rule);
  EXPECT_EQ(parse_error("/ws?user=%C3%A9"), user_rule);
  EXPECT_EQ(parse_error("/ws?user=a/b"), user_rule);
  EXPECT_EQ(parse_ok("/ws?user=" + std::string(64, 'u')).user, std::string(64, 'u'));
  EXPECT_EQ(parse_error("/ws?user=" + std::string(65, 'u')), user_rule);
}

TEST(ParseClientParams, PercentDecoding) {
  const auto p = parse_ok("/sse?user=alice%40example.com&sid=tab%2D1&channels=news%3Aeu,%61");
  EXPECT_EQ(p.user, "alice@example.com");
  EXPECT_EQ(p.sid, "tab-1");
  EXPECT_EQ(p.channels, (std::vector<std::string>{"news:eu", "a"}));
  // Keys are decoded too; a 64-character id spelled with escapes is still 64 characters.
  EXPECT_EQ(parse_ok("/ws?us%65r=carol").user, "carol");
  std::string escaped;
  for (int i = 0; i < 64; ++i)
    escaped += "%41";
  EXPECT_EQ(parse_ok("/ws?user=" + escaped).user, std::string(64, 'A'));
  EXPECT_EQ(parse_error("/ws?user=" + escaped + "%41"), user_rule);
}

TEST(ParseClientParams, SidValidated) {
  EXPECT_EQ(parse_error("/ws?user=a&sid="), "sid: 1-64 characters of [A-Za-z0-9_.:@-]");
  EXPECT_EQ(parse_error("/ws?user=a&sid=tab%201"), "sid: 1-64 characters of [A-Za-z0-9_.:@-]");
}

TEST(ParseClientParams, Since) {
  EXPECT_EQ(parse_ok("/ws?user=a&since=0").since, 0u);
  EXPECT_EQ(parse_ok("/ws?user=a&since=18446744073709551615").since, 18'446'744'073'709'551'615u);
  const std::string since_error = "since: expected a message id (0-18446744073709551615)";
  EXPECT_EQ(parse_error("/ws?user=a&since=18446744073709551616"), since_error);
  EXPECT_EQ(parse_error("/ws?user=a&since="), since_error);
  EXPECT_EQ(parse_error("/ws?user=a&since=-1"), since_error);
  EXPECT_EQ(parse_error("/ws?user=a&since=%2B1"), since_error);
  EXPECT_EQ(parse_error("/ws?user=a&since=1.0"), since_error);
}

TEST(ParseClientParams, RepeatedParameterIsAnError) {
  EXPECT_EQ(parse_error("/ws?user=a&user=a"), "user: given more than once");
  EXPECT_EQ(parse_error("/ws?user=a&sid=1&sid=2"), "sid: given more than once");
  EXPECT_EQ(parse_error("/ws?user=a&since=1&since=2"), "since: given more than once");
  EXPECT_EQ(parse_error("/ws?channels=a&user=a&channels=b"), "channels: given more than once");
  EXPECT_EQ(parse_error("/ws?user=a&token=x&token=y"), "token: given more than once");
  // A repeat spelled with an escaped key is still a repeat.
  EXPECT_EQ(parse_error("/ws?user=a&%75ser=b"), "user: given more than once");
}

TEST(ParseClientParams, UnknownParametersAndTokenIgnored) {
  const auto p = parse_ok("/ws?_=1&user=a&_=2&token=secret&x&callback=cb");
  EXPECT_EQ(p.user, "a");
}

TEST(ParseClientParams, Channels) {
  EXPECT_TRUE(parse_ok("/ws?user=a&channels=").channels.empty());
  EXPECT_TRUE(parse_ok("/ws?user=a&channels").channels.empty());
  EXPECT_EQ(parse_ok("/ws?user=a&channels=b,a,b,c,a").channels,
            (std::vector<std::string>{"b", "a", "c"}));
  // An escaped comma separates like a plain one: the split happens after decoding.
  EXPECT_EQ(parse_ok("/ws?user=a&channels=x%2Cy").channels, (std::vector<std::string>{"x", "y"}));
  const std::string rule = "channels: 1-64 characters of [A-Za-z0-9_.:@-]";
  EXPECT_EQ(parse_error("/ws?user=a&channels=a,,b"), rule);
  EXPECT_EQ(parse_error("/ws?user=a&channels=a,"), rule);
  EXPECT_EQ(parse_error("/ws?user=a&channels=,a"), rule);
  EXPECT_EQ(parse_error("/ws?user=a&channels=a%20b"), rule);
  EXPECT_EQ(parse_error("/ws?user=a&channels=" + std::string(65, 'c')), rule);
}

TEST(ParseClientParams, AtMost32Channels) {
  EXPECT_EQ(parse_ok("/ws?user=a&channels=" + channel_list(32)).channels.size(), 32u);
  EXPECT_EQ(parse_error("/ws?user=a&channels=" + channel_list(33)), "channels: at most 32");
  // Duplicates do not count against the limit.
  EXPECT_EQ(parse_ok("/ws?user=a&channels=" + channel_list(32) + ",c0,c31").channels.size(), 32u);
}

TEST(ParseClientParams, MalformedTarget) {
  EXPECT_EQ(parse_error(""), "malformed request target");
  EXPECT_EQ(parse_error("ws?user=a"), "malformed request target");
  EXPECT_EQ(parse_error("http://host/ws?user=a"), "malformed request target");
  EXPECT_EQ(parse_error("/ws?user=a%zz"), "malformed request target");
  EXPECT_EQ(parse_error("/ws?user=a b"), "malformed request target");
}

// One rule for every grant (a token's `channels`, the connect hook's): the first sets the allowed
// channels, each later one narrows them to the intersection.
TEST(GrantChannels, FirstGrantSetsLaterGrantsNarrow) {
  client_params p = parse_ok("/ws?user=a&channels=news");
  EXPECT_EQ(p.allowed_channels, std::nullopt);
  EXPECT_TRUE(within_grant(p.allowed_channels, "anything"));
  EXPECT_EQ(channel_not_granted(p), std::nullopt);

  grant_channels(p, {"news", "deals", "vip"});
  EXPECT_EQ(p.allowed_channels, (std::vector<std::string>{"news", "deals", "vip"}));
  EXPECT_EQ(channel_not_granted(p), std::nullopt);
  grant_channels(p, {"vip", "free", "news"});
  EXPECT_EQ(p.allowed_channels, (std::vector<std::string>{"news", "vip"}));
  EXPECT_FALSE(within_grant(p.allowed_channels, "deals"));
  EXPECT_FALSE(within_grant(p.allowed_channels, "free"));
  grant_channels(p, {});
  EXPECT_EQ(p.allowed_channels, std::vector<std::string>{});
  EXPECT_EQ(channel_not_granted(p), "news");
}

TEST(GrantChannels, KeepGrantedDropsTheRestInOrder) {
  client_params p = parse_ok("/ws?user=a&channels=free,vip,news");
  EXPECT_EQ(channel_not_granted(p), std::nullopt);
  grant_channels(p, {"news", "free"});
  EXPECT_EQ(channel_not_granted(p), "vip");
  keep_granted_channels(p);
  EXPECT_EQ(p.channels, (std::vector<std::string>{"free", "news"}));
  EXPECT_EQ(channel_not_granted(p), std::nullopt);
}

}  // namespace
}  // namespace ringcast
