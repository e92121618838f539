// A connect to /ws, /sse or /poll, checked once, on the loop that read it: method, Origin
// (--allowed-origins), query, client token, Last-Event-ID and the WebSocket upgrade (a drain is
// answered before, for any request). What comes out travels with the connection to its session's
// loop, where nothing is parsed or verified again.
#pragma once

#include <optional>
#include <string_view>
#include <variant>

#include "client_params.hpp"
#include "connection_context.hpp"
#include "http_reply.hpp"
#include "transport.hpp"

namespace ringcast {

struct admission {
  transport endpoint;
  client_params params;  // with the client token's identity, channels and expiry applied
  http_request request;  // the upgrade (WebSocket), and the version and keep-alive of replies
};

// The admission, or the response that refuses it (docs/protocol.md, "Admin and operations" for
// the error shape).
std::variant<admission, http_response> admit(http_request req, transport which,
                                             connection_context& ctx);

}  // namespace ringcast
