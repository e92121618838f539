// Bodies of the admin API (docs/protocol.md, "Admin and operations").
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "parsed.hpp"

namespace ringcast {

struct publish_request {
  std::string data_json;               // the "data" value, re-serialized compactly (required)
  std::optional<std::string> channel;  // valid identifier
  std::optional<std::string> user;     // valid identifier; channel and user together is an error
};

struct kick_request {
  std::string user;
};

// {"data": <any JSON>, "channel": "name"?, "user": "id"?}; neither channel nor user = broadcast.
// Extra fields are ignored; "data": null is data. Refused: a body that is not a JSON object, no
// "data", a number in data too large for a double (it would serialize as "Infinity"),
// channel/user not a valid identifier string (null included), and channel and user together.
parsed<publish_request> parse_publish_request(std::string_view body);
// {"user": "id"}
parsed<kick_request> parse_kick_request(std::string_view body);

}  // namespace ringcast
