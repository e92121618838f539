// The server -> client envelopes other than `message` (docs/protocol.md, "Envelopes (server →
// client)").
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/message.hpp"

namespace ringcast {

// Why a connection ends. The first group is answered `reconnect`, the second `close`.
enum class ending : std::uint8_t {
  reconnect_timeout,
  reconnect_replaced,
  reconnect_shutdown,
  reconnect_rebalance,
  close_idle,
  close_kicked,
  close_replaced,
  close_slow,
  close_expired,
};

bool is_reconnect(ending e);
std::string_view reason_of(ending e);

struct ending_notice {
  ending why;
  std::uint32_t retry_ms = 0;  // reconnect only
  std::string json;            // the envelope
};

ending_notice make_ending(ending why, std::uint32_t retry_ms, std::uint64_t last_id);

struct hello_fields {
  std::string_view user;
  std::string_view sid;
  bool resumed = false;
  std::uint64_t last_id = 0;
  bool gap = false;
  std::uint32_t heartbeat_s = 0;
  std::uint32_t idle_timeout_s = 0;
  std::uint32_t session_ttl_s = 0;
};
std::string hello_json(const hello_fields& h);

std::string pong_json();
// `code` is one of bad_request, too_large, unauthorized, not_found, overloaded.
std::string error_json(std::string_view code, std::string_view message);

// One Server-Sent Event: "event: <name>\n[retry: N\n]data: <json>\n\n".
std::string sse_event(std::string_view name, std::string_view json,
                      std::optional<std::uint32_t> retry_ms = std::nullopt);

}  // namespace ringcast
