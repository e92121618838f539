#include "message.hpp"

#include <fmt/format.h>

namespace ringcast {

message_ptr make_message(std::uint64_t id, std::int64_t ts_ms, audience to, std::string target,
                         std::string_view data_json) {
  auto m = std::make_shared<message>();
  m->id = id;
  m->ts_ms = ts_ms;
  m->to = to;
  // Identifiers are restricted to [A-Za-z0-9_.:@-], so the channel label needs no JSON escaping.
  std::string label = to == audience::broadcast ? "*"
                      : to == audience::user    ? "user:" + target
                                                : target;
  m->target = std::move(target);
  m->json = fmt::format(R"({{"type":"message","id":{},"channel":"{}","ts":{},"data":{}}})", id,
                        label, ts_ms, data_json);
  m->sse_prefix = fmt::format("id: {}\nevent: message\ndata: ", id);
  return m;
}

}  // namespace ringcast
