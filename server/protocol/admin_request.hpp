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
  // The Pusher door (docs/pusher.md): the event name Pusher clients see (empty: the default,
  // default_pusher_event), and a Pusher socket id that must not receive it (the HTTP API's
  // socket_id, a client event's sender; never set from an admin publish body).
  std::string event;
  std::string except_socket;
  std::string sender_user_id;  // a client event's on a presence channel (its frame's user_id)
};

// The Pusher event name of a publish that gives none (docs/protocol.md, "event").
inline constexpr std::string_view default_pusher_event = "message";
// An admin publish's "event": as Pusher's event names, 1 to 200 characters.
inline constexpr std::size_t max_publish_event = 200;

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
// "sticky": true or false. "event": a string of 1-200 characters, the event name Pusher clients
// see.
parsed<publish_request> parse_publish_request(
    std::string_view body, std::chrono::milliseconds max_spread = default_max_spread,
    unknown_fields unknown = unknown_fields::refuse);

// The Unix ms at which the request is to be published, given the time now; nullopt: at once (no
// "at"/"delay", or a time not after now). Refused: a time beyond now + max_publish_horizon.
parsed<std::optional<std::int64_t>> publish_time(const publish_request& req, std::int64_t now_ms);
// {"user": "id"}; any other field is refused.
parsed<kick_request> parse_kick_request(std::string_view body);

}  // namespace ringcast
