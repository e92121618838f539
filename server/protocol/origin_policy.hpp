// The Origin policy of the client endpoints (/ws, /sse, /poll; docs/security.md, "Threat model:
// origins, hooks, pages, admin"): a browser names the page that opens a connection in `Origin`, and
// a page of another site must not ride on the user's cookies (cross-site WebSocket hijacking). A
// connect is admitted when it has no Origin (not a browser), when its Origin is the server's own
// (host[:port] equal to `Host`), or when --allowed-origins lists it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "parsed.hpp"

namespace ringcast {

// One entry of --allowed-origins: scheme://host[:port], the host possibly "*.name" (any name
// ending in ".name", not "name" itself).
struct origin_pattern {
  std::string scheme;  // "http" or "https"
  std::string host;    // lower case; for a wildcard, the part after "*."
  bool subdomains = false;
  std::string port;  // digits, or empty for the scheme's default
};

struct origin_policy {
  bool any = false;  // "*": every origin is admitted
  std::vector<origin_pattern> allowed;
};

// "https://shop.example,https://*.shop.example:8443" or "*"; empty: nothing beyond same-origin.
parsed<origin_policy> parse_allowed_origins(std::string_view list);

// `origin` is the request's Origin header (none: not sent), `host` its Host header.
bool origin_admitted(const origin_policy& policy, std::optional<std::string_view> origin,
                     std::string_view host);

}  // namespace ringcast
