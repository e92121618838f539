// Pusher's webhooks (docs/pusher.md, "Webhooks"): a POST of {"time_ms": N, "events": [...]} with
// Content-Type: application/json, X-Pusher-Key (the app key) and X-Pusher-Signature (the hex
// HMAC-SHA256 of the body with the app secret), which the SDK's webhook().isValid() checks.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/json/object.hpp>

#include "pusher/pusher_app.hpp"

namespace ringcast::pusher {

inline constexpr std::string_view webhook_content_type = "application/json";
inline constexpr std::string_view webhook_key_header = "X-Pusher-Key";
inline constexpr std::string_view webhook_signature_header = "X-Pusher-Signature";

// One event of a batch, each as Pusher names its fields.
boost::json::object channel_occupied_event(std::string_view channel);
boost::json::object channel_vacated_event(std::string_view channel);
boost::json::object member_added_event(std::string_view channel, std::string_view user_id);
boost::json::object member_removed_event(std::string_view channel, std::string_view user_id);
boost::json::object cache_miss_event(std::string_view channel);
// A client event: its name, its data as the client sent it (a string), the sender's socket id,
// and on a presence channel the sender's user id.
boost::json::object client_event_event(std::string_view channel, std::string_view event,
                                       std::optional<std::string_view> data,
                                       std::string_view socket_id,
                                       std::optional<std::string_view> user_id);

struct signed_webhook {
  std::string body;
  std::string key;        // X-Pusher-Key
  std::string signature;  // X-Pusher-Signature
};

// The POST for a batch of events at `time_ms` (Unix milliseconds).
signed_webhook sign_webhook(const app& app, std::int64_t time_ms,
                            const std::vector<boost::json::object>& events);

}  // namespace ringcast::pusher
