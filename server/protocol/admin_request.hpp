// Bodies of the admin API (docs/protocol.md, "Admin and operations").
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/parsed.hpp"

namespace ringcast {

struct publish_request {
  std::string data_json;               // the "data" value, re-serialized compactly (required)
  std::optional<std::string> channel;  // valid identifier
  std::optional<std::string> user;     // valid identifier
  // 1-1000 valid identifiers, sorted, without duplicates. channel, user and users exclude each
  // other.
  std::optional<std::vector<std::string>> users;
  // When to publish: "at" (Unix ms) or "delay" (a duration), not both; neither means now.
  std::optional<std::int64_t> at_ms;
  std::optional<std::chrono::milliseconds> delay;
  // How long it stays (counted from when it is published); none means until it leaves history.
  std::optional<std::chrono::milliseconds> ttl;
  std::chrono::milliseconds spread{0};  // > 0: paced over this window (docs/protocol.md)
  bool sticky = false;  // in force until its ttl passes or it is taken down (docs/protocol.md)
};

// --max-spread's default: the longest "spread" a publish may ask for.
inline constexpr std::chrono::milliseconds default_max_spread{10 * 60 * 1000};

inline constexpr std::size_t max_users_per_publish = 1000;
// The furthest ahead a publish may be scheduled and the longest ttl: a year and a day.
inline constexpr std::chrono::milliseconds max_publish_horizon{366LL * 24 * 3600 * 1000};

struct kick_request {
  std::string user;
};

// What to do with a field a body's endpoint does not know.
enum class unknown_fields {
  refuse,  // admin API bodies: a typo ("chanel") must not silently become a broadcast
  ignore,  // scheduled requests read back from storage, written by this or an older version
};

// {"data": <any JSON>, "channel": "name"?, "user": "id"?, "users": ["id",...]?, "at": ms?,
// "delay": "90s"?, "ttl": "1h"?, "spread": "30s"?}; no audience = broadcast. Any other field is
// refused (`unknown field "chanel" …`) unless `unknown` says ignore; "data": null is data. Refused:
// a body that is not a JSON object, no "data", a number in data too large for a double (it would
// serialize as "Infinity"), channel/user not a valid identifier string (null included), more than
// one audience, users not an array of 1-1000 identifiers, at not a non-negative integer, delay/ttl
// not a duration string (ttl 0 included), both at and delay, and a delay or ttl beyond
// max_publish_horizon. "spread": a duration string ("30s", "500ms", "0"), at most `max_spread`.
// "sticky": true or false.
parsed<publish_request> parse_publish_request(
    std::string_view body, std::chrono::milliseconds max_spread = default_max_spread,
    unknown_fields unknown = unknown_fields::refuse);

// The Unix ms at which the request is to be published, given the time now; nullopt: at once (no
// "at"/"delay", or a time not after now). Refused: a time beyond now + max_publish_horizon.
parsed<std::optional<std::int64_t>> publish_time(const publish_request& req, std::int64_t now_ms);
// {"user": "id"}; any other field is refused.
parsed<kick_request> parse_kick_request(std::string_view body);

}  // namespace ringcast
