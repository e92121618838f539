// Cross-origin replies of /sse and /poll as browsers require them (CORS, the Fetch standard;
// docs/protocol.md, "Origin and Host"): a page of an origin that --allowed-origins lists may read
// what ringcast answers it, with its cookies (EventSource `withCredentials`, fetch `credentials:
// 'include'`); a page that only "*" admits may read it without cookies; any other page reads
// nothing but the 403 that refuses it. WebSocket has no CORS: its Origin check is the whole story.
#pragma once

#include <optional>
#include <string>
#include <string_view>

#include "protocol/http_reply.hpp"
#include "protocol/origin_policy.hpp"

namespace ringcast {

// What a reply tells the browser about the page that asked.
struct cors_grant {
  std::string allow_origin;  // Access-Control-Allow-Origin; empty: none (no Origin, same origin)
  bool credentials = false;  // Access-Control-Allow-Credentials: true
};

// listed: the Origin itself, with credentials; any: "*" without; refused: the Origin with
// credentials, for its 403 only (the page learns why, and nothing else); otherwise none.
cors_grant grant_for(origin_verdict verdict, std::optional<std::string_view> origin);

// The grant's headers and `Vary: Origin` (a reply depends on Origin whether it grants or not).
void add_cors_headers(http_response& res, const cors_grant& grant);
// The same as header lines, each ending in CRLF, for a response head written by hand (SSE).
std::string cors_header_lines(const cors_grant& grant);

// A CORS preflight: OPTIONS with Access-Control-Request-Method, which a browser sends before a
// cross-origin request with a header that is not CORS-safelisted (Authorization, Last-Event-ID).
bool is_preflight(const http_request& req);
// The answer to the preflight of an admitted page: 204, GET only, the request headers a connect
// reads (Authorization, Last-Event-ID), remembered by the browser for 10 minutes.
http_response preflight_response(const http_request& req, const cors_grant& grant);

}  // namespace ringcast
