// The first check of a connect to /ws, /sse or /poll (docs/protocol.md, "Origin and Host"): the
// page behind it (`Origin`) against the server's own origin and --allowed-origins, before its
// method, address limits, query, token or connect hook are looked at. A refused page gets
// `403 {"error":"origin"}`, counted, and a warning that names the origin and the flag (at most one
// line a second, as the per-address refusals); an admitted page gets the CORS grant that every
// reply to it carries (cross_origin.hpp; /sse and /poll only: a WebSocket has no CORS).
#pragma once

#include <boost/asio/ip/address.hpp>

#include <optional>

#include "core/transport.hpp"
#include "net/connection_context.hpp"
#include "protocol/cross_origin.hpp"

namespace ringcast {

struct origin_check {
  cors_grant grant;
  std::optional<http_response> refusal;  // the 403, the grant's headers on it
};

// `tls`: the request came over native TLS; `peer`: the TCP peer (a --trusted-proxy's
// X-Forwarded-Proto names the scheme).
origin_check check_origin(const http_request& req, transport which, connection_context& ctx,
                          const boost::asio::ip::address& peer, bool tls);

}  // namespace ringcast
