// The operations endpoints (PROTOCOL.md section 6): /admin/publish, /admin/kick, /admin/stats
// (admin token required), /metrics and /healthz (open).
#pragma once

#include <functional>

#include "event_loop.hpp"
#include "http_reply.hpp"

namespace ringcast {

// Answers a request whose path is /healthz, /metrics or /admin/...; `reply` may run later, on
// `loop`.
void handle_operations(event_loop& loop, const http_request& req,
                       std::function<void(http_response)> reply);

// Compares in time that depends only on the lengths, not on where the strings differ.
bool same_token(std::string_view given, std::string_view expected);

}  // namespace ringcast
