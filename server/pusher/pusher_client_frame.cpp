#include "pusher/pusher_client_frame.hpp"

#include <fmt/format.h>
#include <boost/json.hpp>

#include "protocol/strict_json.hpp"
#include "pusher/pusher_names.hpp"

namespace ringcast::pusher {
namespace {

namespace json = boost::json;

frame_refusal refuse(std::string message) {
  return {std::nullopt, std::move(message)};
}

// A string field of `data`: its text, or nothing when absent; `wrong` is set when it is there but
// not a string.
std::optional<std::string> string_field(const json::object& data, std::string_view name,
                                        std::string& wrong) {
  const json::value* field = data.if_contains(name);
  if (!field || field->is_null()) return std::nullopt;
  if (!field->is_string()) {
    wrong = fmt::format("'{}' must be a string", name);
    return std::nullopt;
  }
  return std::string(field->get_string());
}

client_frame subscription(std::string_view event, const json::object& data) {
  std::string wrong;
  auto channel = string_field(data, "channel", wrong);
  auto auth = string_field(data, "auth", wrong);
  auto channel_data = string_field(data, "channel_data", wrong);
  if (!wrong.empty()) return refuse(fmt::format("{}: {}", event, wrong));
  if (!channel) return refuse(fmt::format("{}: data.channel is missing", event));
  if (event == "pusher:unsubscribe") return unsubscribe_frame{std::move(*channel)};
  return subscribe_frame{std::move(*channel), auth.value_or(""), std::move(channel_data)};
}

client_frame signin(const json::object& data) {
  std::string wrong;
  auto auth = string_field(data, "auth", wrong);
  auto user_data = string_field(data, "user_data", wrong);
  if (!wrong.empty()) return refuse("pusher:signin: " + wrong);
  if (!auth || !user_data) return refuse("pusher:signin: data.auth and data.user_data are needed");
  return signin_frame{std::move(*auth), std::move(*user_data)};
}

client_frame client_event(std::string event, const json::object& frame) {
  if (auto bad = check_client_event_name(event); !bad.empty()) return refuse(std::move(bad));
  const json::value* channel = frame.if_contains("channel");
  if (!channel || !channel->is_string())
    return refuse(fmt::format("client event '{}' has no channel", event));
  std::optional<std::string> data;
  if (const json::value* value = frame.if_contains("data")) {
    data = value->is_string() ? std::string(value->get_string()) : json::serialize(*value);
  }
  return client_event_frame{std::move(event), std::string(channel->get_string()), std::move(data)};
}

}  // namespace

client_frame parse_client_frame(std::string_view text) {
  if (text.size() > max_client_frame)
    return refuse(fmt::format("frame is {} bytes; at most {}", text.size(), max_client_frame));
  // A key given twice would mean what one reader takes it to mean (strict_json.hpp).
  const auto frame = parse_strict_json(text);
  if (!frame) return refuse("frame refused: " + frame.error);
  if (!frame.value->is_object()) return refuse("frame is not a JSON object");
  const json::object& object = frame.value->get_object();
  const json::value* event_field = object.if_contains("event");
  if (!event_field || !event_field->is_string()) return refuse("frame has no event name");
  std::string event(event_field->get_string());
  if (event.starts_with("client-")) return client_event(std::move(event), object);

  static const json::object no_data;
  const json::value* data_field = object.if_contains("data");
  if (data_field && !data_field->is_object() && !data_field->is_null())
    return refuse(fmt::format("{}: data must be an object", event));
  const json::object& data =
      data_field && data_field->is_object() ? data_field->get_object() : no_data;
  if (event == "pusher:ping") return ping_frame{};
  if (event == "pusher:pong") return pong_frame{};
  if (event == "pusher:subscribe" || event == "pusher:unsubscribe")
    return subscription(event, data);
  if (event == "pusher:signin") return signin(data);
  return refuse(
      fmt::format("unsupported event '{}': a client sends pusher:ping, pusher:pong, "
                  "pusher:subscribe, pusher:unsubscribe, pusher:signin or client-*",
                  event));
}

}  // namespace ringcast::pusher
