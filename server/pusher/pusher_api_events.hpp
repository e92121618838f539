// The bodies of the HTTP API's publishing routes (docs/pusher.md, "HTTP API"), as the `pusher`
// SDKs send them, read after the request's signature (pusher_api_auth.hpp) is checked:
//   POST /apps/{id}/events        {"name", "data", "channels": [...] | "channel", "socket_id"?,
//                                  "info"?}
//   POST /apps/{id}/batch_events  {"batch": [{"channel", "name", "data", "socket_id"?,
//                                  "info"?}, ...]}
// Refusals are Pusher's: 400 with a text body, 413 for data over 10 KB.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <variant>
#include <vector>

#include "pusher/pusher_api_auth.hpp"

namespace ringcast::pusher {

// Pusher's limits: channels of one event, data bytes of one event, events of one batch.
inline constexpr std::size_t max_event_channels = 100;
inline constexpr std::size_t max_event_data = 10 * 1024;
inline constexpr std::size_t max_batch_events = 10;

struct api_event {
  std::string name;
  std::vector<std::string> channels;     // each a channel name or #server-to-user-{id}
  std::string data;                      // relayed as is: a string, JSON or not
  std::optional<std::string> socket_id;  // the sender's connection, which does not receive it
  bool user_count = false;               // "info": what the answer reports per channel
  bool subscription_count = false;
};

std::variant<api_event, api_refusal> parse_event_body(std::string_view body);
std::variant<std::vector<api_event>, api_refusal> parse_batch_body(std::string_view body);

}  // namespace ringcast::pusher
