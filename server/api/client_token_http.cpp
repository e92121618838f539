#include "api/client_token_http.hpp"

#include <boost/beast/http/field.hpp>
#include <boost/json/parse.hpp>

#include <fmt/format.h>

#include <chrono>

#include "protocol/client_auth.hpp"

namespace ringcast {

namespace http = boost::beast::http;

std::optional<http_response> check_client_token(const token_verifier& tokens,
                                                const http_request& req, client_params& params,
                                                const loop_timers& timers) {
  std::string_view token = params.token;
  if (token.empty()) {
    if (auto header = req.find(http::field::authorization); header != req.end()) {
      const auto bearer = bearer_token(header->value());
      if (!bearer) return unauthorized_response("Authorization: expected 'Bearer <token>'", req);
      token = *bearer;
    }
  }
  if (token.empty())
    return unauthorized_response("token: required (token= or Authorization: Bearer)", req);
  const std::chrono::system_clock::time_point wall_now{std::chrono::milliseconds(timers.unix_ms())};
  const auto now_s =
      std::chrono::duration_cast<std::chrono::seconds>(wall_now.time_since_epoch()).count();
  auto claims = tokens.verify(token, now_s);
  if (!claims) return unauthorized_response(claims.error, req);
  if (auto why = apply_claims(*claims.value, params))
    return error_response(http_status::forbidden, "forbidden", *why, req);
  if (claims.value->exp)
    params.expires = token_deadline(*claims.value->exp, wall_now, timers.now());
  return std::nullopt;
}

http_response demo_token_response(const http_request& req, bool tokens_required,
                                  std::string_view secret, std::int64_t now_ms) {
  constexpr std::chrono::minutes lifetime{5};
  if (req.method() == http::verb::get) {
    return json_response(
        http_status::ok,
        fmt::format(R"({{"required":{},"mint":{}}})", tokens_required, !secret.empty()), req);
  }
  if (secret.empty())
    return error_response(http_status::not_found, "not_found", "no such path", req);
  boost::system::error_code ec;
  const auto body = boost::json::parse(req.body(), ec);
  const auto* user = !ec && body.is_object() ? body.as_object().if_contains("user") : nullptr;
  if (!user || !user->is_string() || !valid_identifier(user->as_string())) {
    return error_response(http_status::bad_request, "bad_request",
                          "expected {\"user\": \"1-64 characters of [A-Za-z0-9_.:@-]\"}", req);
  }
  const auto exp_s = std::chrono::duration_cast<std::chrono::seconds>(
      std::chrono::milliseconds(now_ms) + lifetime);
  const std::string token = mint_hs256(secret, user->as_string(), exp_s.count());
  return json_response(http_status::ok,
                       fmt::format(R"({{"token":"{}","expires_in":{}}})", token,
                                   std::chrono::seconds{lifetime}.count()),
                       req);
}

}  // namespace ringcast
