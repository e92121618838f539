#include "hooks/hook_signature.hpp"

#include <openssl/evp.h>
#include <openssl/hmac.h>

namespace ringcast {

std::string hook_signature(std::string_view secret, std::string_view body) {
  unsigned char mac[EVP_MAX_MD_SIZE];
  unsigned int length = 0;
  HMAC(EVP_sha256(), secret.data(), static_cast<int>(secret.size()),
       reinterpret_cast<const unsigned char*>(body.data()), body.size(), mac, &length);
  static constexpr char digits[] = "0123456789abcdef";
  std::string out = "sha256=";
  for (unsigned int i = 0; i < length; ++i) {
    out += digits[mac[i] >> 4];
    out += digits[mac[i] & 0xf];
  }
  return out;
}

}  // namespace ringcast
