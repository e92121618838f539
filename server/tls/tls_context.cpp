#include "tls/tls_context.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <fmt/format.h>

#include "tls/record_handover.hpp"

#include <arpa/inet.h>

#include <fstream>
#include <optional>
#include <string_view>

namespace ringcast {
namespace {

// What OpenSSL queued for the last failure, as one line ("no such file", "key values mismatch").
std::string drain_error_text() {
  std::string text;
  while (const unsigned long e = ERR_get_error()) {
    if (!text.empty()) text += "; ";
    const char* reason = ERR_reason_error_string(e);
    text += reason ? reason : fmt::format("OpenSSL error {:#x}", e);
  }
  return text.empty() ? "unknown OpenSSL error" : text;
}

// A file that is not PEM at all (DER, the wrong file) fails with OpenSSL's "no start line; PEM
// lib" or "unsupported; PEM lib": say what that means instead. nullopt: it is PEM (or unreadable,
// which OpenSSL's own text says).
std::optional<std::string> not_pem(const std::string& file, std::string_view what) {
  std::ifstream in(file, std::ios::binary);
  if (!in) return std::nullopt;
  std::string head(64 * 1024, '\0');
  in.read(head.data(), static_cast<std::streamsize>(head.size()));
  head.resize(static_cast<std::size_t>(in.gcount()));
  if (head.find("-----BEGIN ") != std::string::npos) return std::nullopt;
  ERR_clear_error();
  return fmt::format(
      "{}: not a PEM {} (no \"-----BEGIN\" line; a DER file converts with openssl {} "
      "-inform der -in {} -out FILE.pem)",
      file, what, what == "certificate" ? "x509" : "pkey", file);
}

// Browsers offer h2 first; ringcast speaks HTTP/1.1 (WebSocket upgrades need it), so it picks
// http/1.1 when offered and otherwise leaves ALPN out of the handshake.
int select_http1(SSL*, const unsigned char** out, unsigned char* outlen, const unsigned char* in,
                 unsigned int inlen, void*) {
  static constexpr unsigned char http1[] = {8, 'h', 't', 't', 'p', '/', '1', '.', '1'};
  unsigned char* chosen = nullptr;
  if (SSL_select_next_proto(&chosen, outlen, http1, sizeof http1, in, inlen) !=
      OPENSSL_NPN_NEGOTIATED)
    return SSL_TLSEXT_ERR_NOACK;
  *out = chosen;
  return SSL_TLSEXT_ERR_OK;
}

// A key file with a passphrase would make OpenSSL ask for it on the terminal, and a server must
// not wait for a prompt: refuse, and note that it was asked for.
int refuse_passphrase(char*, int, int, void* asked) {
  *static_cast<bool*>(asked) = true;
  return 0;
}

bool is_ip_address(const std::string& text) {
  unsigned char address[sizeof(in6_addr)];
  return inet_pton(AF_INET, text.c_str(), address) == 1 ||
         inet_pton(AF_INET6, text.c_str(), address) == 1;
}

SSL_CTX* new_context(const SSL_METHOD* method) {
  SSL_CTX* ctx = SSL_CTX_new(method);
  if (!ctx) return nullptr;
  SSL_CTX_set_min_proto_version(ctx, TLS1_2_VERSION);
  // A peer that closes TCP without close_notify has simply gone away (every browser tab does).
  SSL_CTX_set_options(ctx, SSL_OP_NO_RENEGOTIATION | SSL_OP_IGNORE_UNEXPECTED_EOF);
  // Idle connections give their read and write buffers back (tens of KiB each); writes report
  // each record as it goes, like a socket's write_some.
  SSL_CTX_set_mode(ctx, SSL_MODE_RELEASE_BUFFERS | SSL_MODE_ENABLE_PARTIAL_WRITE |
                            SSL_MODE_ACCEPT_MOVING_WRITE_BUFFER);
  return ctx;
}

// TLS 1.2 only with forward-secret key exchange (ECDHE) and AEAD ciphers, in the server's order
// (strongest first; a client cannot talk it down to CBC with SHA-1 MACs). TLS 1.3 suites are all
// AEAD and ECDHE already (OpenSSL's defaults stay).
constexpr const char* tls12_ciphers =
    "ECDHE-ECDSA-AES128-GCM-SHA256:ECDHE-RSA-AES128-GCM-SHA256:"
    "ECDHE-ECDSA-AES256-GCM-SHA384:ECDHE-RSA-AES256-GCM-SHA384:"
    "ECDHE-ECDSA-CHACHA20-POLY1305:ECDHE-RSA-CHACHA20-POLY1305";

// No session resumption: OpenSSL's ticket key is made once per SSL_CTX and never rotated, so one
// key would protect every resumed session for the life of the process (its theft would open them
// all, recorded ones too), and a server-side session cache would hold up to 20,480 sessions'
// secrets in memory. A client of a push server connects once and stays, so a reconnect paying
// a full handshake costs little. docs/security.md, "Native TLS".
void harden_server(SSL_CTX* ctx) {
  SSL_CTX_set_cipher_list(ctx, tls12_ciphers);
  SSL_CTX_set_options(ctx, SSL_OP_CIPHER_SERVER_PREFERENCE | SSL_OP_NO_TICKET);
  SSL_CTX_set_num_tickets(ctx, 0);  // TLS 1.3: no NewSessionTicket at all
  SSL_CTX_set_session_cache_mode(ctx, SSL_SESS_CACHE_OFF);
}

}  // namespace

void tls_session_free::operator()(ssl_st* ssl) const noexcept {
  SSL_free(ssl);
}

void tls_context::ctx_free::operator()(ssl_ctx_st* ctx) const noexcept {
  SSL_CTX_free(ctx);
}

parsed<tls_context> tls_context::for_server(const std::string& cert_file,
                                            const std::string& key_file) {
  ERR_clear_error();
  std::unique_ptr<SSL_CTX, ctx_free> ctx(new_context(TLS_server_method()));
  if (!ctx) return parsed<tls_context>::fail(drain_error_text());
  if (SSL_CTX_use_certificate_chain_file(ctx.get(), cert_file.c_str()) != 1) {
    if (auto why = not_pem(cert_file, "certificate")) return parsed<tls_context>::fail(*why);
    return parsed<tls_context>::fail(fmt::format("{}: {}", cert_file, drain_error_text()));
  }
  bool passphrase_asked = false;
  SSL_CTX_set_default_passwd_cb(ctx.get(), refuse_passphrase);
  SSL_CTX_set_default_passwd_cb_userdata(ctx.get(), &passphrase_asked);
  const bool key_loaded =
      SSL_CTX_use_PrivateKey_file(ctx.get(), key_file.c_str(), SSL_FILETYPE_PEM) == 1;
  SSL_CTX_set_default_passwd_cb_userdata(ctx.get(), nullptr);
  if (passphrase_asked) {
    ERR_clear_error();
    return parsed<tls_context>::fail(fmt::format(
        "{}: the key is encrypted; give it without a passphrase (openssl pkey -in {} -out FILE)",
        key_file, key_file));
  }
  if (!key_loaded || SSL_CTX_check_private_key(ctx.get()) != 1) {
    if (ERR_GET_REASON(ERR_peek_error()) == X509_R_KEY_VALUES_MISMATCH) {
      ERR_clear_error();
      return parsed<tls_context>::fail(
          fmt::format("{} is not the key of the certificate in {}", key_file, cert_file));
    }
    if (auto why = not_pem(key_file, "private key")) return parsed<tls_context>::fail(*why);
    return parsed<tls_context>::fail(fmt::format("{}: {}", key_file, drain_error_text()));
  }
  harden_server(ctx.get());
  capture_traffic_secrets(ctx.get());
  SSL_CTX_set_alpn_select_cb(ctx.get(), select_http1, nullptr);
  return parsed<tls_context>::ok(tls_context(ctx.release(), true, false));
}

parsed<tls_context> tls_context::for_client(const std::string& ca_file) {
  ERR_clear_error();
  std::unique_ptr<SSL_CTX, ctx_free> ctx(new_context(TLS_client_method()));
  if (!ctx) return parsed<tls_context>::fail(drain_error_text());
  const bool verify = !ca_file.empty();
  if (verify) {
    if (SSL_CTX_load_verify_locations(ctx.get(), ca_file.c_str(), nullptr) != 1)
      return parsed<tls_context>::fail(fmt::format("{}: {}", ca_file, drain_error_text()));
    SSL_CTX_set_verify(ctx.get(), SSL_VERIFY_PEER, nullptr);
  }
  return parsed<tls_context>::ok(tls_context(ctx.release(), false, verify));
}

tls_session tls_context::new_session(int fd, const std::string& server_name) const {
  tls_session ssl(SSL_new(ctx_.get()));
  if (!ssl || SSL_set_fd(ssl.get(), fd) != 1) return nullptr;
  if (server_) {
    SSL_set_accept_state(ssl.get());
    return ssl;
  }
  SSL_set_connect_state(ssl.get());
  if (server_name.empty()) return ssl;
  // SNI carries names only; an address is checked against the certificate's IP SANs instead.
  if (is_ip_address(server_name)) {
    if (verifies_peer_)
      X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl.get()), server_name.c_str());
  } else {
    SSL_set_tlsext_host_name(ssl.get(), server_name.c_str());
    if (verifies_peer_) SSL_set1_host(ssl.get(), server_name.c_str());
  }
  return ssl;
}

}  // namespace ringcast
