// Pusher's names (docs/pusher.md, "Names"): channels, their kinds by prefix, events, the
// server-to-user channel of the HTTP API, and socket ids.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "protocol/parsed.hpp"

namespace ringcast::pusher {

// Pusher's documented limits: a channel name is up to 164 characters of [A-Za-z0-9_\-=@,.;],
// an event name any string up to 200 characters (Laravel's are "App\Events\OrderShipped").
inline constexpr std::size_t max_channel_name = 164;
inline constexpr std::size_t max_event_name = 200;

enum class channel_kind { public_, private_, presence, private_encrypted };

struct channel_traits {
  channel_kind kind = channel_kind::public_;
  bool cache = false;  // cache-, private-cache-, presence-cache-, private-encrypted-cache-
  // private-, presence- and private-encrypted- channels need an auth string to subscribe.
  bool needs_auth() const { return kind != channel_kind::public_; }
};

// The kind a valid name has by its prefix.
channel_traits traits_of(std::string_view channel);

// A channel a client may subscribe to and the HTTP API may publish on: the error says what is
// wrong ("channel name 'a b' has a character outside [A-Za-z0-9_\-=@,.;]").
parsed<channel_traits> check_channel_name(std::string_view channel);

// A user id (presence member, signed-in user): 1 to 128 characters, ringcast's bound.
inline constexpr std::size_t max_user_id = 128;
std::string check_user_id(std::string_view id);

// The SDK's sendToUser publishes on "#server-to-user-{user id}", which only the HTTP API accepts
// (a client gets it after pusher:signin): the user id, or nothing for any other name.
inline constexpr std::string_view server_to_user_prefix = "#server-to-user-";
std::optional<std::string_view> server_to_user_id(std::string_view channel);

// A channel the HTTP API may publish on: a channel name, or "#server-to-user-" and a valid user
// id. Empty when valid, else the error.
std::string check_publish_channel(std::string_view channel);

// An event name of the HTTP API: any string of 1 to 200 characters. A client event's name must
// also start with "client-". Empty when valid, else the error.
std::string check_event_name(std::string_view event);
std::string check_client_event_name(std::string_view event);

// Length as JavaScript counts it (UTF-16 code units), which is how the SDKs measure the limits
// above; `text` is valid UTF-8 (Boost.JSON refuses anything else).
std::size_t javascript_length(std::string_view text);

// Pusher's socket id: two runs of digits joined by a dot ("1234.5678"), which the SDKs check
// (/^\d+\.\d+$/) before they sign anything for it.
std::string make_socket_id(std::uint64_t high, std::uint64_t low);
bool valid_socket_id(std::string_view id);

}  // namespace ringcast::pusher
