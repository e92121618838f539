#include "pusher/pusher_auth.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include "protocol/strict_json.hpp"
#include "pusher/pusher_crypto.hpp"
#include "pusher/pusher_names.hpp"

namespace ringcast::pusher {
namespace {

namespace json = boost::json;

// Pusher's 4009: "connection is unauthorized".
constexpr int unauthorized = 4009;

std::string channel_text(std::string_view socket_id, std::string_view channel,
                         std::optional<std::string_view> channel_data) {
  std::string text = fmt::format("{}:{}", socket_id, channel);
  if (channel_data) text += fmt::format(":{}", *channel_data);
  return text;
}

}  // namespace

std::string channel_signature(const app& app, std::string_view socket_id, std::string_view channel,
                              std::optional<std::string_view> channel_data) {
  return hmac_sha256_hex(app.secret, channel_text(socket_id, channel, channel_data));
}

std::string signin_signature(const app& app, std::string_view socket_id,
                             std::string_view user_data) {
  return hmac_sha256_hex(app.secret, fmt::format("{}::user::{}", socket_id, user_data));
}

std::string check_auth_string(const app& app, std::string_view auth, std::string_view signed_text) {
  if (auth.empty()) return "auth is missing";
  const auto colon = auth.find(':');
  if (colon == std::string_view::npos) return "auth is not of the form 'key:signature'";
  if (auth.substr(0, colon) != app.key)
    return fmt::format("auth is signed for key '{}', not this app's", auth.substr(0, colon));
  if (!same_in_constant_time(hmac_sha256_hex(app.secret, signed_text), auth.substr(colon + 1)))
    return "invalid signature";
  return {};
}

std::string check_channel_auth(const app& app, std::string_view socket_id, std::string_view channel,
                               std::optional<std::string_view> channel_data,
                               std::string_view auth) {
  return check_auth_string(app, auth, channel_text(socket_id, channel, channel_data));
}

std::variant<signed_in_user, frame_refusal> check_signin(const app& app, std::string_view socket_id,
                                                         const signin_frame& frame) {
  auto refuse = [](std::string why) {
    return frame_refusal{unauthorized, "pusher:signin refused: " + std::move(why)};
  };
  if (auto bad = check_auth_string(app, frame.auth,
                                   fmt::format("{}::user::{}", socket_id, frame.user_data));
      !bad.empty())
    return refuse(std::move(bad));
  const auto user = parse_strict_json(frame.user_data);
  if (!user) return refuse("user_data: " + user.error);
  if (!user.value->is_object()) return refuse("user_data is not a JSON object");
  const json::value* id = user.value->get_object().if_contains("id");
  if (!id || !id->is_string()) return refuse("user_data.id is not a string");
  if (auto bad = check_user_id(id->get_string()); !bad.empty()) return refuse(std::move(bad));
  return signed_in_user{std::string(id->get_string()), frame.user_data};
}

}  // namespace ringcast::pusher
