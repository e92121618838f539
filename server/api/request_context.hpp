// What an HTTP API handler sees of the connection its request came on: the loop it runs on (where
// a later answer is to run), the loop's clocks, the settings and the client token verifier. A
// connection's view of its loop (net/connection_context.hpp) is one, so the API needs nothing of
// the connections.
#pragma once

#include <boost/asio/io_context.hpp>

#include <chrono>
#include <string>

#include "config/config.hpp"
#include "core/loop_timers.hpp"

namespace ringcast {

class token_verifier;

// The settings as connections and the API read them: every flag's setting as the flag table puts it
// in `config` (a new flag needs no line here), plus the few worked out from several of them.
struct connection_settings : config {
  std::string demo_secret;  // --demo with --client-secret: POST /demo/token signs with it
  std::chrono::seconds connect_retry_after{1};  // Retry-After of a 503 for want of an answer
  // Strict-Transport-Security max-age; 0: not sent (or no TLS).
  std::chrono::seconds hsts_max_age{0};

  static connection_settings from(const config& cfg);
};

class request_context {
 public:
  virtual boost::asio::io_context& io() = 0;
  // The loop's wheel and clocks: a connection's deadlines are loop_timer nodes armed there.
  virtual loop_timers& timers() = 0;
  virtual const connection_settings& settings() const = 0;
  // The verifier of client tokens, or null when the client endpoints are open.
  virtual const token_verifier* client_tokens() const = 0;

 protected:
  ~request_context() = default;
};

}  // namespace ringcast
