// Step 2 of the cross-check with the real SDKs (tests/server/CMakeLists.txt): what the `pusher` npm
// SDK made in step 1 (sdk_made.mjs: channel auth, sign-in auth, HTTP API requests captured as
// sent) is accepted by the C++ core, and the same with any part changed is refused. Then the core
// makes, from the SDK's inputs, the frames and the webhook that step 3 (sdk_clients.test.mjs)
// hands to pusher-js, Laravel Echo and the SDK's webhook check. Run by ctest after step 1, with
// RINGCAST_PUSHER_SDK_DIR naming its directory.
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>

#include <gtest/gtest.h>
#include <boost/json.hpp>

#include "pusher/pusher_api_auth.hpp"
#include "pusher/pusher_api_events.hpp"
#include "pusher/pusher_auth.hpp"
#include "pusher/pusher_server_frames.hpp"
#include "pusher/pusher_subscription.hpp"
#include "pusher/pusher_webhook.hpp"

namespace ringcast::pusher {
namespace {

namespace json = boost::json;

std::string sdk_dir() {
  const char* dir = std::getenv("RINGCAST_PUSHER_SDK_DIR");
  return dir ? dir : "";
}

std::string text(const json::value& v) {
  return std::string(v.as_string());
}

class PusherSdk : public ::testing::Test {
 protected:
  void SetUp() override {
    // Not a skip: run alone, without step 1's file, this test fails and says how to run it.
    ASSERT_FALSE(sdk_dir().empty()) << "run through ctest (pusher_sdk_check needs pusher_sdk_made)";
    std::ifstream file(sdk_dir() + "/sdk_made.json");
    ASSERT_TRUE(file) << "no " << sdk_dir() << "/sdk_made.json";
    std::stringstream read;
    read << file.rdbuf();
    made = json::parse(read.str()).as_object();
    const auto& a = made.at("app");
    app = {text(a.at("appId")), text(a.at("key")), text(a.at("secret")), true};
    socket_id = text(made.at("socket_id"));
  }

  const json::object& request(std::string_view name) {
    return made.at("requests").at(name).as_object();
  }

  json::object made;
  pusher::app app;
  std::string socket_id;
};

TEST_F(PusherSdk, AuthorizeChannelIsAcceptedAndAnyChangeRefused) {
  const auto& priv = made.at("private").as_object();
  const std::string channel = text(priv.at("channel")), auth = text(priv.at("auth"));
  EXPECT_EQ(check_channel_auth(app, socket_id, channel, std::nullopt, auth), "");
  EXPECT_EQ(check_channel_auth(app, "1234.5679", channel, std::nullopt, auth), "invalid signature");
  EXPECT_EQ(check_channel_auth(app, socket_id, "private-order", std::nullopt, auth),
            "invalid signature");
  EXPECT_TRUE(std::holds_alternative<subscription_grant>(
      check_subscription(app, socket_id, {channel, auth, std::nullopt})));

  const auto& presence = made.at("presence").as_object();
  const subscribe_frame frame{text(presence.at("channel")), text(presence.at("auth")),
                              text(presence.at("channel_data"))};
  const auto grant = check_subscription(app, socket_id, frame);
  ASSERT_TRUE(std::holds_alternative<subscription_grant>(grant))
      << std::get<subscription_refusal>(grant).error;
  const auto& member = *std::get<subscription_grant>(grant).member;
  EXPECT_EQ(member.user_id, "42");
  EXPECT_EQ(member.user_info.at("name"), "Ann \"the admin\"");
  subscribe_frame changed = frame;
  changed.channel_data->replace(changed.channel_data->find("42"), 2, "43");
  const auto refused = check_subscription(app, socket_id, changed);
  ASSERT_TRUE(std::holds_alternative<subscription_refusal>(refused));
  EXPECT_EQ(std::get<subscription_refusal>(refused).status, 401);
}

TEST_F(PusherSdk, AuthenticateUserIsAcceptedAndAnyChangeRefused) {
  const auto& signin = made.at("signin").as_object();
  const signin_frame frame{text(signin.at("auth")), text(signin.at("user_data"))};
  const auto user = check_signin(app, socket_id, frame);
  ASSERT_TRUE(std::holds_alternative<signed_in_user>(user))
      << std::get<frame_refusal>(user).message;
  EXPECT_EQ(std::get<signed_in_user>(user).id, "ann@example.com");
  EXPECT_TRUE(std::holds_alternative<frame_refusal>(check_signin(app, "1234.5670", frame)));
  signin_frame changed = frame;
  changed.user_data.replace(changed.user_data.find("ann@"), 4, "bob@");
  EXPECT_TRUE(std::holds_alternative<frame_refusal>(check_signin(app, socket_id, changed)));
}

TEST_F(PusherSdk, EverySignedHttpApiRequestIsAcceptedAsSent) {
  for (const auto& [name, value] : made.at("requests").as_object()) {
    SCOPED_TRACE(std::string(name));
    const auto& r = value.as_object();
    const std::string method = text(r.at("method")), path = text(r.at("path")),
                      query = text(r.at("query")), body = text(r.at("body"));
    const std::int64_t now = r.at("now").to_number<std::int64_t>();
    const auto verdict = verify_api_request(app, {method, path, query, body}, now);
    ASSERT_TRUE(std::holds_alternative<query_parameters>(verdict))
        << std::get<api_refusal>(verdict).body;
    // ... within the 600 s window only, ...
    EXPECT_TRUE(std::holds_alternative<api_refusal>(
        verify_api_request(app, {method, path, query, body}, now + 700)));
    // ... for this app's secret only, ...
    pusher::app other = app;
    other.secret += "x";
    EXPECT_TRUE(std::holds_alternative<api_refusal>(
        verify_api_request(other, {method, path, query, body}, now)));
    // ... and for this path and body only.
    EXPECT_TRUE(std::holds_alternative<api_refusal>(
        verify_api_request(app, {method, path + "x", query, body}, now)));
    if (!body.empty()) {
      const auto tampered = verify_api_request(app, {method, path, query, body + " "}, now);
      ASSERT_TRUE(std::holds_alternative<api_refusal>(tampered));
      EXPECT_EQ(std::get<api_refusal>(tampered).body,
                "Invalid body_md5: it is not the MD5 of the body received");
    }
  }
  // Our own signing of the SDK's request, at its auth_timestamp, gives the SDK's query byte for
  // byte.
  const auto& channels = request("channels");
  const auto verdict =
      verify_api_request(app, {"GET", text(channels.at("path")), text(channels.at("query")), ""},
                         channels.at("now").to_number<std::int64_t>());
  ASSERT_TRUE(std::holds_alternative<query_parameters>(verdict));
  const std::int64_t timestamp =
      std::stoll(std::get<query_parameters>(verdict).at("auth_timestamp"));
  EXPECT_EQ(
      signed_query(app, "GET", text(channels.at("path")),
                   {{"filter_by_prefix", "presence-"}, {"info", "user_count"}}, "", timestamp),
      text(channels.at("query")));
}

TEST_F(PusherSdk, ThePublishingBodiesAreRead) {
  auto event_of = [&](std::string_view name) {
    const auto result = parse_event_body(text(request(name).at("body")));
    if (const auto* refused = std::get_if<api_refusal>(&result))
      ADD_FAILURE() << name << ": " << refused->body;
    return std::holds_alternative<api_event>(result) ? std::get<api_event>(result) : api_event{};
  };
  const api_event trigger = event_of("trigger");
  EXPECT_EQ(trigger.name, "App\\Events\\OrderShipped");
  EXPECT_EQ(trigger.channels, std::vector<std::string>{"orders"});
  EXPECT_EQ(json::parse(trigger.data), (json::object{{"id", 1}, {"total", "9.99"}}));
  const api_event many = event_of("trigger_many");
  EXPECT_EQ(many.channels, (std::vector<std::string>{"sale", "cache-sale"}));
  EXPECT_EQ(many.data, "plain text");
  EXPECT_EQ(many.socket_id, "1.2");
  EXPECT_TRUE(many.user_count && many.subscription_count);
  EXPECT_EQ(event_of("send_to_user").channels,
            std::vector<std::string>{"#server-to-user-ann@example.com"});

  const auto batch = parse_batch_body(text(request("batch").at("body")));
  ASSERT_TRUE(std::holds_alternative<std::vector<api_event>>(batch))
      << std::get<api_refusal>(batch).body;
  const auto& events = std::get<std::vector<api_event>>(batch);
  ASSERT_EQ(events.size(), 2u);
  EXPECT_EQ(events[0].data, R"({"x":1})");
  EXPECT_EQ(events[1].channels, std::vector<std::string>{"presence-room"});
  EXPECT_TRUE(events[1].user_count);
}

// The data string of the SDK's trigger body: what an event relays to clients untouched.
std::string event_data(const json::object& request) {
  return text(json::parse(text(request.at("body"))).at("data"));
}

TEST_F(PusherSdk, FramesAndAWebhookForTheClientsToRead) {
  json::object out;
  out["socket_id"] = socket_id;
  out["key"] = app.key;
  out["connection_established"] = connection_established(socket_id, 120);

  const auto& presence = made.at("presence").as_object();
  const auto grant = check_subscription(
      app, socket_id,
      {text(presence.at("channel")), text(presence.at("auth")), text(presence.at("channel_data"))});
  ASSERT_TRUE(std::holds_alternative<subscription_grant>(grant));
  const presence_member me = *std::get<subscription_grant>(grant).member;
  const presence_member bob{"7", json::object{{"name", "Bob"}}}, cy{"8", nullptr};

  const auto refusal =
      check_subscription(app, socket_id, {"private-refused", app.key + ":0000", std::nullopt});
  ASSERT_TRUE(std::holds_alternative<subscription_refusal>(refusal));

  const auto signin = made.at("signin").as_object();
  const auto user =
      check_signin(app, socket_id, {text(signin.at("auth")), text(signin.at("user_data"))});
  ASSERT_TRUE(std::holds_alternative<signed_in_user>(user));
  const std::string user_channel =
      std::string(server_to_user_prefix) + std::get<signed_in_user>(user).id;

  // What the server sends when the client subscribes to each channel, in order.
  out["on_subscribe"] = json::object{
      {"orders", json::array{subscription_succeeded("orders"),
                             channel_event("App\\Events\\OrderShipped", "orders",
                                           event_data(request("trigger")))}},
      {"presence-room",
       json::array{presence_subscription_succeeded("presence-room", {me, bob}),
                   member_added("presence-room", cy),
                   channel_event("client-typing", "presence-room", R"({"on":true})", cy.user_id),
                   member_removed("presence-room", bob.user_id)}},
      {"private-refused",
       json::array{subscription_error("private-refused", std::get<subscription_refusal>(refusal))}},
      {"cache-empty",
       json::array{subscription_succeeded("cache-empty"), cache_miss("cache-empty")}},
  };
  out["on_signin"] =
      json::array{signin_success(std::get<signed_in_user>(user).user_data),
                  channel_event("notice", user_channel, event_data(request("send_to_user")))};

  const signed_webhook hook = sign_webhook(
      app, 1700000000123,
      {channel_occupied_event("orders"), member_added_event("presence-room", me.user_id),
       client_event_event("presence-room", "client-typing", R"({"on":true})", socket_id,
                          me.user_id),
       member_removed_event("presence-room", me.user_id), channel_vacated_event("orders"),
       cache_miss_event("cache-empty")});
  out["webhook"] = json::object{{"body", hook.body},
                                {"key", hook.key},
                                {"signature", hook.signature},
                                {"content_type", webhook_content_type}};

  std::ofstream file(sdk_dir() + "/ringcast_made.json");
  file << json::serialize(out);
  ASSERT_TRUE(file.good());
}

}  // namespace
}  // namespace ringcast::pusher
