#include "pusher/pusher_subscription.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include "protocol/strict_json.hpp"
#include "pusher/pusher_auth.hpp"

namespace ringcast::pusher {
namespace {

namespace json = boost::json;

subscription_refusal auth_error(std::string why) {
  return {"AuthError", std::move(why), 401};
}

// channel_data's member, or why it is not one.
std::variant<presence_member, subscription_refusal> member_of(std::string_view channel_data) {
  auto data = parse_strict_json(channel_data);
  if (!data) return auth_error("channel_data: " + data.error);
  if (!data.value->is_object()) return auth_error("channel_data is not a JSON object");
  json::object& object = data.value->get_object();
  const json::value* id = object.if_contains("user_id");
  std::string user_id;
  if (id && id->is_string()) {
    user_id = id->get_string();
  } else if (id && (id->is_int64() || id->is_uint64())) {
    user_id = json::serialize(*id);
  } else {
    return auth_error("channel_data.user_id is not a string or an integer");
  }
  if (auto bad = check_user_id(user_id); !bad.empty()) return auth_error("channel_data: " + bad);
  json::value info = nullptr;
  if (json::value* given = object.if_contains("user_info")) info = std::move(*given);
  if (const auto size = json::serialize(info).size(); size > max_user_info)
    return auth_error(
        fmt::format("channel_data.user_info is {} bytes; at most {}", size, max_user_info));
  return presence_member{std::move(user_id), std::move(info)};
}

}  // namespace

std::variant<subscription_grant, subscription_refusal> check_subscription(
    const app& app, std::string_view socket_id, const subscribe_frame& frame) {
  if (server_to_user_id(frame.channel))
    return subscription_refusal{
        "InvalidChannelName",
        "#server-to-user- channels are not subscribed to: pusher:signin delivers them", 400};
  const auto name = check_channel_name(frame.channel);
  if (!name) return subscription_refusal{"InvalidChannelName", name.error, 400};
  subscription_grant grant{*name.value, std::nullopt};
  if (!grant.traits.needs_auth()) return grant;

  const bool presence = grant.traits.kind == channel_kind::presence;
  if (presence && !frame.channel_data) return auth_error("a presence channel needs channel_data");
  const std::optional<std::string_view> signed_data =
      presence ? std::optional<std::string_view>(*frame.channel_data) : std::nullopt;
  if (auto bad = check_channel_auth(app, socket_id, frame.channel, signed_data, frame.auth);
      !bad.empty())
    return auth_error(fmt::format("subscription to '{}' refused: {}", frame.channel, bad));
  if (!presence) return grant;
  auto member = member_of(*frame.channel_data);
  if (auto* refusal = std::get_if<subscription_refusal>(&member)) return std::move(*refusal);
  grant.member = std::move(std::get<presence_member>(member));
  return grant;
}

}  // namespace ringcast::pusher
