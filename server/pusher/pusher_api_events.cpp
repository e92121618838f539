#include "pusher/pusher_api_events.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include "protocol/comma_list.hpp"
#include "protocol/strict_json.hpp"
#include "pusher/pusher_names.hpp"

namespace ringcast::pusher {
namespace {

namespace json = boost::json;

api_refusal bad(std::string why) {
  return {400, std::move(why)};
}

// A string member, or the refusal: `needed` says whether it may be absent.
std::variant<std::optional<std::string>, api_refusal> string_member(const json::object& o,
                                                                    std::string_view key,
                                                                    bool needed) {
  const json::value* v = o.if_contains(key);
  if (!v) {
    if (needed) return bad(fmt::format("Missing parameter: {}", key));
    return std::optional<std::string>{};
  }
  if (!v->is_string()) return bad(fmt::format("{} must be a string", key));
  return std::optional<std::string>(std::string(v->get_string()));
}

// One event: its name, data, socket_id and info; the channels are read by the caller (a list or
// one for events, one for a batch's event).
std::optional<api_refusal> read_common(const json::object& o, api_event& event) {
  for (const auto& [key, needed] : {std::pair{"name", true}, std::pair{"data", true},
                                    std::pair{"socket_id", false}, std::pair{"info", false}}) {
    auto member = string_member(o, key, needed);
    if (auto* refusal = std::get_if<api_refusal>(&member)) return std::move(*refusal);
    auto& value = std::get<std::optional<std::string>>(member);
    if (!value) continue;
    const std::string_view k = key;
    if (k == "name") event.name = std::move(*value);
    if (k == "data") event.data = std::move(*value);
    if (k == "socket_id") event.socket_id = std::move(*value);
    if (k != "info") continue;
    for (const auto attribute : comma_list(*value)) {
      if (attribute == "user_count") {
        event.user_count = true;
      } else if (attribute == "subscription_count") {
        event.subscription_count = true;
      } else {
        return bad(fmt::format("info: unknown attribute '{}' (user_count, subscription_count)",
                               attribute));
      }
    }
  }
  if (auto why = check_event_name(event.name); !why.empty()) return bad(std::move(why));
  if (event.data.size() > max_event_data)
    return api_refusal{
        413, fmt::format("data is {} bytes; at most {}", event.data.size(), max_event_data)};
  if (event.socket_id && !valid_socket_id(*event.socket_id))
    return bad(fmt::format("socket_id '{}' is not of the form digits.digits", *event.socket_id));
  return std::nullopt;
}

std::optional<api_refusal> add_channel(const json::value& v, api_event& event) {
  if (!v.is_string()) return bad("a channel must be a string");
  std::string channel(v.get_string());
  if (auto why = check_publish_channel(channel); !why.empty()) return bad(std::move(why));
  event.channels.push_back(std::move(channel));
  return std::nullopt;
}

std::variant<json::object, api_refusal> object_body(std::string_view body) {
  auto parsed = parse_strict_json(body);
  if (!parsed) return bad("body: " + parsed.error);
  if (!parsed.value->is_object()) return bad("body: expected a JSON object");
  return std::move(parsed.value->get_object());
}

}  // namespace

std::variant<api_event, api_refusal> parse_event_body(std::string_view body) {
  auto read = object_body(body);
  if (auto* refusal = std::get_if<api_refusal>(&read)) return std::move(*refusal);
  const auto& o = std::get<json::object>(read);
  api_event event;
  if (auto refusal = read_common(o, event)) return std::move(*refusal);
  const json::value* list = o.if_contains("channels");
  const json::value* one = o.if_contains("channel");
  if (list && one) return bad("give either channels or channel, not both");
  if (one) {
    if (auto refusal = add_channel(*one, event)) return std::move(*refusal);
    return event;
  }
  if (!list) return bad("Missing parameter: channels");
  if (!list->is_array() || list->get_array().empty())
    return bad("channels must be a non-empty array");
  if (list->get_array().size() > max_event_channels)
    return bad(fmt::format("channels: {} given; at most {}", list->get_array().size(),
                           max_event_channels));
  for (const auto& channel : list->get_array())
    if (auto refusal = add_channel(channel, event)) return std::move(*refusal);
  return event;
}

std::variant<std::vector<api_event>, api_refusal> parse_batch_body(std::string_view body) {
  auto read = object_body(body);
  if (auto* refusal = std::get_if<api_refusal>(&read)) return std::move(*refusal);
  const json::value* batch = std::get<json::object>(read).if_contains("batch");
  if (!batch || !batch->is_array() || batch->get_array().empty())
    return bad("batch must be a non-empty array");
  if (batch->get_array().size() > max_batch_events)
    return bad(
        fmt::format("batch: {} events; at most {}", batch->get_array().size(), max_batch_events));
  std::vector<api_event> events;
  for (const auto& item : batch->get_array()) {
    const auto where = fmt::format("batch[{}]: ", events.size());
    if (!item.is_object()) return bad(where + "expected a JSON object");
    api_event event;
    if (auto refusal = read_common(item.get_object(), event))
      return api_refusal{refusal->status, where + refusal->body};
    const json::value* channel = item.get_object().if_contains("channel");
    if (!channel) return bad(where + "Missing parameter: channel");
    if (auto refusal = add_channel(*channel, event)) return bad(where + refusal->body);
    events.push_back(std::move(event));
  }
  return events;
}

}  // namespace ringcast::pusher
