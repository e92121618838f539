#include "net/admission.hpp"

#include <fmt/format.h>
#include <boost/beast/http/verb.hpp>
#include <boost/beast/websocket/rfc6455.hpp>

#include "api/client_token_http.hpp"
#include "api/route_table.hpp"
#include "protocol/duration.hpp"

namespace ringcast {

namespace http = boost::beast::http;

std::variant<admission, http_response> admit(http_request req, transport which,
                                             connection_context& ctx, cors_grant cors) {
  if (req.method() != client_method) {
    auto res = error_response(http_status::method_not_allowed, "method_not_allowed",
                              fmt::format("use {}", http::to_string(client_method)), req);
    res.set(http::field::allow, http::to_string(client_method));
    return res;
  }
  const token_verifier* tokens = ctx.client_tokens();
  auto params = parse_client_params(req.target(), /*user_required=*/!tokens);
  if (!params) return error_response(http_status::bad_request, "bad_request", params.error, req);
  if (tokens) {
    if (auto refusal = check_client_token(*tokens, req, *params.value, ctx.timers())) {
      return std::move(*refusal);
    }
  }
  if (which == transport::sse && !params.value->since) {
    if (auto last = req.find("Last-Event-ID"); last != req.end()) {
      params.value->since = parse_message_id(last->value());
      if (!params.value->since) {
        return error_response(http_status::bad_request, "bad_request",
                              "Last-Event-ID: expected a message id", req);
      }
    }
  }
  if (auto& p = *params.value; p.rewind_for) {
    // A client rewinds no further than a session could have been away and resumed.
    const auto most = ctx.sessions().settings().session_ttl;
    if (*p.rewind_for > most) {
      return error_response(
          http_status::bad_request, "bad_request",
          fmt::format("rewind: at most {} (--session-ttl)", format_duration(most)), req);
    }
    p.rewind_after_ms = ctx.timers().unix_ms() - p.rewind_for->count();
  }
  if (which == transport::ws && !boost::beast::websocket::is_upgrade(req)) {
    return error_response(http_status::upgrade_required, "bad_request",
                          "/ws expects a WebSocket upgrade", req);
  }
  return admission{which, std::move(*params.value), std::move(req), std::move(cors)};
}

}  // namespace ringcast
