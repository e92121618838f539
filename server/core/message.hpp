// A published message: serialized once, shared immutably by every queue it is put on.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "admin_request.hpp"
#include "ws_codec.hpp"

namespace ringcast {

enum class audience : std::uint8_t { broadcast, channel, user };
// "broadcast", "channel", "user": as the Redis stream records them.
std::string_view name_of(audience a);
std::optional<audience> audience_named(std::string_view name);

// Whom a publish request addresses: the audience and its channel name or user id (empty for a
// broadcast).
struct addressee {
  audience to = audience::broadcast;
  std::string target;
};
addressee addressee_of(const publish_request& req);

struct message {
  std::uint64_t id = 0;
  std::int64_t ts_ms = 0;  // publish time, Unix milliseconds
  audience to = audience::broadcast;
  std::string target;      // channel name or user id; empty for a broadcast
  std::string json;        // the whole {"type":"message",...} envelope
  std::string sse_prefix;  // "id: <id>\nevent: message\ndata: " (the event: prefix + json + "\n\n")
  std::string poll_body;   // a long-poll reply carrying just this message
  ws::frame_header ws_header;           // of the WebSocket text frame whose payload is `json`
  std::chrono::milliseconds spread{0};  // > 0: paced, each session at its turn (core/pacing.hpp)
};

using message_ptr = std::shared_ptr<const message>;

// {"type":"messages","messages":[...],"last_id":N,"gap":false}: a long-poll reply.
std::string messages_json(const std::vector<message_ptr>& messages, std::uint64_t last_id,
                          bool gap);

// Builds the envelope around `data_json` (already valid, compact JSON).
// `spread` > 0 makes it a paced message; its envelope then carries "spread_ms".
message_ptr make_message(std::uint64_t id, std::int64_t ts_ms, addressee to,
                         std::string_view data_json,
                         std::chrono::milliseconds spread = std::chrono::milliseconds{0});

}  // namespace ringcast
