// The auth strings a Pusher client gets from the shop's backend (the SDK's authorizeChannel and
// authenticateUser) and shows when it subscribes or signs in: "key:signature", the lower-case hex
// HMAC-SHA256 with the app secret of
//   socket_id:channel                 (private-, private-encrypted-)
//   socket_id:channel:channel_data    (presence-)
//   socket_id::user::user_data        (pusher:signin)
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include "pusher/pusher_app.hpp"
#include "pusher/pusher_client_frame.hpp"

namespace ringcast::pusher {

// The signature the backend computes for a channel (what authorizeChannel puts after "key:").
std::string channel_signature(const app& app, std::string_view socket_id, std::string_view channel,
                              std::optional<std::string_view> channel_data);
std::string signin_signature(const app& app, std::string_view socket_id,
                             std::string_view user_data);

// Empty when `auth` is "<the app's key>:<the signature of `signed_text`>", else why not. The
// expected signature is never part of the answer.
std::string check_auth_string(const app& app, std::string_view auth, std::string_view signed_text);

// Empty when `auth` authorizes `socket_id` on `channel` (with `channel_data` for presence).
std::string check_channel_auth(const app& app, std::string_view socket_id, std::string_view channel,
                               std::optional<std::string_view> channel_data, std::string_view auth);

// A signed-in user: the id from user_data (a non-empty string, as pusher-js requires), and
// user_data as given, which pusher:signin_success returns.
struct signed_in_user {
  std::string id;
  std::string user_data;
};

// pusher:signin: the user, or pusher:error 4009 (connection not authorized) saying why.
std::variant<signed_in_user, frame_refusal> check_signin(const app& app, std::string_view socket_id,
                                                         const signin_frame& frame);

}  // namespace ringcast::pusher
