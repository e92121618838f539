// Whether a pusher:subscribe is admitted: the channel's name, then for private-, presence- and
// private-encrypted- channels its auth, and for presence- the member it names (channel_data).
// A refusal becomes pusher:subscription_error on that channel (pusher_server_frames.hpp).
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include <boost/json/value.hpp>

#include "pusher/pusher_app.hpp"
#include "pusher/pusher_client_frame.hpp"
#include "pusher/pusher_names.hpp"

namespace ringcast::pusher {

// A member of a presence channel, from channel_data {"user_id": ..., "user_info": ...}: the id a
// string or an integer (Laravel sends its integer ids), kept as text; user_info any JSON value
// (null when absent), at most max_user_info bytes serialized.
inline constexpr std::size_t max_user_info = 1024;
struct presence_member {
  std::string user_id;
  boost::json::value user_info;
};

struct subscription_grant {
  channel_traits traits;
  std::optional<presence_member> member;  // presence- channels only
};

// Pusher's subscription_error data: {type, error, status}.
struct subscription_refusal {
  std::string type;  // "InvalidChannelName" (status 400) or "AuthError" (401)
  std::string error;
  int status = 0;
};

std::variant<subscription_grant, subscription_refusal> check_subscription(
    const app& app, std::string_view socket_id, const subscribe_frame& frame);

}  // namespace ringcast::pusher
