#include "protocol/admin_request.hpp"

#include <algorithm>
#include <cmath>
#include <initializer_list>

#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include "protocol/client_params.hpp"
#include "protocol/duration.hpp"
#include "protocol/strict_json.hpp"

namespace ringcast {
namespace {

// The body as a JSON object, or why not.
parsed<boost::json::object> json_object(std::string_view body) {
  using result = parsed<boost::json::object>;
  auto json = parse_strict_json(body);
  if (!json) return result::fail(std::move(json.error));
  auto* object = json.value->if_object();
  if (!object) return result::fail("expected a JSON object");
  return result::ok(std::move(*object));
}

// A misspelt field must not change what a request does ("chanel" would turn a channel publish
// into a broadcast), so any field the endpoint does not know is refused, naming the first one.
parsed<bool> only_known_fields(const boost::json::object& object,
                               std::initializer_list<std::string_view> known) {
  using result = parsed<bool>;
  for (const auto& member : object) {
    if (std::find(known.begin(), known.end(), member.key()) != known.end()) continue;
    std::string names;
    for (auto name : known)
      names += (names.empty() ? "" : ", ") + std::string{name};
    return result::fail("unknown field \"" + std::string{member.key()} +
                        "\" (known fields: " + names + ")");
  }
  return result::ok(true);
}

// An optional identifier field: absent is fine, anything but a valid identifier string is not.
parsed<std::optional<std::string>> identifier_field(const boost::json::object& object,
                                                    std::string_view key) {
  using result = parsed<std::optional<std::string>>;
  const auto* field = object.if_contains(key);
  if (!field) return result::ok(std::nullopt);
  const auto* text = field->if_string();
  if (!text || !valid_identifier(*text))
    return result::fail(std::string{key} + ": " + std::string{identifier_rule});
  return result::ok(std::string{*text});
}

// Boost.JSON reads a number too large for a double (1e400) as infinity and would write it back as
// "Infinity", which no JSON parser accepts; such data must not reach the clients.
bool numbers_finite(const boost::json::value& v) {
  if (const auto* d = v.if_double()) return std::isfinite(*d);
  if (const auto* array = v.if_array())
    return std::all_of(array->begin(), array->end(), numbers_finite);
  if (const auto* object = v.if_object())
    return std::all_of(object->begin(), object->end(),
                       [](const auto& member) { return numbers_finite(member.value()); });
  return true;
}

// "users": an array of 1-1000 identifiers, returned sorted without duplicates.
parsed<std::optional<std::vector<std::string>>> users_field(const boost::json::object& object) {
  using result = parsed<std::optional<std::vector<std::string>>>;
  const auto* field = object.if_contains("users");
  if (!field) return result::ok(std::nullopt);
  const auto* array = field->if_array();
  if (!array || array->empty() || array->size() > max_users_per_publish)
    return result::fail("users: an array of 1-1000 user ids");
  std::vector<std::string> users;
  users.reserve(array->size());
  for (const auto& item : *array) {
    const auto* text = item.if_string();
    if (!text || !valid_identifier(*text))
      return result::fail("users: each " + std::string{identifier_rule});
    users.emplace_back(*text);
  }
  std::sort(users.begin(), users.end());
  users.erase(std::unique(users.begin(), users.end()), users.end());
  return result::ok(std::move(users));
}

// A duration field ("90s", "500ms", "2m"): more than zero and within max_publish_horizon.
parsed<std::optional<std::chrono::milliseconds>> duration_field(const boost::json::object& object,
                                                                std::string_view key) {
  using result = parsed<std::optional<std::chrono::milliseconds>>;
  const auto* field = object.if_contains(key);
  if (!field) return result::ok(std::nullopt);
  const auto* text = field->if_string();
  if (!text) return result::fail(std::string{key} + ": a duration string like \"90s\" or \"2h\"");
  auto d = parse_duration(*text);
  if (!d) return result::fail(std::string{key} + ": " + d.error);
  if (*d.value > max_publish_horizon) return result::fail(std::string{key} + ": at most 366 days");
  return result::ok(*d.value);
}

// "at": an integer number of milliseconds since the Unix epoch (1.7e12 written as a float is
// refused too: a fraction of a millisecond would be silently dropped).
parsed<std::optional<std::int64_t>> at_field(const boost::json::object& object) {
  using result = parsed<std::optional<std::int64_t>>;
  const auto* field = object.if_contains("at");
  if (!field) return result::ok(std::nullopt);
  if (const auto* i = field->if_int64(); i && *i >= 0) return result::ok(*i);
  return result::fail("at: an integer, milliseconds since the Unix epoch");
}

// "spread": absent is 0; otherwise a duration string no longer than `max_spread`.
parsed<std::chrono::milliseconds> spread_field(const boost::json::object& object,
                                               std::chrono::milliseconds max_spread) {
  using result = parsed<std::chrono::milliseconds>;
  const auto* field = object.if_contains("spread");
  if (!field) return result::ok(std::chrono::milliseconds{0});
  const auto* text = field->if_string();
  if (!text) return result::fail(R"(spread: a duration string such as "30s", "500ms" or "0")");
  auto spread = parse_duration(*text);
  if (!spread) return result::fail("spread: " + spread.error);
  if (*spread.value > max_spread)
    return result::fail("spread: at most " + format_duration(max_spread) + " (--max-spread)");
  return spread;
}

// "sticky": absent is false; otherwise a JSON boolean (not "true", not 1).
parsed<bool> sticky_field(const boost::json::object& object) {
  using result = parsed<bool>;
  const auto* field = object.if_contains("sticky");
  if (!field) return result::ok(false);
  if (const auto* b = field->if_bool()) return result::ok(*b);
  return result::fail("sticky: true or false");
}

// "event": absent is empty (the default); otherwise a string of 1-200 characters. Its length is
// counted in bytes here, stricter than Pusher's UTF-16 count for text beyond ASCII.
parsed<std::string> event_field(const boost::json::object& object) {
  using result = parsed<std::string>;
  const auto* field = object.if_contains("event");
  if (!field) return result::ok(std::string{});
  const auto* text = field->if_string();
  if (!text || text->empty() || text->size() > max_publish_event)
    return result::fail("event: a string of 1-200 characters (the Pusher event name)");
  return result::ok(std::string{*text});
}

}  // namespace

parsed<publish_request> parse_publish_request(std::string_view body,
                                              std::chrono::milliseconds max_spread,
                                              unknown_fields unknown) {
  using result = parsed<publish_request>;
  auto object = json_object(body);
  if (!object) return result::fail(std::move(object.error));
  if (unknown == unknown_fields::refuse) {
    auto known = only_known_fields(*object.value, {"data", "channel", "user", "users", "at",
                                                   "delay", "ttl", "spread", "sticky", "event"});
    if (!known) return result::fail(std::move(known.error));
  }

  const auto* data = object.value->if_contains("data");
  if (!data) return result::fail("data: required (any JSON value, null included)");
  if (!numbers_finite(*data)) return result::fail("data: number out of range");
  auto channel = identifier_field(*object.value, "channel");
  if (!channel) return result::fail(std::move(channel.error));
  auto user = identifier_field(*object.value, "user");
  if (!user) return result::fail(std::move(user.error));
  auto users = users_field(*object.value);
  if (!users) return result::fail(std::move(users.error));
  if (int{channel.value->has_value()} + int{user.value->has_value()} +
          int{users.value->has_value()} >
      1)
    return result::fail("give one of channel, user and users");
  auto at = at_field(*object.value);
  if (!at) return result::fail(std::move(at.error));
  auto delay = duration_field(*object.value, "delay");
  if (!delay) return result::fail(std::move(delay.error));
  if (*at.value && *delay.value) return result::fail("give at or delay, not both");
  auto ttl = duration_field(*object.value, "ttl");
  if (!ttl) return result::fail(std::move(ttl.error));
  if (*ttl.value && ttl.value->value().count() == 0) return result::fail("ttl: more than 0");
  auto spread = spread_field(*object.value, max_spread);
  if (!spread) return result::fail(std::move(spread.error));
  auto sticky = sticky_field(*object.value);
  if (!sticky) return result::fail(std::move(sticky.error));
  auto event = event_field(*object.value);
  if (!event) return result::fail(std::move(event.error));

  return result::ok(publish_request{boost::json::serialize(*data),
                                    std::move(*channel.value),
                                    std::move(*user.value),
                                    std::move(*users.value),
                                    *at.value,
                                    *delay.value,
                                    *ttl.value,
                                    *spread.value,
                                    *sticky.value,
                                    std::move(*event.value),
                                    {},
                                    {}});
}

parsed<std::optional<std::int64_t>> publish_time(const publish_request& req, std::int64_t now_ms) {
  using result = parsed<std::optional<std::int64_t>>;
  std::int64_t when = now_ms;
  if (req.at_ms) when = *req.at_ms;
  if (req.delay) when = now_ms + req.delay->count();
  if (when <= now_ms) return result::ok(std::nullopt);
  if (when - now_ms > max_publish_horizon.count())
    return result::fail("at: at most 366 days from now");
  return result::ok(when);
}

parsed<kick_request> parse_kick_request(std::string_view body) {
  using result = parsed<kick_request>;
  auto object = json_object(body);
  if (!object) return result::fail(std::move(object.error));
  auto known = only_known_fields(*object.value, {"user"});
  if (!known) return result::fail(std::move(known.error));

  auto user = identifier_field(*object.value, "user");
  if (!user) return result::fail(std::move(user.error));
  if (!*user.value) return result::fail("user: required, " + std::string{identifier_rule});
  return result::ok(kick_request{std::move(**user.value)});
}

}  // namespace ringcast
