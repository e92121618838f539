#include "net/node_credentials.hpp"

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "protocol/client_auth.hpp"
#include "tls/tls_context.hpp"

namespace ringcast {

parsed<node_credentials> build_credentials(const config& cfg) {
  node_credentials r;
  std::optional<token_verifier> tokens;
  if (!cfg.client_public_key_pem.empty()) {
    auto verifier = token_verifier::with_public_key(cfg.client_public_key_pem, cfg.require_exp);
    if (!verifier) {
      return parsed<node_credentials>::fail(
          fmt::format("--client-public-key: {}: {}", cfg.client_public_key_file, verifier.error));
    }
    tokens = std::move(*verifier.value);
  } else if (!cfg.client_secret.empty()) {
    tokens = std::move(*token_verifier::with_secret(cfg.client_secret, cfg.require_exp).value);
  }
  if (tokens) {
    tokens->require_claims(cfg.client_audience, cfg.client_issuer);
    r.client_tokens = std::make_shared<const token_verifier>(std::move(*tokens));
  }
  if (cfg.tls()) {
    auto tls = tls_context::for_server(cfg.tls_cert_file, cfg.tls_key_file);
    if (!tls) return parsed<node_credentials>::fail("--tls-cert/--tls-key: " + tls.error);
    r.tls = std::make_shared<const tls_context>(std::move(*tls.value));
  }
  const bool pusher_https =
      std::any_of(cfg.pusher_webhook_urls.begin(), cfg.pusher_webhook_urls.end(),
                  [](const http_url& u) { return u.tls; });
  if ((cfg.hook_url && cfg.hook_url->tls) || (cfg.connect_hook && cfg.connect_hook->tls) ||
      pusher_https) {
    auto tls = tls_context::for_client(cfg.hook_ca_file);
    if (!tls) return parsed<node_credentials>::fail("--hook-ca: " + tls.error);
    r.hook_tls = std::make_shared<const tls_context>(std::move(*tls.value));
  }
  return parsed<node_credentials>::ok(std::move(r));
}

}  // namespace ringcast
