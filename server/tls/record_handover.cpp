#include "tls/record_handover.hpp"

#include <openssl/crypto.h>
#include <openssl/ssl.h>

#include <array>
#include <cstring>
#include <string_view>

namespace ringcast {
namespace {

struct captured_secrets {
  std::array<unsigned char, tls13::max_secret_size> client{}, server{};
  std::size_t client_size = 0, server_size = 0;
};

void free_secrets(void*, void* ptr, CRYPTO_EX_DATA*, int, long, void*) {
  auto* s = static_cast<captured_secrets*>(ptr);
  if (!s) return;
  OPENSSL_cleanse(s, sizeof *s);
  delete s;
}

int secrets_index() {
  static const int index = SSL_get_ex_new_index(0, nullptr, nullptr, nullptr, free_secrets);
  return index;
}

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// "LABEL <client_random hex> <secret hex>" (NSS key log format). Only the two application traffic
// secrets of generation 0 are kept; OpenSSL clears the line after the call.
void keep_secret(const SSL* ssl, const char* line) {
  const std::string_view text(line);
  static constexpr std::string_view client_label = "CLIENT_TRAFFIC_SECRET_0 ";
  static constexpr std::string_view server_label = "SERVER_TRAFFIC_SECRET_0 ";
  const bool client = text.starts_with(client_label);
  if (!client && !text.starts_with(server_label)) return;
  const std::size_t space = text.rfind(' ');
  const std::string_view hex = text.substr(space + 1);
  if (hex.size() % 2 != 0 || hex.size() / 2 > tls13::max_secret_size) return;

  auto* s = static_cast<captured_secrets*>(SSL_get_ex_data(ssl, secrets_index()));
  if (!s) {
    s = new captured_secrets();
    if (SSL_set_ex_data(const_cast<SSL*>(ssl), secrets_index(), s) != 1) {
      delete s;
      return;
    }
  }
  auto& out = client ? s->client : s->server;
  std::size_t& size = client ? s->client_size : s->server_size;
  size = 0;
  for (std::size_t i = 0; i < hex.size(); i += 2) {
    const int hi = hex_digit(hex[i]), lo = hex_digit(hex[i + 1]);
    if (hi < 0 || lo < 0) {
      OPENSSL_cleanse(out.data(), out.size());
      return;
    }
    out[i / 2] = static_cast<unsigned char>(hi * 16 + lo);
  }
  size = hex.size() / 2;
}

}  // namespace

void capture_traffic_secrets(ssl_ctx_st* ctx) {
  secrets_index();
  SSL_CTX_set_keylog_callback(ctx, keep_secret);
}

std::unique_ptr<record_stream> take_over(ssl_st* ssl) {
  if (!SSL_is_server(ssl) || SSL_version(ssl) != TLS1_3_VERSION || !SSL_is_init_finished(ssl))
    return nullptr;
  if (SSL_has_pending(ssl) || SSL_pending(ssl) > 0) return nullptr;
  const SSL_CIPHER* cipher = SSL_get_current_cipher(ssl);
  if (!cipher) return nullptr;
  const auto suite = tls13::suite_from_id(SSL_CIPHER_get_protocol_id(cipher));
  auto* s = static_cast<captured_secrets*>(SSL_get_ex_data(ssl, secrets_index()));
  if (!suite || !s) return nullptr;
  const std::size_t size = tls13::secret_size(*suite);
  if (s->client_size != size || s->server_size != size) return nullptr;
  // The client's secret reads, the server's writes.
  return record_stream::make(*suite, std::span(s->client.data(), size),
                             std::span(s->server.data(), size));
}

}  // namespace ringcast
