#include "pusher/pusher_server_frames.hpp"

#include <boost/json.hpp>

namespace ringcast::pusher {
namespace {

namespace json = boost::json;

// A frame whose data is `data` serialized into a string.
std::string frame(std::string_view event, std::optional<std::string_view> channel,
                  const json::object& data) {
  json::object out{{"event", event}};
  if (channel) out["channel"] = *channel;
  out["data"] = json::serialize(data);
  return json::serialize(out);
}

}  // namespace

std::string connection_established(std::string_view socket_id, unsigned activity_timeout_seconds) {
  return frame("pusher:connection_established", std::nullopt,
               {{"socket_id", socket_id}, {"activity_timeout", activity_timeout_seconds}});
}

std::string error_frame(std::optional<int> code, std::string_view message) {
  json::object data;
  data["code"] = code ? json::value(*code) : json::value(nullptr);
  data["message"] = message;
  return json::serialize(json::object{{"event", "pusher:error"}, {"data", std::move(data)}});
}

std::string ping_frame_text() {
  return json::serialize(json::object{{"event", "pusher:ping"}, {"data", json::object{}}});
}

std::string pong_frame_text() {
  return json::serialize(json::object{{"event", "pusher:pong"}, {"data", json::object{}}});
}

std::string subscription_succeeded(std::string_view channel) {
  return frame("pusher_internal:subscription_succeeded", channel, {});
}

std::string presence_subscription_succeeded(std::string_view channel,
                                            const std::vector<presence_member>& members) {
  json::array ids;
  json::object hash;
  for (const auto& m : members) {
    ids.emplace_back(m.user_id);
    hash[m.user_id] = m.user_info;
  }
  const auto count = ids.size();
  json::object presence{{"ids", std::move(ids)}, {"hash", std::move(hash)}, {"count", count}};
  return frame("pusher_internal:subscription_succeeded", channel,
               {{"presence", std::move(presence)}});
}

std::string subscription_error(std::string_view channel, const subscription_refusal& refusal) {
  return frame("pusher:subscription_error", channel,
               {{"type", refusal.type}, {"error", refusal.error}, {"status", refusal.status}});
}

std::string member_added(std::string_view channel, const presence_member& member) {
  return frame("pusher_internal:member_added", channel,
               {{"user_id", member.user_id}, {"user_info", member.user_info}});
}

std::string member_removed(std::string_view channel, std::string_view user_id) {
  return frame("pusher_internal:member_removed", channel, {{"user_id", user_id}});
}

std::string cache_miss(std::string_view channel) {
  return json::serialize(json::object{{"event", "pusher:cache_miss"}, {"channel", channel}});
}

std::string signin_success(std::string_view user_data) {
  return frame("pusher:signin_success", std::nullopt, {{"user_data", user_data}});
}

std::string channel_event(std::string_view event, std::string_view channel,
                          std::optional<std::string_view> data,
                          std::optional<std::string_view> user_id) {
  json::object out{{"event", event}, {"channel", channel}};
  if (data) out["data"] = *data;
  if (user_id) out["user_id"] = *user_id;
  return json::serialize(out);
}

}  // namespace ringcast::pusher
