#include "tls/tls13_record.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>

#include <algorithm>
#include <array>
#include <limits>

namespace ringcast::tls13 {
namespace {

// Fetched once for the process: a cipher named by EVP_aes_128_gcm() and the like is fetched again
// from its provider by every EVP_CipherInit_ex that sets it up.
const EVP_CIPHER* cipher_of(suite s) {
  static EVP_CIPHER* const aes_128_gcm = EVP_CIPHER_fetch(nullptr, "AES-128-GCM", nullptr);
  static EVP_CIPHER* const aes_256_gcm = EVP_CIPHER_fetch(nullptr, "AES-256-GCM", nullptr);
  static EVP_CIPHER* const chacha20_poly1305 =
      EVP_CIPHER_fetch(nullptr, "ChaCha20-Poly1305", nullptr);
  switch (s) {
    case suite::aes_128_gcm_sha256:
      return aes_128_gcm;
    case suite::aes_256_gcm_sha384:
      return aes_256_gcm;
    case suite::chacha20_poly1305_sha256:
      return chacha20_poly1305;
  }
  return nullptr;
}

// One cipher context per suite and direction, per thread. A thread_local, not a member of the
// event loop: the record layer runs inside net_stream, which reaches only its socket, and Asio's
// per-io_context services are found under a lock. A context is set up with its cipher once and
// only re-keyed for each record after that (no allocation per record). Between records it holds
// the last record's key schedule, which may be a closed connection's: forget() frees the contexts
// (OpenSSL clears what they held) when a connection's record layer goes, and the next record
// sets them up again.
class cipher_contexts {
 public:
  cipher_contexts() = default;
  cipher_contexts(const cipher_contexts&) = delete;
  cipher_contexts& operator=(const cipher_contexts&) = delete;
  ~cipher_contexts() { forget(); }
  EVP_CIPHER_CTX* get(suite s, bool encrypt) {
    EVP_CIPHER_CTX*& ctx = contexts_[static_cast<std::size_t>(s) * 2 + (encrypt ? 1 : 0)];
    if (ctx) return ctx;
    const EVP_CIPHER* cipher = cipher_of(s);
    ctx = cipher ? EVP_CIPHER_CTX_new() : nullptr;
    if (ctx && EVP_CipherInit_ex(ctx, cipher, nullptr, nullptr, nullptr, encrypt ? 1 : 0) != 1) {
      EVP_CIPHER_CTX_free(ctx);
      ctx = nullptr;
    }
    return ctx;
  }
  void forget() {
    for (auto& ctx : contexts_) {
      EVP_CIPHER_CTX_free(ctx);
      ctx = nullptr;
    }
  }
  std::size_t held() const {
    return static_cast<std::size_t>(std::count_if(contexts_.begin(), contexts_.end(),
                                                  [](EVP_CIPHER_CTX* c) { return c != nullptr; }));
  }

 private:
  std::array<EVP_CIPHER_CTX*, 6> contexts_{};
};

thread_local cipher_contexts contexts;

// The context keyed for record number keys.seq: nonce = iv XOR the sequence number, left-padded.
EVP_CIPHER_CTX* keyed(traffic_keys& keys, bool encrypt) {
  if (keys.seq == std::numeric_limits<std::uint64_t>::max()) return nullptr;
  EVP_CIPHER_CTX* ctx = contexts.get(keys.cipher, encrypt);
  if (!ctx) return nullptr;
  std::array<unsigned char, iv_size> nonce = keys.iv;
  for (std::size_t i = 0; i < 8; ++i)
    nonce[iv_size - 1 - i] ^= static_cast<unsigned char>(keys.seq >> (8 * i));
  const int ok =
      EVP_CipherInit_ex(ctx, nullptr, nullptr, keys.key.data(), nonce.data(), encrypt ? 1 : 0);
  return ok == 1 ? ctx : nullptr;
}

void write_header(unsigned char* out, std::size_t body) {
  out[0] = static_cast<unsigned char>(content_type::application_data);
  out[1] = 0x03;
  out[2] = 0x03;
  out[3] = static_cast<unsigned char>(body >> 8);
  out[4] = static_cast<unsigned char>(body & 0xff);
}

}  // namespace

std::size_t seal(traffic_keys& keys, content_type type,
                 std::span<const std::span<const unsigned char>> parts, unsigned char* out) {
  std::size_t plain = 0;
  for (const auto& p : parts)
    plain += p.size();
  if (plain > max_plaintext) return 0;
  const std::size_t body = plain + 1 + tag_size;
  write_header(out, body);
  EVP_CIPHER_CTX* ctx = keyed(keys, true);
  if (!ctx) return 0;
  int n = 0;
  if (EVP_EncryptUpdate(ctx, nullptr, &n, out, header_size) != 1) return 0;
  unsigned char* at = out + header_size;
  for (const auto& p : parts) {
    if (p.empty()) continue;
    if (EVP_EncryptUpdate(ctx, at, &n, p.data(), static_cast<int>(p.size())) != 1) return 0;
    at += n;
  }
  const auto inner = static_cast<unsigned char>(type);
  if (EVP_EncryptUpdate(ctx, at, &n, &inner, 1) != 1) return 0;
  at += n;
  if (EVP_EncryptFinal_ex(ctx, at, &n) != 1) return 0;
  at += n;
  if (EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_GET_TAG, tag_size, at) != 1) return 0;
  ++keys.seq;
  return header_size + body;
}

void forget_thread_keys() {
  contexts.forget();
}

std::size_t thread_cipher_contexts() {
  return contexts.held();
}

std::size_t body_size(const unsigned char (&header)[header_size], alert& refusal) {
  if (header[0] != static_cast<unsigned char>(content_type::application_data)) {
    refusal = alert::unexpected_message;
    return 0;
  }
  if (header[1] != 0x03 || header[2] != 0x03) {
    refusal = alert::decode_error;
    return 0;
  }
  const std::size_t size = (std::size_t{header[3]} << 8) | header[4];
  if (size > max_ciphertext) {
    refusal = alert::record_overflow;
    return 0;
  }
  if (size < 1 + tag_size) {
    refusal = alert::decode_error;
    return 0;
  }
  return size;
}

bool open(traffic_keys& keys, const unsigned char (&header)[header_size],
          std::span<unsigned char> body, opened& result, alert& refusal) {
  refusal = alert::internal_error;
  EVP_CIPHER_CTX* ctx = body.size() >= 1 + tag_size ? keyed(keys, false) : nullptr;
  const std::size_t sealed = body.size() - tag_size;
  int n = 0, tail = 0;
  bool ok = ctx && EVP_DecryptUpdate(ctx, nullptr, &n, header, header_size) == 1 &&
            EVP_CIPHER_CTX_ctrl(ctx, EVP_CTRL_AEAD_SET_TAG, tag_size, body.data() + sealed) == 1 &&
            EVP_DecryptUpdate(ctx, body.data(), &n, body.data(), static_cast<int>(sealed)) == 1;
  if (ok && EVP_DecryptFinal_ex(ctx, body.data() + n, &tail) != 1) {
    refusal = alert::bad_record_mac;  // the tag check failed (OpenSSL compares in constant time)
    ok = false;
  }
  if (ok) {
    ++keys.seq;
    // Strip the zero padding; the last non-zero byte is the content type.
    std::size_t end = sealed;
    while (end > 0 && body[end - 1] == 0)
      --end;
    if (end == 0) {
      refusal = alert::unexpected_message;
      ok = false;
    } else if (end - 1 > max_plaintext) {
      refusal = alert::record_overflow;
      ok = false;
    } else {
      result.type = static_cast<content_type>(body[end - 1]);
      result.size = end - 1;
      return true;
    }
  }
  OPENSSL_cleanse(body.data(), body.size());
  return false;
}

}  // namespace ringcast::tls13
