#include "protocol/client_auth.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <memory>

#include <fmt/format.h>
#include <boost/json/parse.hpp>
#include <boost/json/value.hpp>

#include <jwt.h>
#include <openssl/bio.h>
#include <openssl/evp.h>
#include <openssl/obj_mac.h>
#include <openssl/objects.h>
#include <openssl/pem.h>

namespace ringcast {
namespace {

namespace json = boost::json;

struct jwt_deleter {
  void operator()(jwt_t* j) const { jwt_free(j); }
};
using jwt_ptr = std::unique_ptr<jwt_t, jwt_deleter>;

struct c_string_deleter {
  void operator()(char* s) const { std::free(s); }
};
using c_string = std::unique_ptr<char, c_string_deleter>;

struct pkey_deleter {
  void operator()(EVP_PKEY* k) const { EVP_PKEY_free(k); }
};
struct bio_deleter {
  void operator()(BIO* b) const { BIO_free(b); }
};

int base64url_digit(char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return c - 'a' + 26;
  if (c >= '0' && c <= '9') return c - '0' + 52;
  if (c == '-') return 62;
  if (c == '_') return 63;
  return -1;
}

// The JOSE header is read before libjwt sees the token, to refuse any algorithm but the one the
// key is for: libjwt 1.10 would otherwise verify by the header's choice (HS256 keyed with a
// public key's PEM text, or `none`).
std::optional<std::string> base64url_decode(std::string_view text) {
  std::string out;
  std::uint32_t bits = 0;
  int count = 0;
  for (const char c : text) {
    const int digit = base64url_digit(c);
    if (digit < 0) return std::nullopt;
    bits = (bits << 6) | static_cast<std::uint32_t>(digit);
    count += 6;
    if (count >= 8) {
      count -= 8;
      out += static_cast<char>((bits >> count) & 0xffu);
    }
  }
  if (count >= 6) return std::nullopt;  // a lone trailing character encodes no byte
  return out;
}

struct jose_header {
  std::string alg;
  bool critical = false;  // `crit` names extensions the recipient must understand
};

std::optional<jose_header> read_header(std::string_view token) {
  const auto dot = token.find('.');
  if (dot == std::string_view::npos) return std::nullopt;
  const auto header = base64url_decode(token.substr(0, dot));
  if (!header) return std::nullopt;
  boost::system::error_code ec;
  const json::value v = json::parse(*header, ec);
  if (ec || !v.is_object()) return std::nullopt;
  const json::value* alg = v.as_object().if_contains("alg");
  if (!alg || !alg->is_string()) return std::nullopt;
  return jose_header{std::string(alg->as_string()), v.as_object().contains("crit")};
}

// `aud` is a string or an array of strings (RFC 7519 §4.1.3); it must name `audience`.
bool names_audience(const json::value* aud, std::string_view audience) {
  if (!aud) return false;
  if (aud->is_string()) return aud->as_string() == audience;
  if (!aud->is_array()) return false;
  const auto& list = aud->as_array();
  return std::any_of(list.begin(), list.end(), [&](const json::value& a) {
    return a.is_string() && a.as_string() == audience;
  });
}

std::optional<std::int64_t> numeric_date(const json::value& v) {
  if (v.is_int64()) return v.as_int64();
  if (v.is_uint64()) return std::nullopt;  // past 2^63 seconds: not a date
  if (v.is_double() && std::isfinite(v.as_double()) && std::abs(v.as_double()) < 9e15)
    return static_cast<std::int64_t>(std::floor(v.as_double()));
  return std::nullopt;
}

std::string identifier_error(std::string_view claim) {
  return fmt::format("token: {}: {}", claim, identifier_rule);
}

struct claim_rules {
  bool require_exp;
  std::string_view audience, issuer;  // empty: not checked
};

parsed<token_claims> read_claims(const json::object& body, const claim_rules& rules,
                                 std::int64_t now_s) {
  using result = parsed<token_claims>;
  token_claims claims;
  // A token minted for another service with the same key is not for us.
  if (!rules.audience.empty() && !names_audience(body.if_contains("aud"), rules.audience))
    return result::fail(fmt::format("token: aud: expected '{}'", rules.audience));
  if (!rules.issuer.empty()) {
    const json::value* iss = body.if_contains("iss");
    if (!iss || !iss->is_string() || iss->as_string() != rules.issuer)
      return result::fail(fmt::format("token: iss: expected '{}'", rules.issuer));
  }
  const json::value* sub = body.if_contains("sub");
  if (!sub || !sub->is_string() || !valid_identifier(sub->as_string()))
    return result::fail(identifier_error("sub"));
  claims.sub = sub->as_string();

  if (const json::value* sid = body.if_contains("sid")) {
    if (!sid->is_string() || !valid_identifier(sid->as_string()))
      return result::fail(identifier_error("sid"));
    claims.sid = std::string(sid->as_string());
  }
  if (const json::value* channels = body.if_contains("channels")) {
    if (!channels->is_array()) return result::fail("token: channels: expected an array of names");
    claims.channels.emplace();
    for (const json::value& c : channels->as_array()) {
      if (!c.is_string() || !valid_identifier(c.as_string()))
        return result::fail(identifier_error("channels"));
      claims.channels->emplace_back(c.as_string());
    }
  }
  if (const json::value* exp = body.if_contains("exp")) {
    claims.exp = numeric_date(*exp);
    if (!claims.exp) return result::fail("token: exp: expected a time in Unix seconds");
    if (now_s >= *claims.exp) return result::fail("token: expired");
  } else if (rules.require_exp) {
    return result::fail("token: exp: required");
  }
  if (const json::value* nbf = body.if_contains("nbf")) {
    const auto not_before = numeric_date(*nbf);
    if (!not_before) return result::fail("token: nbf: expected a time in Unix seconds");
    if (now_s < *not_before) return result::fail("token: not valid yet (nbf)");
  }
  return result::ok(std::move(claims));
}

}  // namespace

parsed<token_verifier> token_verifier::with_secret(std::string secret, bool require_exp) {
  if (secret.empty()) return parsed<token_verifier>::fail("expected a non-empty secret");
  return parsed<token_verifier>::ok(token_verifier("HS256", std::move(secret), require_exp));
}

parsed<token_verifier> token_verifier::with_public_key(std::string pem, bool require_exp) {
  using result = parsed<token_verifier>;
  const std::unique_ptr<BIO, bio_deleter> bio(
      BIO_new_mem_buf(pem.data(), static_cast<int>(pem.size())));
  const std::unique_ptr<EVP_PKEY, pkey_deleter> key(
      bio ? PEM_read_bio_PUBKEY(bio.get(), nullptr, nullptr, nullptr) : nullptr);
  if (!key) return result::fail("expected a PEM public key (-----BEGIN PUBLIC KEY-----)");
  switch (EVP_PKEY_get_base_id(key.get())) {
    case EVP_PKEY_RSA:
      if (EVP_PKEY_get_bits(key.get()) < 2048)
        return result::fail("RSA keys must have at least 2048 bits");
      return result::ok(token_verifier("RS256", std::move(pem), require_exp));
    case EVP_PKEY_EC: {
      char group[80] = {};
      std::size_t length = 0;
      if (!EVP_PKEY_get_group_name(key.get(), group, sizeof group, &length) ||
          OBJ_txt2nid(group) != NID_X9_62_prime256v1) {
        return result::fail("EC keys must be on the P-256 curve (ES256)");
      }
      return result::ok(token_verifier("ES256", std::move(pem), require_exp));
    }
    default:
      return result::fail("expected an RSA (RS256) or EC P-256 (ES256) public key");
  }
}

parsed<token_claims> token_verifier::verify(std::string_view token, std::int64_t now_s) const {
  using result = parsed<token_claims>;
  const auto header = read_header(token);
  if (!header) return result::fail("token: malformed");
  if (header->alg != algorithm_)
    return result::fail(
        fmt::format("token: algorithm '{}' refused; expected {}", header->alg, algorithm_));
  if (header->critical) return result::fail("token: crit: no extension is understood here");

  jwt_t* decoded = nullptr;
  const std::string text(token);
  const int failed =
      jwt_decode(&decoded, text.c_str(), reinterpret_cast<const unsigned char*>(key_.data()),
                 static_cast<int>(key_.size()));
  const jwt_ptr jwt(decoded);
  // The header was checked above; libjwt's reading of it must agree before anything is trusted.
  if (failed || !jwt || jwt_alg_str(jwt_get_alg(jwt.get())) != algorithm_)
    return result::fail("token: malformed or bad signature");

  const c_string body(jwt_get_grants_json(jwt.get(), nullptr));
  if (!body) return result::fail("token: malformed");
  boost::system::error_code ec;
  const json::value claims = json::parse(body.get(), ec);
  if (ec || !claims.is_object()) return result::fail("token: malformed");
  return read_claims(claims.as_object(), {require_exp_, audience_, issuer_}, now_s);
}

std::chrono::steady_clock::time_point token_deadline(
    std::int64_t exp_s, std::chrono::system_clock::time_point wall_now,
    std::chrono::steady_clock::time_point steady_now) {
  using std::chrono::seconds;
  // Compared in whole seconds first, so that nothing is converted that does not fit: exp_s may
  // be anything up to 2^63-1, and seconds to nanoseconds overflows past about the year 2262.
  const auto now_s = std::chrono::floor<seconds>(wall_now.time_since_epoch()).count();
  if (exp_s <= now_s) return steady_now;
  if (static_cast<std::uint64_t>(exp_s) - static_cast<std::uint64_t>(now_s) >
      static_cast<std::uint64_t>(token_lifetime_clamp.count())) {
    return steady_now + token_lifetime_clamp;
  }
  const auto left = std::chrono::sys_seconds{seconds{exp_s}} - wall_now;
  return steady_now + std::chrono::duration_cast<std::chrono::steady_clock::duration>(left);
}

std::optional<std::string_view> bearer_token(std::string_view authorization) {
  constexpr std::string_view scheme = "bearer ";
  if (authorization.size() <= scheme.size()) return std::nullopt;
  for (std::size_t i = 0; i < scheme.size(); ++i) {
    const char c = authorization[i];
    if ((c >= 'A' && c <= 'Z' ? static_cast<char>(c + 32) : c) != scheme[i]) return std::nullopt;
  }
  return authorization.substr(scheme.size());
}

std::optional<std::string> apply_claims(const token_claims& claims, client_params& params) {
  if (!params.user.empty() && params.user != claims.sub)
    return fmt::format("user '{}' does not match the token's sub", params.user);
  params.user = claims.sub;
  if (claims.sid) {
    if (params.sid_given && params.sid != *claims.sid)
      return fmt::format("sid '{}' does not match the token's sid", params.sid);
    params.sid = *claims.sid;
  }
  if (claims.channels) {
    grant_channels(params, *claims.channels);
    if (const auto refused = channel_not_granted(params))
      return fmt::format("channel '{}' is not among the token's channels", *refused);
  }
  return std::nullopt;
}

std::string mint_hs256(std::string_view secret, std::string_view user, std::int64_t exp) {
  jwt_t* created = nullptr;
  if (jwt_new(&created) != 0) return {};
  const jwt_ptr jwt(created);
  const std::string sub(user);
  jwt_add_grant(jwt.get(), "sub", sub.c_str());
  jwt_add_grant_int(jwt.get(), "exp", static_cast<long>(exp));
  jwt_set_alg(jwt.get(), JWT_ALG_HS256, reinterpret_cast<const unsigned char*>(secret.data()),
              static_cast<int>(secret.size()));
  const c_string token(jwt_encode_str(jwt.get()));
  return token ? std::string(token.get()) : std::string{};
}

}  // namespace ringcast
