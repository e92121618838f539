// The node's keys and certificates, built from its settings at start-up: the client token
// verifier and the TLS contexts, objects with state of their own kept out of `config` (settings
// only). SIGHUP may replace the TLS context (server::reload_tls).
#pragma once

#include <memory>

#include "config/config.hpp"
#include "protocol/parsed.hpp"

namespace ringcast {

class tls_context;
class token_verifier;

struct node_credentials {
  std::shared_ptr<const token_verifier> client_tokens;  // null: the client endpoints are open
  std::shared_ptr<const tls_context> tls;               // null: plaintext
  std::shared_ptr<const tls_context> hook_tls;  // https hooks (both kinds): verifies the backend
};

// Verifies the client key and reads the TLS certificate and key. The error is one line naming
// the flag, as parse_config's are: "--tls-cert/--tls-key: ...".
parsed<node_credentials> build_credentials(const config& cfg);

}  // namespace ringcast
