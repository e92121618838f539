// Channel auth, sign-in and the subscription check (server/pusher/pusher_auth,
// pusher_subscription), against the worked examples of Pusher's "Authorizing users" and
// "Authenticating users" documentation (key 278d425bdf160c739803, secret 7ad3773142a6692b25b8,
// socket 1234.1234), whose signatures Python's hmac gives too. The same checks against signatures
// made by the `pusher` npm SDK itself run in pusher_sdk_check_test.
#include "pusher/pusher_auth.hpp"

#include <string>

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include "pusher/pusher_subscription.hpp"

namespace ringcast::pusher {
namespace {

const app docs_app{"3", "278d425bdf160c739803", "7ad3773142a6692b25b8", false};
constexpr const char* socket = "1234.1234";
constexpr const char* private_auth =
    "278d425bdf160c739803:58df8b0c36d6982b82c3ecf6b4662e34fe8c25bba48f5369f135bf843651c3a4";
constexpr const char* presence_data = R"({"user_id":10,"user_info":{"name":"Mr. Channels"}})";
constexpr const char* presence_auth =
    "278d425bdf160c739803:31935e7d86dba64c2a90aed31fdc61869f9b22ba9d8863bba239c03ca481bc80";

TEST(PusherAuth, TheDocumentedPrivateAndPresenceSignatures) {
  EXPECT_EQ(std::string(docs_app.key) + ":" +
                channel_signature(docs_app, socket, "private-foobar", std::nullopt),
            private_auth);
  EXPECT_EQ(check_channel_auth(docs_app, socket, "private-foobar", std::nullopt, private_auth), "");
  EXPECT_EQ(std::string(docs_app.key) + ":" +
                channel_signature(docs_app, socket, "presence-foobar", presence_data),
            presence_auth);
  EXPECT_EQ(check_channel_auth(docs_app, socket, "presence-foobar", presence_data, presence_auth),
            "");
}

TEST(PusherAuth, AnyChangeToWhatWasSignedIsRefusedWithoutTellingTheSignature) {
  const std::string signature = channel_signature(docs_app, socket, "private-foobar", std::nullopt);
  EXPECT_EQ(check_channel_auth(docs_app, "1234.1235", "private-foobar", std::nullopt, private_auth),
            "invalid signature");
  EXPECT_EQ(check_channel_auth(docs_app, socket, "private-foobaz", std::nullopt, private_auth),
            "invalid signature");
  EXPECT_EQ(
      check_channel_auth(docs_app, socket, "presence-foobar",
                         R"({"user_id":11,"user_info":{"name":"Mr. Channels"}})", presence_auth),
      "invalid signature");
  std::string upper = private_auth;
  upper.back() = 'A';  // ...c3a4 -> ...c3aA
  EXPECT_EQ(check_channel_auth(docs_app, socket, "private-foobar", std::nullopt, upper),
            "invalid signature");
  EXPECT_EQ(check_channel_auth(docs_app, socket, "private-foobar", std::nullopt,
                               std::string(private_auth) + "0"),
            "invalid signature");
  EXPECT_EQ(
      check_channel_auth(docs_app, socket, "private-foobar", std::nullopt, "otherkey:" + signature),
      "auth is signed for key 'otherkey', not this app's");
  EXPECT_EQ(check_channel_auth(docs_app, socket, "private-foobar", std::nullopt, signature),
            "auth is not of the form 'key:signature'");
  EXPECT_EQ(check_channel_auth(docs_app, socket, "private-foobar", std::nullopt, ""),
            "auth is missing");
  const app other_secret{"3", docs_app.key, "another secret", false};
  EXPECT_EQ(check_channel_auth(other_secret, socket, "private-foobar", std::nullopt, private_auth),
            "invalid signature");
}

TEST(PusherAuth, SigninOverSocketUserAndUserData) {
  const std::string user_data = R"({"id":"12345","user_info":{"name":"Ann"}})";
  const std::string auth =
      std::string(docs_app.key) + ":" + signin_signature(docs_app, socket, user_data);
  const auto user = check_signin(docs_app, socket, {auth, user_data});
  ASSERT_TRUE(std::holds_alternative<signed_in_user>(user));
  EXPECT_EQ(std::get<signed_in_user>(user).id, "12345");
  EXPECT_EQ(std::get<signed_in_user>(user).user_data, user_data);
  // "socket_id::user::user_data" with python's hmac: 4708d583...
  EXPECT_EQ(signin_signature(docs_app, socket, R"({"id":"12345"})"),
            "4708d583dada6a56435fb8bc611c77c359a31eebde13337c16ab43aa6de336ba");

  auto refusal = [&](const std::string& auth_text, const std::string& data) {
    const auto result = check_signin(docs_app, socket, {auth_text, data});
    const auto* refused = std::get_if<frame_refusal>(&result);
    if (!refused) return std::string("accepted");
    EXPECT_EQ(refused->code, 4009);
    return refused->message;
  };
  EXPECT_EQ(refusal(auth, R"({"id":"12346","user_info":{"name":"Ann"}})"),
            "pusher:signin refused: invalid signature");
  // A channel auth is not a sign-in auth for the same text.
  EXPECT_EQ(refusal(std::string(docs_app.key) + ":" +
                        channel_signature(docs_app, socket, "user", user_data),
                    user_data),
            "pusher:signin refused: invalid signature");
  auto signed_refusal = [&](const std::string& data) {
    return refusal(std::string(docs_app.key) + ":" + signin_signature(docs_app, socket, data),
                   data);
  };
  EXPECT_EQ(signed_refusal("[]"), "pusher:signin refused: user_data is not a JSON object");
  EXPECT_EQ(signed_refusal(R"({"id":"a","id":"b"})"),
            "pusher:signin refused: user_data: the key \"id\" is given twice");
  EXPECT_EQ(signed_refusal(R"({"id":12345})"),
            "pusher:signin refused: user_data.id is not a string");
  EXPECT_EQ(signed_refusal(R"({"id":""})"), "pusher:signin refused: user id is empty");
}

subscription_refusal refused(const subscribe_frame& frame) {
  const auto result = check_subscription(docs_app, socket, frame);
  if (const auto* refusal = std::get_if<subscription_refusal>(&result)) return *refusal;
  ADD_FAILURE() << frame.channel << " was admitted";
  return {};
}

TEST(PusherSubscription, PublicNeedsNoAuthPrivateAndEncryptedDo) {
  auto pub = check_subscription(docs_app, socket, {"orders", "", std::nullopt});
  ASSERT_TRUE(std::holds_alternative<subscription_grant>(pub));
  EXPECT_EQ(std::get<subscription_grant>(pub).member, std::nullopt);
  auto priv = check_subscription(docs_app, socket, {"private-foobar", private_auth, std::nullopt});
  ASSERT_TRUE(std::holds_alternative<subscription_grant>(priv));
  EXPECT_EQ(std::get<subscription_grant>(priv).traits.kind, channel_kind::private_);

  const auto missing = refused({"private-foobar", "", std::nullopt});
  EXPECT_EQ(missing.type, "AuthError");
  EXPECT_EQ(missing.status, 401);
  EXPECT_EQ(missing.error, "subscription to 'private-foobar' refused: auth is missing");
  const std::string encrypted_auth =
      std::string(docs_app.key) + ":" +
      channel_signature(docs_app, socket, "private-encrypted-x", std::nullopt);
  EXPECT_TRUE(std::holds_alternative<subscription_grant>(
      check_subscription(docs_app, socket, {"private-encrypted-x", encrypted_auth, std::nullopt})));
  EXPECT_EQ(refused({"private-encrypted-x", private_auth, std::nullopt}).error,
            "subscription to 'private-encrypted-x' refused: invalid signature");
}

TEST(PusherSubscription, PresenceGivesTheMemberOfTheSignedChannelData) {
  const auto result =
      check_subscription(docs_app, socket, {"presence-foobar", presence_auth, presence_data});
  ASSERT_TRUE(std::holds_alternative<subscription_grant>(result));
  const auto& member = std::get<subscription_grant>(result).member;
  ASSERT_TRUE(member);
  EXPECT_EQ(member->user_id, "10");  // Laravel's integer id, as text
  EXPECT_EQ(boost::json::serialize(member->user_info), R"({"name":"Mr. Channels"})");

  EXPECT_EQ(refused({"presence-foobar", presence_auth, std::nullopt}).error,
            "a presence channel needs channel_data");
  auto signed_data = [](const std::string& data) {
    return subscribe_frame{"presence-foobar",
                           std::string(docs_app.key) + ":" +
                               channel_signature(docs_app, socket, "presence-foobar", data),
                           data};
  };
  EXPECT_EQ(refused(signed_data("[]")).error, "channel_data is not a JSON object");
  EXPECT_EQ(refused(signed_data("{")).error, "channel_data: invalid JSON");
  // Signed, but which user it names depends on the reader: refused.
  EXPECT_EQ(refused(signed_data(R"({"user_id":"a","user_id":"b"})")).error,
            "channel_data: the key \"user_id\" is given twice");
  EXPECT_EQ(refused(signed_data(R"({"user_info":{}})")).error,
            "channel_data.user_id is not a string or an integer");
  EXPECT_EQ(refused(signed_data(R"({"user_id":1.5})")).error,
            "channel_data.user_id is not a string or an integer");
  EXPECT_EQ(refused(signed_data(R"({"user_id":""})")).error, "channel_data: user id is empty");
  const auto big =
      refused(signed_data(R"({"user_id":"u","user_info":")" + std::string(1100, 'i') + "\"}"));
  EXPECT_EQ(big.error, "channel_data.user_info is 1102 bytes; at most 1024");
  EXPECT_EQ(big.status, 401);
  const auto no_info = check_subscription(docs_app, socket, signed_data(R"({"user_id":"u"})"));
  ASSERT_TRUE(std::holds_alternative<subscription_grant>(no_info));
  EXPECT_TRUE(std::get<subscription_grant>(no_info).member->user_info.is_null());
}

TEST(PusherSubscription, BadNamesAndServerToUserAreInvalidChannelNames) {
  const auto bad = refused({"a b", "", std::nullopt});
  EXPECT_EQ(bad.type, "InvalidChannelName");
  EXPECT_EQ(bad.status, 400);
  EXPECT_EQ(bad.error, "channel name 'a b' has a character outside [A-Za-z0-9_\\-=@,.;]");
  const auto user = refused({"#server-to-user-7", "", std::nullopt});
  EXPECT_EQ(user.type, "InvalidChannelName");
  EXPECT_EQ(user.error,
            "#server-to-user- channels are not subscribed to: pusher:signin delivers them");
}

}  // namespace
}  // namespace ringcast::pusher
