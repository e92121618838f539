#include "message.hpp"

#include <fmt/format.h>

namespace ringcast {

std::string_view name_of(audience a) {
  switch (a) {
    case audience::broadcast:
      return "broadcast";
    case audience::channel:
      return "channel";
    case audience::user:
      return "user";
  }
  return "broadcast";
}

std::optional<audience> audience_named(std::string_view name) {
  for (const audience a : {audience::broadcast, audience::channel, audience::user}) {
    if (name_of(a) == name) return a;
  }
  return std::nullopt;
}

addressee addressee_of(const publish_request& req) {
  if (req.user) return {audience::user, *req.user};
  if (req.channel) return {audience::channel, *req.channel};
  return {};
}

std::string messages_json(const std::vector<message_ptr>& messages, std::uint64_t last_id,
                          bool gap) {
  std::size_t size = 64;
  for (const auto& m : messages)
    size += m->json.size() + 1;
  std::string out;
  out.reserve(size);
  out += R"({"type":"messages","messages":[)";
  for (std::size_t i = 0; i < messages.size(); ++i) {
    if (i) out += ',';
    out += messages[i]->json;
  }
  out += fmt::format(R"(],"last_id":{},"gap":{}}})", last_id, gap);
  return out;
}

message_ptr make_message(std::uint64_t id, std::int64_t ts_ms, addressee to,
                         std::string_view data_json, std::chrono::milliseconds spread) {
  auto m = std::make_shared<message>();
  m->id = id;
  m->ts_ms = ts_ms;
  m->to = to.to;
  // Identifiers are restricted to [A-Za-z0-9_.:@-], so the channel label needs no JSON escaping.
  const std::string label = to.to == audience::broadcast ? "*"
                            : to.to == audience::user    ? "user:" + to.target
                                                         : to.target;
  m->target = std::move(to.target);
  m->spread = spread;
  // A paced message says so: it may arrive after messages with higher ids (docs/protocol.md).
  const std::string paced =
      spread.count() > 0 ? fmt::format(R"(,"spread_ms":{})", spread.count()) : std::string();
  m->json = fmt::format(R"({{"type":"message","id":{},"channel":"{}","ts":{}{},"data":{}}})", id,
                        label, ts_ms, paced, data_json);
  m->sse_prefix = fmt::format("id: {}\nevent: message\ndata: ", id);
  m->ws_header = ws::text_frame_header(m->json.size());
  // Every held poll answered with this message gets these same bytes.
  m->poll_body =
      fmt::format(R"({{"type":"messages","messages":[{}],"last_id":{},"gap":false}})", m->json, id);
  return m;
}

}  // namespace ringcast
