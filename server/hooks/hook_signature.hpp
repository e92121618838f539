// X-Ringcast-Signature: "sha256=" + the lower-case hex HMAC-SHA256 of the request body, keyed with
// --hook-secret (docs/protocol.md, "Event hooks"): the backend recomputes it to know the body
// came from ringcast and was not altered.
#pragma once

#include <string>
#include <string_view>

namespace ringcast {

inline constexpr const char* hook_signature_header = "X-Ringcast-Signature";

std::string hook_signature(std::string_view secret, std::string_view body);

}  // namespace ringcast
