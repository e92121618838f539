// The frames a Pusher client sends (protocol 7, docs/pusher.md "Client frames"), each a JSON
// object {"event": ..., "data": ..., "channel": ...} as pusher-js writes it: `data` an object for
// pusher:* events, any JSON value for client-* events.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace ringcast::pusher {

// Pusher's limit on a message a client sends (10 KB); a longer frame is refused unread.
inline constexpr std::size_t max_client_frame = 10 * 1024;

struct ping_frame {};
struct pong_frame {};
// pusher:subscribe. Only the shape is checked here: the name, auth and channel_data are checked
// by check_subscription (pusher_subscription.hpp), whose refusal is a subscription_error.
struct subscribe_frame {
  std::string channel;
  std::string auth;                         // empty when not given (public channels)
  std::optional<std::string> channel_data;  // presence: a JSON object as a string
};
struct unsubscribe_frame {
  std::string channel;
};
// pusher:signin: auth over "socket_id::user::user_data" (check_signin, pusher_auth.hpp).
struct signin_frame {
  std::string auth;
  std::string user_data;  // a JSON object as a string
};
// client-*: relayed to the channel's other subscribers with `data` as the JSON string pusher-js
// parses back: the text of a string as is, any other value serialized.
struct client_event_frame {
  std::string event;
  std::string channel;
  std::optional<std::string> data;  // absent when the client sent none
};
// A frame refused: answered with pusher:error {code, message}; Pusher leaves `code` null for
// refusals that do not close the connection.
struct frame_refusal {
  std::optional<int> code;
  std::string message;
};

using client_frame = std::variant<ping_frame, pong_frame, subscribe_frame, unsubscribe_frame,
                                  signin_frame, client_event_frame, frame_refusal>;

// Any text: a frame, or a refusal saying what is wrong (not JSON, no event, an unknown pusher:
// event, a wrong field type, a client event name that is not client-* or too long, a frame over
// max_client_frame).
client_frame parse_client_frame(std::string_view text);

}  // namespace ringcast::pusher
