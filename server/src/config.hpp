// Every command-line flag of the ringcast server, parsed and validated.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <iosfwd>
#include <memory>
#include <optional>
#include <string>

namespace ringcast {

class token_verifier;
class tls_context;

struct config {
  using ms = std::chrono::milliseconds;

  std::string listen_host = "127.0.0.1";  // --listen HOST:PORT
  std::uint16_t listen_port = 8080;
  unsigned threads = 0;  // --threads; 0 means one per core (resolved by parse_config)

  // PROTOCOL.md section 5.
  ms poll_timeout{25'000};
  ms heartbeat{25'000};
  ms idle_timeout{60'000};
  ms session_ttl{120'000};
  ms handshake_timeout{10'000};
  ms max_connection_age{0};  // 0 = off
  ms drain{5'000};
  ms reconnect_delay{1'000};  // --reconnect-delay: centre of the jittered retry_ms

  ms tick{100};                     // --tick-ms (a plain number of milliseconds)
  std::uint32_t wheel_slots = 512;  // --wheel-slots, rounded up to a power of two

  std::size_t history = 1000;            // --history: messages retained for resume
  std::size_t max_queue = 1024;          // --max-queue: messages queued per connection
  std::size_t max_body = 64 * 1024;      // --max-body: admin request body bytes
  std::size_t max_connections = 20'000;  // --max-connections: open TCP connections

  std::string admin_token;  // --admin-token, else $RINGCAST_ADMIN_TOKEN, else random
  bool admin_token_generated = false;

  std::string web_root;  // --web-root: serve web/ from disk instead of the embedded copy
  std::string redis;     // --redis URL: several nodes share one stream (empty: single node)

  // Client tokens: --client-secret (else $RINGCAST_CLIENT_SECRET) or --client-public-key FILE,
  // with --require-exp. Null: the client endpoints are open.
  std::shared_ptr<const token_verifier> client_tokens;
  std::string client_secret;  // the HS256 secret, for POST /demo/token
  bool demo = false;          // --demo: demo-only routes (POST /demo/token)

  // --tls-cert FILE --tls-key FILE: HTTPS and WSS on the listening port. Null: plaintext. The
  // files are read again on SIGHUP.
  std::shared_ptr<const tls_context> tls;
  std::string tls_cert_file;
  std::string tls_key_file;

  std::string config_file;  // --config FILE: read again on SIGHUP (config_reload.hpp)
};

// How parsing ended: either a config to run with, or an exit status (0 after --help, 2 on a bad
// flag, with the reason already written to `err` as one line: "ringcast: --flag: expected ...,
// got 'value'"). The admin token is resolved (flag, then $RINGCAST_ADMIN_TOKEN if non-empty, else
// 32 random hex characters with admin_token_generated set), `threads` is never 0, and a client
// key file and the TLS certificate and key have been read and checked.
struct config_outcome {
  std::optional<config> cfg;
  int exit_status = 0;
};

// `getenv` is injectable so tests need not touch the process environment.
config_outcome parse_config(int argc, const char* const* argv, std::ostream& out, std::ostream& err,
                            const std::function<const char*(const char*)>& getenv);

}  // namespace ringcast
