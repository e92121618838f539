// TLS settings shared by every connection of a process (an OpenSSL SSL_CTX), and the per-connection
// TLS state (an SSL) made from them. OpenSSL comes from Debian's libssl-dev.
#pragma once

#include <boost/system/error_code.hpp>

#include <memory>
#include <string>

#include "protocol/parsed.hpp"
#include "tls/tls_errors.hpp"

struct ssl_ctx_st;
struct ssl_st;

namespace ringcast {

struct tls_session_free {
  void operator()(ssl_st* ssl) const noexcept;
};
// One connection's TLS state. It refers to its socket by descriptor number only, so it keeps
// working when the descriptor is handed to another event loop.
using tls_session = std::unique_ptr<ssl_st, tls_session_free>;

class tls_context {
 public:
  // TLS 1.2 or later with a PEM certificate chain and its private key; the error names the file
  // and what OpenSSL found wrong with it.
  static parsed<tls_context> for_server(const std::string& cert_file, const std::string& key_file);
  // Verifies servers against the PEM certificates in `ca_file`; with an empty `ca_file` it does
  // not verify at all (a load test against a self-signed certificate).
  static parsed<tls_context> for_client(const std::string& ca_file);

  // A session on socket `fd`, waiting for its handshake. `server_name` (client side only) is sent
  // as SNI and, when verifying, checked against the certificate.
  tls_session new_session(int fd, const std::string& server_name = {}) const;

 private:
  struct ctx_free {
    void operator()(ssl_ctx_st* ctx) const noexcept;
  };
  explicit tls_context(ssl_ctx_st* ctx, bool server, bool verifies_peer)
      : ctx_(ctx, ctx_free{}), server_(server), verifies_peer_(verifies_peer) {}

  std::shared_ptr<ssl_ctx_st> ctx_;
  bool server_ = true;
  bool verifies_peer_ = false;
};

}  // namespace ringcast
