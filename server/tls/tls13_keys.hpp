// TLS 1.3 traffic keys (RFC 8446 section 7): from one direction's application traffic secret, the
// AEAD key and IV its records are protected with, and the next secret a KeyUpdate moves to. The
// derivation is OpenSSL's HKDF (expand only); ringcast builds only the HkdfLabel.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <string_view>

namespace ringcast::tls13 {

// The three TLS 1.3 cipher suites OpenSSL offers by default. TLS_AES_128_CCM_SHA256 and
// TLS_AES_128_CCM_8_SHA256 are not enabled by ringcast's contexts; a connection that negotiated
// one would stay with OpenSSL's own record layer.
enum class suite : std::uint8_t {
  aes_128_gcm_sha256,
  aes_256_gcm_sha384,
  chacha20_poly1305_sha256
};

// The suite of TLS 1.3 cipher suite number `id` (0x1301, 0x1302, 0x1303), else nullopt.
std::optional<suite> suite_from_id(std::uint16_t id);
std::size_t secret_size(suite s);  // the hash's length: 32 or 48
std::size_t key_size(suite s);     // 16 or 32

constexpr std::size_t max_secret_size = 48;
constexpr std::size_t max_key_size = 32;
constexpr std::size_t iv_size = 12;

// What one direction of a connection needs to protect its records: the current traffic secret
// (for the next KeyUpdate), the key and IV made from it, and the record sequence number. Cleared
// when destroyed; never copied.
struct traffic_keys {
  suite cipher = suite::aes_128_gcm_sha256;
  std::array<unsigned char, max_secret_size> secret{};
  std::array<unsigned char, max_key_size> key{};
  std::array<unsigned char, iv_size> iv{};
  std::uint64_t seq = 0;

  traffic_keys() = default;
  traffic_keys(const traffic_keys&) = delete;
  traffic_keys& operator=(const traffic_keys&) = delete;
  ~traffic_keys();
};

// HKDF-Expand-Label(secret, label, context, out.size()) with the suite's hash (RFC 8446 section
// 7.1; "tls13 " is prepended to `label` here). False if OpenSSL fails or a length is out of range.
bool expand_label(suite s, std::span<const unsigned char> secret, std::string_view label,
                  std::span<const unsigned char> context, std::span<unsigned char> out);

// Keys from application traffic secret `secret` (its size must be the suite's hash length),
// sequence number 0. False (and `keys` cleared) on failure.
bool set_traffic_secret(traffic_keys& keys, suite s, std::span<const unsigned char> secret);

// KeyUpdate (RFC 8446 section 7.2): the next application traffic secret, its key and IV,
// sequence number 0. False (and `keys` cleared) on failure.
bool update_traffic_secret(traffic_keys& keys);

}  // namespace ringcast::tls13
