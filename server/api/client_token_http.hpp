// The HTTP side of client tokens: checking the token of a connect, and the demo's token minting.
#pragma once

#include <chrono>
#include <optional>
#include <string_view>

#include "core/loop_timers.hpp"
#include "protocol/client_params.hpp"
#include "protocol/http_reply.hpp"

namespace ringcast {

class token_verifier;

// With client tokens configured, a connect must carry one (`token=`, else `Authorization: Bearer`)
// that verifies; its claims then set the identity, allowed channels and expiry of `params`. The
// token's `exp` is read on the loop's wall clock and becomes a time of its steady clock (both
// from `timers`). Returns the refusal (401, or 403 for a query the token does not allow), if any.
std::optional<http_response> check_client_token(const token_verifier& tokens,
                                                const http_request& req, client_params& params,
                                                const loop_timers& timers);

// /demo/token. GET, on every server: {"required":bool,"mint":bool}, whether connects need a client
// token and whether POST mints one, so that the storefront asks for a token only where it can
// have one. POST {"user":"..."}: a short-lived HS256 client token signed with `demo_secret` (set
// with --demo and --client-secret; empty: 404), expiring 5 minutes after `now_ms` (Unix ms).
// Other methods are route_table's 405.
http_response demo_token_response(const http_request& req, bool tokens_required,
                                  std::string_view demo_secret, std::int64_t now_ms);

}  // namespace ringcast
