#include "pusher/pusher_crypto.hpp"

#include <openssl/crypto.h>
#include <openssl/evp.h>
#include <openssl/hmac.h>

namespace ringcast::pusher {
namespace {

std::string hex(const unsigned char* bytes, unsigned int length) {
  static constexpr char digits[] = "0123456789abcdef";
  std::string out;
  out.reserve(2 * length);
  for (unsigned int i = 0; i < length; ++i) {
    out += digits[bytes[i] >> 4];
    out += digits[bytes[i] & 0xf];
  }
  return out;
}

}  // namespace

std::string hmac_sha256_hex(std::string_view secret, std::string_view text) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(text.data()), text.size(), mac, &length);
  return hex(mac, length);
}

std::string md5_hex(std::string_view body) {
  unsigned char digest[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  EVP_Digest(body.data(), body.size(), digest, &length, EVP_md5(), nullptr);
  return hex(digest, length);
}

bool same_in_constant_time(std::string_view expected, std::string_view given) {
  return expected.size() == given.size() &&
         CRYPTO_memcmp(expected.data(), given.data(), expected.size()) == 0;
}

}  // namespace ringcast::pusher
