// The WebSocket upgrade's 101, written by ringcast itself so that it leaves with the hello in one
// write (docs/performance.md, section 16, "The connect path, second pass"): no websocket::stream
// is built for it, no cork is set and taken off. Only an upgrade Beast's accept would take is
// answered here, with the bytes Beast would write; any other is left to Beast, whose 400 and 426
// refusals stay exactly what they were (tests/server/net/ws_handshake_test.cpp holds the two to
// each other).
#pragma once

#include <optional>
#include <string>

#include "net/connection_context.hpp"
#include "protocol/http_reply.hpp"
#include "tls/net_stream.hpp"

namespace ringcast {

// Whether Beast's websocket accept would switch protocols for `req` (RFC 6455 4.2.1 as Beast
// checks it: HTTP/1.1 GET, Host, Connection naming upgrade, Upgrade naming websocket, a
// Sec-WebSocket-Key of at most 24 characters, Sec-WebSocket-Version 13).
bool beast_would_accept(const http_request& req);

// The 101 for an upgrade beast_would_accept() takes, as Beast writes it with ringcast's Server
// field, and `extensions` (the permessage-deflate answer, ours) when there is one.
std::string switching_protocols(const http_request& req,
                                const std::optional<std::string>& extensions);

// An upgrade beast_would_accept() does not take, answered by Beast as before ringcast wrote its own
// 101: its 400, or its 426 naming version 13, within --handshake-timeout, with the Server field
// (and `extensions`) ringcast's 101 would carry. Nothing is attached; the connection closes after.
void beast_refuses_upgrade(connection_context& ctx, net_stream stream, const http_request& req,
                           std::optional<std::string> extensions);

}  // namespace ringcast
