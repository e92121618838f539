#include "tls/tls13_keys.hpp"

#include <openssl/core_names.h>
#include <openssl/crypto.h>
#include <openssl/kdf.h>
#include <openssl/params.h>

#include <algorithm>
#include <memory>

namespace ringcast::tls13 {
namespace {

const char* digest_name(suite s) {
  return s == suite::aes_256_gcm_sha384 ? "SHA384" : "SHA256";
}

// Fetched once for the process (a fetch searches the provider's algorithms by name).
EVP_KDF* hkdf() {
  static EVP_KDF* const kdf = EVP_KDF_fetch(nullptr, "HKDF", nullptr);
  return kdf;
}

struct kdf_ctx_free {
  void operator()(EVP_KDF_CTX* ctx) const noexcept { EVP_KDF_CTX_free(ctx); }
};

}  // namespace

std::optional<suite> suite_from_id(std::uint16_t id) {
  switch (id) {
    case 0x1301:
      return suite::aes_128_gcm_sha256;
    case 0x1302:
      return suite::aes_256_gcm_sha384;
    case 0x1303:
      return suite::chacha20_poly1305_sha256;
    default:
      return std::nullopt;
  }
}

std::size_t secret_size(suite s) {
  return s == suite::aes_256_gcm_sha384 ? 48 : 32;
}

std::size_t key_size(suite s) {
  return s == suite::aes_128_gcm_sha256 ? 16 : 32;
}

traffic_keys::~traffic_keys() {
  OPENSSL_cleanse(secret.data(), secret.size());
  OPENSSL_cleanse(key.data(), key.size());
  OPENSSL_cleanse(iv.data(), iv.size());
}

bool expand_label(suite s, std::span<const unsigned char> secret, std::string_view label,
                  std::span<const unsigned char> context, std::span<unsigned char> out) {
  static constexpr std::string_view prefix = "tls13 ";
  // struct { uint16 length; opaque label<7..255>; opaque context<0..255>; } HkdfLabel;
  std::array<unsigned char, 2 + 1 + 255 + 1 + 255> info{};
  if (out.size() > 0xffff || prefix.size() + label.size() > 255 || context.size() > 255 || !hkdf())
    return false;
  std::size_t n = 0;
  info[n++] = static_cast<unsigned char>(out.size() >> 8);
  info[n++] = static_cast<unsigned char>(out.size() & 0xff);
  info[n++] = static_cast<unsigned char>(prefix.size() + label.size());
  for (const char c : prefix)
    info[n++] = static_cast<unsigned char>(c);
  for (const char c : label)
    info[n++] = static_cast<unsigned char>(c);
  info[n++] = static_cast<unsigned char>(context.size());
  for (const unsigned char c : context)
    info[n++] = c;

  std::unique_ptr<EVP_KDF_CTX, kdf_ctx_free> ctx(EVP_KDF_CTX_new(hkdf()));
  if (!ctx) return false;
  int mode = EVP_KDF_HKDF_MODE_EXPAND_ONLY;
  const OSSL_PARAM params[] = {
      OSSL_PARAM_construct_int(OSSL_KDF_PARAM_MODE, &mode),
      OSSL_PARAM_construct_utf8_string(OSSL_KDF_PARAM_DIGEST, const_cast<char*>(digest_name(s)), 0),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_KEY,
                                        const_cast<unsigned char*>(secret.data()), secret.size()),
      OSSL_PARAM_construct_octet_string(OSSL_KDF_PARAM_INFO, info.data(), n),
      OSSL_PARAM_construct_end()};
  return EVP_KDF_derive(ctx.get(), out.data(), out.size(), params) == 1;
}

namespace {

// The key and IV of `keys.secret` (already set), sequence number 0.
bool derive_key_and_iv(traffic_keys& keys) {
  const std::span<const unsigned char> secret(keys.secret.data(), secret_size(keys.cipher));
  keys.seq = 0;
  return expand_label(keys.cipher, secret, "key", {},
                      std::span(keys.key.data(), key_size(keys.cipher))) &&
         expand_label(keys.cipher, secret, "iv", {}, keys.iv);
}

void clear(traffic_keys& keys) {
  OPENSSL_cleanse(keys.secret.data(), keys.secret.size());
  OPENSSL_cleanse(keys.key.data(), keys.key.size());
  OPENSSL_cleanse(keys.iv.data(), keys.iv.size());
  keys.seq = 0;
}

}  // namespace

bool set_traffic_secret(traffic_keys& keys, suite s, std::span<const unsigned char> secret) {
  clear(keys);
  if (secret.size() != secret_size(s)) return false;
  keys.cipher = s;
  std::copy(secret.begin(), secret.end(), keys.secret.begin());
  if (derive_key_and_iv(keys)) return true;
  clear(keys);
  return false;
}

bool update_traffic_secret(traffic_keys& keys) {
  std::array<unsigned char, max_secret_size> next{};
  const std::size_t size = secret_size(keys.cipher);
  const bool ok = expand_label(keys.cipher, std::span(keys.secret.data(), size), "traffic upd", {},
                               std::span(next.data(), size));
  if (ok) std::copy_n(next.begin(), size, keys.secret.begin());
  OPENSSL_cleanse(next.data(), next.size());
  if (ok && derive_key_and_iv(keys)) return true;
  clear(keys);
  return false;
}

}  // namespace ringcast::tls13
