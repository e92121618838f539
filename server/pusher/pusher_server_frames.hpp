// The frames the server sends a Pusher client (protocol 7), each a whole WebSocket text message.
// As Pusher does, `data` is a string holding JSON ("double encoded": pusher-js's decodeMessage
// parses the frame, then tries JSON.parse on a string `data`), except pusher:error, ping and pong,
// whose `data` is an object.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "pusher/pusher_subscription.hpp"

namespace ringcast::pusher {

// Pusher's close and error codes (docs/pusher.md, "Errors").
enum error_code : int {
  unknown_app = 4001,
  app_disabled = 4003,
  over_connection_quota = 4004,
  unsupported_protocol = 4007,
  no_protocol = 4008,
  connection_unauthorized = 4009,
  over_capacity = 4100,  // 4100-4199: reconnect after a back-off
  reconnect = 4200,      // 4200-4299: reconnect at once
  pong_not_received = 4201,
  closed_after_inactivity = 4202,
  client_event_rate_limit = 4301,
};

// {"event":"pusher:connection_established","data":"{\"socket_id\":\"1.2\",\"activity_timeout\":120}"}
// activity_timeout in seconds: how long the client may stay silent before it pings.
std::string connection_established(std::string_view socket_id, unsigned activity_timeout_seconds);
// {"event":"pusher:error","data":{"code":4001,"message":"..."}}; code null when not given.
std::string error_frame(std::optional<int> code, std::string_view message);
std::string ping_frame_text();  // {"event":"pusher:ping","data":{}}
std::string pong_frame_text();  // {"event":"pusher:pong","data":{}}

// pusher_internal:subscription_succeeded, data "{}" (public, private, encrypted channels).
std::string subscription_succeeded(std::string_view channel);
// The same for a presence channel: data {"presence":{"ids":[...],"hash":{id: user_info},
// "count":N}}, one entry per user (not per connection).
std::string presence_subscription_succeeded(std::string_view channel,
                                            const std::vector<presence_member>& members);
// pusher:subscription_error on the channel, data {type, error, status}.
std::string subscription_error(std::string_view channel, const subscription_refusal& refusal);
// pusher_internal:member_added {user_id, user_info} / member_removed {user_id}.
std::string member_added(std::string_view channel, const presence_member& member);
std::string member_removed(std::string_view channel, std::string_view user_id);
// pusher:cache_miss on a cache channel with no last event: {"event":...,"channel":...}.
std::string cache_miss(std::string_view channel);
// pusher:signin_success, data {"user_data": the user_data string as signed}.
std::string signin_success(std::string_view user_data);

// An event on a channel: `data` is the string the publisher gave (the HTTP API's data, a client
// event's data), sent as a JSON string, never parsed; `user_id` names the sender of a client
// event on a presence channel.
std::string channel_event(std::string_view event, std::string_view channel,
                          std::optional<std::string_view> data,
                          std::optional<std::string_view> user_id = std::nullopt);

}  // namespace ringcast::pusher
