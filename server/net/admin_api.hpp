// The operations endpoints (docs/protocol.md, "Admin and operations"): /admin/publish, /admin/kick,
// /admin/stats (admin token required), /metrics and /healthz (open).
#pragma once

#include <functional>

#include <boost/asio/any_io_executor.hpp>

#include <string_view>

#include "http_reply.hpp"
#include "node_operations.hpp"

namespace ringcast {

struct connection_settings;

// Answers a request whose path is /healthz, /metrics or /admin/...; `reply` may run later, on
// `origin`. `admin_token` guards /admin/*.
void handle_operations(node_operations& node, const connection_settings& settings,
                       boost::asio::any_io_executor origin, const http_request& req,
                       std::function<void(http_response)> reply);

// Compares in time that depends only on the lengths, not on where the strings differ.
bool same_token(std::string_view given, std::string_view expected);

}  // namespace ringcast
