#include "core/message.hpp"

#include <algorithm>

#include <fmt/format.h>
#include <fmt/ranges.h>
#include <boost/json/serialize.hpp>
#include <boost/json/string_view.hpp>

namespace ringcast {

std::string_view name_of(audience a) {
  switch (a) {
    case audience::broadcast:
      return "broadcast";
    case audience::channel:
      return "channel";
    case audience::user:
      return "user";
    case audience::users:
      return "users";
  }
  return "broadcast";
}

std::optional<audience> audience_named(std::string_view name) {
  for (const audience a :
       {audience::broadcast, audience::channel, audience::user, audience::users}) {
    if (name_of(a) == name) return a;
  }
  return std::nullopt;
}

addressee addressee_of(const publish_request& req) {
  if (req.user) return {audience::user, *req.user};
  if (req.users) return {audience::users, fmt::format("{}", fmt::join(*req.users, ","))};
  if (req.channel) return {audience::channel, *req.channel};
  return {};
}

pusher_shape pusher_shape_of(const publish_request& req) {
  return {req.event, req.except_socket, req.sender_user_id};
}

std::string messages_json(const std::vector<message_ptr>& messages, std::uint64_t last_id,
                          bool gap) {
  std::string tail = messages_tail(last_id, gap, false);
  std::size_t size = messages_head.size() + tail.size();
  for (const auto& m : messages)
    size += m->json.size() + messages_separator.size();
  std::string out;
  out.reserve(size);
  out += messages_head;
  for (std::size_t i = 0; i < messages.size(); ++i) {
    if (i) out += messages_separator;
    out += messages[i]->json;
  }
  out += tail;
  return out;
}

std::string messages_tail(std::uint64_t last_id, bool gap, bool more) {
  return fmt::format(R"(],"last_id":{},"gap":{}{}}})", last_id, gap, more ? R"(,"more":true)" : "");
}

bool message::addressed_to_user(std::string_view user) const {
  return std::binary_search(users.begin(), users.end(), user);
}

namespace {

// The envelope's "channel": "*", the channel, "user:<id>", or "users" for a list of users, as a
// JSON string. Identifiers are [A-Za-z0-9_.:@-], but a channel of the Pusher door may be
// "#server-to-user-" and any user id, so the channel's name is escaped.
std::string channel_label(const addressee& to) {
  switch (to.to) {
    case audience::broadcast:
      return R"("*")";
    case audience::user:
      return "\"user:" + to.target + '"';
    case audience::users:
      return R"("users")";
    case audience::channel:
      break;
  }
  return boost::json::serialize(boost::json::string_view{to.target});
}

std::vector<std::string> split_users(std::string_view list) {
  std::vector<std::string> users;
  while (!list.empty()) {
    const auto comma = list.find(',');
    users.emplace_back(list.substr(0, comma));
    list = comma == std::string_view::npos ? std::string_view{} : list.substr(comma + 1);
  }
  std::sort(users.begin(), users.end());
  return users;
}

}  // namespace

void complete_message(message& m) {
  if (m.to == audience::users) m.users = split_users(m.target);
  m.sse_prefix = fmt::format("id: {}\nevent: message\ndata: ", m.id);
  m.ws_frame = ws::text_frame(m.json);
  // Every held poll answered with this message gets these same bytes.
  m.poll_body = fmt::format(R"({{"type":"messages","messages":[{}],"last_id":{},"gap":false}})",
                            m.json, m.id);
}

message_ptr make_message(std::uint64_t id, std::int64_t ts_ms, addressee to,
                         std::string_view data_json, std::int64_t expires_ms,
                         std::chrono::milliseconds spread, bool sticky, pusher_shape pusher) {
  auto m = std::make_shared<message>();
  std::string extra = expires_ms ? fmt::format(R"(,"expires":{})", expires_ms) : "";
  // A paced message says so: it may arrive after messages with higher ids (docs/protocol.md).
  if (spread.count() > 0) extra += fmt::format(R"(,"spread_ms":{})", spread.count());
  m->json = fmt::format(R"({{"type":"message","id":{},"channel":{},"ts":{}{},"data":{}}})", id,
                        channel_label(to), ts_ms, extra, data_json);
  m->id = id;
  m->ts_ms = ts_ms;
  m->to = to.to;
  m->target = std::move(to.target);
  m->expires_ms = expires_ms;
  m->spread = spread;
  m->sticky = sticky;
  m->pusher_event = std::move(pusher.event);
  m->pusher_except_socket = std::move(pusher.except_socket);
  m->pusher_user_id = std::move(pusher.user_id);
  complete_message(*m);
  return m;
}

message_ptr make_expired_notice(std::uint64_t id, std::uint64_t last_id) {
  auto m = std::make_shared<message>();
  m->id = id;
  m->json = fmt::format(R"({{"type":"expired","id":{}}})", id);
  m->sse_prefix = "event: expired\ndata: ";
  m->ws_frame = ws::text_frame(m->json);
  m->poll_body = fmt::format(R"({{"type":"messages","messages":[{}],"last_id":{},"gap":false}})",
                             m->json, last_id);
  return m;
}

}  // namespace ringcast
