// What the server builds from its settings at start-up: the objects with state of their own,
// kept out of `config`, which holds settings only.
#pragma once

#include <memory>

#include "config.hpp"
#include "parsed.hpp"

namespace ringcast {

class tls_context;
class token_verifier;

struct node_resources {
  std::shared_ptr<const token_verifier> client_tokens;  // null: the client endpoints are open
  std::shared_ptr<const tls_context> tls;               // null: plaintext
  std::shared_ptr<const tls_context> hook_tls;  // https hooks (both kinds): verifies the backend
};

// Verifies the client key and reads the TLS certificate and key. The error is one line naming
// the flag, as parse_config's are: "--tls-cert/--tls-key: ...".
parsed<node_resources> build_resources(const config& cfg);

}  // namespace ringcast
