// Pusher's webhooks (server/pusher/pusher_webhook): the body of a batch and its signature, here
// against Python's hmac on the same bytes; the `pusher` SDK's webhook().isValid() checks what
// sign_webhook makes in pusher_sdk_check_test.
#include "pusher/pusher_webhook.hpp"

#include <gtest/gtest.h>
#include <boost/json.hpp>

namespace ringcast::pusher {
namespace {

const app docs_app{"3", "278d425bdf160c739803", "7ad3773142a6692b25b8", false};

TEST(PusherWebhook, ABatchIsTimeAndEventsSignedWithTheSecret) {
  const signed_webhook hook = sign_webhook(
      docs_app, 1700000000123,
      {channel_occupied_event("orders"), member_added_event("presence-r", "7"),
       client_event_event("private-c", "client-typing", R"({"on":true})", "1.2", std::nullopt)});
  EXPECT_EQ(hook.body,
            R"({"time_ms":1700000000123,"events":[{"name":"channel_occupied","channel":"orders"},)"
            R"({"name":"member_added","channel":"presence-r","user_id":"7"},)"
            R"({"name":"client_event","channel":"private-c","event":"client-typing",)"
            R"("socket_id":"1.2","data":"{\"on\":true}"}]})");
  EXPECT_EQ(hook.key, "278d425bdf160c739803");
  EXPECT_EQ(hook.signature, "bf81930a6d13d7b9a8665fc11e10526ba745d60c8d3d46437f2384b00db0b165");
  const app other{"3", docs_app.key, "another secret", false};
  EXPECT_NE(sign_webhook(other, 1700000000123, {channel_occupied_event("orders")}).signature,
            sign_webhook(docs_app, 1700000000123, {channel_occupied_event("orders")}).signature);
}

TEST(PusherWebhook, EachEventAsPusherNamesItsFields) {
  EXPECT_EQ(boost::json::serialize(channel_vacated_event("orders")),
            R"({"name":"channel_vacated","channel":"orders"})");
  EXPECT_EQ(boost::json::serialize(member_removed_event("presence-r", "7")),
            R"({"name":"member_removed","channel":"presence-r","user_id":"7"})");
  EXPECT_EQ(boost::json::serialize(cache_miss_event("cache-x")),
            R"({"name":"cache_miss","channel":"cache-x"})");
  EXPECT_EQ(boost::json::serialize(
                client_event_event("presence-r", "client-x", std::nullopt, "1.2", "10")),
            R"({"name":"client_event","channel":"presence-r","event":"client-x",)"
            R"("socket_id":"1.2","user_id":"10"})");
}

}  // namespace
}  // namespace ringcast::pusher
