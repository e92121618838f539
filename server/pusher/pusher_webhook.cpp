#include "pusher/pusher_webhook.hpp"

#include <boost/json.hpp>

#include "pusher/pusher_crypto.hpp"

namespace ringcast::pusher {

namespace json = boost::json;

json::object channel_occupied_event(std::string_view channel) {
  return {{"name", "channel_occupied"}, {"channel", channel}};
}

json::object channel_vacated_event(std::string_view channel) {
  return {{"name", "channel_vacated"}, {"channel", channel}};
}

json::object member_added_event(std::string_view channel, std::string_view user_id) {
  return {{"name", "member_added"}, {"channel", channel}, {"user_id", user_id}};
}

json::object member_removed_event(std::string_view channel, std::string_view user_id) {
  return {{"name", "member_removed"}, {"channel", channel}, {"user_id", user_id}};
}

json::object cache_miss_event(std::string_view channel) {
  return {{"name", "cache_miss"}, {"channel", channel}};
}

json::object client_event_event(std::string_view channel, std::string_view event,
                                std::optional<std::string_view> data, std::string_view socket_id,
                                std::optional<std::string_view> user_id) {
  json::object out{
      {"name", "client_event"}, {"channel", channel}, {"event", event}, {"socket_id", socket_id}};
  if (data) out["data"] = *data;
  if (user_id) out["user_id"] = *user_id;
  return out;
}

signed_webhook sign_webhook(const app& app, std::int64_t time_ms,
                            const std::vector<json::object>& events) {
  json::array list;
  for (const auto& e : events)
    list.emplace_back(e);
  std::string body =
      json::serialize(json::object{{"time_ms", time_ms}, {"events", std::move(list)}});
  std::string signature = hmac_sha256_hex(app.secret, body);
  return {std::move(body), app.key, std::move(signature)};
}

}  // namespace ringcast::pusher
