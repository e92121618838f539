#include "core/message_pusher.hpp"

#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/value.hpp>

#include "protocol/ws_codec.hpp"
#include "pusher/pusher_server_frames.hpp"

namespace ringcast {
namespace {

// The envelope's "data" as the Pusher frame carries it. The envelope is read back (once per
// message) rather than kept beside it, so a message restored from its envelope alone (an upgrade)
// frames the same.
std::string pusher_data(const message& m) {
  boost::system::error_code ec;
  const boost::json::value envelope = boost::json::parse(m.json, ec);
  const auto* object = envelope.if_object();
  const auto* data = object ? object->if_contains("data") : nullptr;
  if (!data) return "null";  // every envelope make_message builds has its data
  if (const auto* text = data->if_string()) return std::string(*text);
  return boost::json::serialize(*data);
}

void build(const message& m) {
  const std::string_view event =
      m.pusher_event.empty() ? default_pusher_event : std::string_view(m.pusher_event);
  std::optional<std::string_view> user_id;
  if (!m.pusher_user_id.empty()) user_id = m.pusher_user_id;
  const std::string text = pusher::channel_event(event, m.target, pusher_data(m), user_id);
  const auto header = ws::text_frame_header(text.size());
  m.pusher_header_size = static_cast<std::uint8_t>(header.size);
  m.pusher_ws_frame.reserve(header.size + text.size());
  m.pusher_ws_frame.append(header.view()).append(text);
}

}  // namespace

bool pusher_receives(const message& m, std::string_view socket_id) {
  return m.to == audience::channel && m.pusher_except_socket != socket_id;
}

std::string_view pusher_event_frame(const message& m) {
  return std::string_view(pusher_ws_frame(m)).substr(m.pusher_header_size);
}

const std::string& pusher_ws_frame(const message& m) {
  std::call_once(m.pusher_frame_once, [&m] { build(m); });
  return m.pusher_ws_frame;
}

}  // namespace ringcast
