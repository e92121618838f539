// Bodies of the admin API (docs/protocol.md, "Admin and operations").
#pragma once

#include <chrono>
#include <optional>
#include <string>
#include <string_view>

#include "parsed.hpp"

namespace ringcast {

struct publish_request {
  std::string data_json;                // the "data" value, re-serialized compactly (required)
  std::optional<std::string> channel;   // valid identifier
  std::optional<std::string> user;      // valid identifier; channel and user together is an error
  std::chrono::milliseconds spread{0};  // > 0: paced over this window (docs/protocol.md)
};

// --max-spread's default: the longest "spread" a publish may ask for.
inline constexpr std::chrono::milliseconds default_max_spread{10 * 60 * 1000};

struct kick_request {
  std::string user;
};

// {"data": <any JSON>, "channel": "name"?, "user": "id"?}; neither channel nor user = broadcast.
// Extra fields are ignored; "data": null is data. Refused: a body that is not a JSON object, no
// "data", a number in data too large for a double (it would serialize as "Infinity"),
// channel/user not a valid identifier string (null included), and channel and user together.
// "spread": a duration string ("30s", "500ms", "0"), at most `max_spread`.
parsed<publish_request> parse_publish_request(
    std::string_view body, std::chrono::milliseconds max_spread = default_max_spread);
// {"user": "id"}
parsed<kick_request> parse_kick_request(std::string_view body);

}  // namespace ringcast
