// Pusher's names (server/pusher/pusher_names): channels and their prefixes, event names, user ids,
// the HTTP API's #server-to-user- channel, socket ids.
#include "pusher/pusher_names.hpp"

#include <string>

#include <gtest/gtest.h>

namespace ringcast::pusher {
namespace {

TEST(PusherNames, EveryDocumentedCharacterUpTo164IsAChannelName) {
  EXPECT_TRUE(check_channel_name("AZaz09_-=@,.;"));
  EXPECT_TRUE(check_channel_name(std::string(164, 'a')));
  const auto too_long = check_channel_name(std::string(165, 'a'));
  ASSERT_FALSE(too_long);
  EXPECT_EQ(too_long.error, "channel name is 165 characters; at most 164");
  EXPECT_EQ(check_channel_name("").error, "channel name is empty");
  for (const std::string bad : {"a b", "a/b", "a#b", "a:b", "é", "a*"}) {
    const auto refused = check_channel_name(bad);
    ASSERT_FALSE(refused) << bad;
    EXPECT_EQ(refused.error,
              "channel name '" + bad + "' has a character outside [A-Za-z0-9_\\-=@,.;]");
  }
}

TEST(PusherNames, PrefixesGiveTheKindLongestFirst) {
  struct row {
    std::string name;
    channel_kind kind;
    bool cache;
  };
  for (const auto& [name, kind, cache] : std::vector<row>{
           {"orders", channel_kind::public_, false},
           {"cache-orders", channel_kind::public_, true},
           {"private-orders", channel_kind::private_, false},
           {"private-cache-orders", channel_kind::private_, true},
           {"presence-room", channel_kind::presence, false},
           {"presence-cache-room", channel_kind::presence, true},
           {"private-encrypted-x", channel_kind::private_encrypted, false},
           {"private-encrypted-cache-x", channel_kind::private_encrypted, true},
           // A prefix counts only at the start.
           {"x-private-orders", channel_kind::public_, false},
           {"privateorders", channel_kind::public_, false},
       }) {
    const auto traits = check_channel_name(name);
    ASSERT_TRUE(traits) << name;
    EXPECT_EQ(traits.value->kind, kind) << name;
    EXPECT_EQ(traits.value->cache, cache) << name;
    EXPECT_EQ(traits.value->needs_auth(), kind != channel_kind::public_) << name;
  }
}

TEST(PusherNames, EventNamesAreAnyStringUpTo200JavaScriptCharacters) {
  EXPECT_EQ(check_event_name("App\\Events\\OrderShipped"), "");  // Laravel's
  EXPECT_EQ(check_event_name("an event with spaces / and : colons"), "");
  EXPECT_EQ(check_event_name(std::string(200, 'e')), "");
  EXPECT_EQ(check_event_name(std::string(201, 'e')), "event name is 201 characters; at most 200");
  EXPECT_EQ(check_event_name(""), "event name is empty");
  // 100 x "é" (2 bytes, 1 unit) is 100; 100 x U+1F600 (4 bytes, 2 units) is 200, 101 is 202.
  std::string accents, emoji;
  for (int i = 0; i < 100; ++i) {
    accents += "\xc3\xa9";
    emoji += "\xf0\x9f\x98\x80";
  }
  EXPECT_EQ(javascript_length(accents), 100u);
  EXPECT_EQ(check_event_name(emoji), "");
  EXPECT_EQ(check_event_name(emoji + "\xf0\x9f\x98\x80"),
            "event name is 202 characters; at most 200");
}

TEST(PusherNames, ClientEventsStartWithClientDash) {
  EXPECT_EQ(check_client_event_name("client-typing"), "");
  EXPECT_EQ(check_client_event_name("typing"),
            "client event 'typing' does not start with 'client-'");
  EXPECT_EQ(check_client_event_name("client-" + std::string(194, 'x')),
            "event name is 201 characters; at most 200");
}

TEST(PusherNames, ServerToUserOnlyWhereThePublisherPosts) {
  EXPECT_EQ(server_to_user_id("#server-to-user-42"), "42");
  EXPECT_EQ(server_to_user_id("server-to-user-42"), std::nullopt);
  EXPECT_EQ(check_publish_channel("#server-to-user-ann@example.com"), "");
  EXPECT_EQ(check_publish_channel("#server-to-user-"), "user id is empty");
  EXPECT_EQ(check_publish_channel("#server-to-user-" + std::string(129, 'u')),
            "user id is 129 characters; at most 128");
  EXPECT_EQ(check_publish_channel("sale"), "");
  EXPECT_EQ(check_publish_channel("#sale"),
            "channel name '#sale' has a character outside [A-Za-z0-9_\\-=@,.;]");
}

TEST(PusherNames, SocketIdsAreDigitsDotDigits) {
  EXPECT_EQ(make_socket_id(123, 456), "123.456");
  const std::string largest = make_socket_id(UINT64_MAX, UINT64_MAX);
  EXPECT_TRUE(valid_socket_id(largest));
  EXPECT_TRUE(valid_socket_id("1234.1234"));
  for (const char* bad :
       {"", "1234", "1234.", ".1234", "12a4.1", "1.2.3", "-1.2", "1.2 ", "123456789012345678901.1"})
    EXPECT_FALSE(valid_socket_id(bad)) << bad;
}

}  // namespace
}  // namespace ringcast::pusher
