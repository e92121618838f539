// Client tokens: JWTs that the client endpoints (/ws, /sse, /poll) require when the server has a
// --client-secret (HS256) or a --client-public-key (RS256 or ES256, by the key's type).
//
// The signature is checked by libjwt; the algorithm is fixed by the configured key, so a token
// whose header names another one (`none`, or HS256 signed with the public key as the secret) is
// refused before its claims are read. Claims used: `sub` (the user, required), `sid` (the session),
// `channels` (the only channels the client may subscribe to), `exp` and `nbf` (Unix seconds), and
// with --client-audience / --client-issuer `aud` and `iss`. A header with `crit` is refused: this
// server understands no JWS extension (RFC 7515 §4.1.11).
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/client_params.hpp"
#include "protocol/parsed.hpp"

namespace ringcast {

struct token_claims {
  std::string sub;
  std::optional<std::string> sid = std::nullopt;
  std::optional<std::vector<std::string>> channels = std::nullopt;
  std::optional<std::int64_t> exp = std::nullopt;  // Unix seconds
};

class token_verifier {
 public:
  // An HS256 secret: any non-empty byte string.
  static parsed<token_verifier> with_secret(std::string secret, bool require_exp);
  // A PEM public key: RSA (RS256, at least 2048 bits) or EC on P-256 (ES256). The error names
  // what is wrong with the key ("not a PEM public key", "EC keys must be on P-256", ...).
  static parsed<token_verifier> with_public_key(std::string pem, bool require_exp);

  // With a non-empty `audience`, a token must name it in `aud` (a string, or an array of them);
  // with a non-empty `issuer`, its `iss` must be exactly that. Else it is refused (401).
  void require_claims(std::string audience, std::string issuer) {
    audience_ = std::move(audience);
    issuer_ = std::move(issuer);
  }

  std::string_view algorithm() const { return algorithm_; }
  // The claims of a token that is well-formed, signed with this key by this algorithm, and valid
  // at `now_s` (Unix seconds). The error is for the client (a 401 body): "token: expired".
  parsed<token_claims> verify(std::string_view token, std::int64_t now_s) const;

 private:
  token_verifier(std::string_view algorithm, std::string key, bool require_exp)
      : algorithm_(algorithm), key_(std::move(key)), require_exp_(require_exp) {}

  std::string_view algorithm_;  // "HS256", "RS256" or "ES256"
  std::string key_;
  bool require_exp_;
  std::string audience_;  // --client-audience; empty: `aud` is not checked
  std::string issuer_;    // --client-issuer; empty: `iss` is not checked
};

// The longest a token's `exp` can keep a connection: a later `exp` (the year 3000, 2^63-1
// seconds) is clamped to this, never converted past what the steady clock holds.
constexpr std::chrono::seconds token_lifetime_clamp{std::chrono::hours{24 * 365 * 100}};

// The steady-clock instant at which a token that expires at `exp_s` (Unix seconds, after
// `wall_now`) ends its connection, `steady_now` being the same instant as `wall_now`; at most
// token_lifetime_clamp from now.
std::chrono::steady_clock::time_point token_deadline(
    std::int64_t exp_s, std::chrono::system_clock::time_point wall_now,
    std::chrono::steady_clock::time_point steady_now);

// The token in an `Authorization` header value "Bearer <token>" (the scheme in any case).
std::optional<std::string_view> bearer_token(std::string_view authorization);

// Makes a verified token the identity of a connect: `sub` becomes the user and `sid` (if the
// token has one) the session; the token's channels become the session's allowed channels. A
// query that names another user or sid, or asks for a channel outside the token's, is refused:
// the error (for a 403 body) says which.
std::optional<std::string> apply_claims(const token_claims& claims, client_params& params);

// Mints an HS256 token for `user` valid until `exp` (Unix seconds): the demo's POST /demo/token.
std::string mint_hs256(std::string_view secret, std::string_view user, std::int64_t exp);

}  // namespace ringcast
