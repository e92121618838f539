// A published message: serialized once, shared immutably by every queue it is put on.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

namespace ringcast {

enum class audience : std::uint8_t { broadcast, channel, user };

struct message {
  std::uint64_t id = 0;
  std::int64_t ts_ms = 0;  // publish time, Unix milliseconds
  audience to = audience::broadcast;
  std::string target;  // channel name or user id; empty for a broadcast
  std::string json;    // the whole {"type":"message",...} envelope
  std::string
      sse_prefix;  // "id: <id>\nevent: message\ndata: " (the frame is prefix + json + "\n\n")
};

using message_ptr = std::shared_ptr<const message>;

// Builds the envelope around `data_json` (already valid, compact JSON).
message_ptr make_message(std::uint64_t id, std::int64_t ts_ms, audience to, std::string target,
                         std::string_view data_json);

}  // namespace ringcast
