// A connect to /ws, /sse or /poll, checked once, on the loop that read it: method, query, client
// token, Last-Event-ID and the WebSocket upgrade (its Origin, and a drain, are answered before:
// origin_check.hpp). What comes out travels with the connection to its session's
// loop, where nothing is parsed or verified again.
#pragma once

#include <optional>
#include <string_view>
#include <variant>

#include "core/transport.hpp"
#include "net/connection_context.hpp"
#include "protocol/client_params.hpp"
#include "protocol/cross_origin.hpp"
#include "protocol/http_reply.hpp"

namespace ringcast {

struct admission {
  transport endpoint;
  client_params params;  // with the client token's identity, channels and expiry applied
  http_request request;  // the upgrade (WebSocket), and the version and keep-alive of replies
  cors_grant cors;       // what every reply tells the page (origin_check.hpp)
};

// The admission, or the response that refuses it (docs/protocol.md, "Admin and operations" for
// the error shape).
// `cors`: the Origin check's grant, for the replies of the connect's transport.
std::variant<admission, http_response> admit(http_request req, transport which,
                                             connection_context& ctx, cors_grant cors);

}  // namespace ringcast
