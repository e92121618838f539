// The digests of the Pusher protocol, each as lower-case hex: HMAC-SHA256 signs auth strings, HTTP
// API requests and webhooks; MD5 is the HTTP API's body_md5.
#pragma once

#include <string>
#include <string_view>

namespace ringcast::pusher {

std::string hmac_sha256_hex(std::string_view secret, std::string_view text);
std::string md5_hex(std::string_view body);

// Whether `given` equals `expected`, in time that depends on their lengths only (the expected
// signatures have a fixed length): a caller cannot learn a signature a byte at a time.
bool same_in_constant_time(std::string_view expected, std::string_view given);

}  // namespace ringcast::pusher
