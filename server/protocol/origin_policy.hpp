// The Origin policy of the client endpoints (/ws, /sse, /poll; docs/security.md, "Threat model:
// origins, hooks, pages, admin"): a browser names the page that opens a connection in `Origin`, and
// a page of another site must not ride on the user's cookies (cross-site WebSocket hijacking). A
// connect is admitted when it has no Origin (not a browser), when its Origin is the server's own
// (the same scheme, host and port as the server's scheme and `Host`), or when --allowed-origins
// lists it.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/parsed.hpp"

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

// The server's origin as a request reaches it: `scheme` "http" or "https" (own_scheme) and the
// request's Host header; a Host without a port means the scheme's default port.
struct own_origin {
  std::string_view scheme;
  std::string_view host;
};

// The scheme of the server's own origin: "https" over native TLS, else "http"; from a peer that is
// a --trusted-proxy, its `X-Forwarded-Proto` (the first value, "http" or "https") when it sends
// one, so that a page served through a TLS proxy is still the server's own.
std::string_view own_scheme(bool tls, bool peer_is_trusted_proxy,
                            std::optional<std::string_view> forwarded_proto);

enum class origin_verdict {
  no_origin,    // not a browser: nothing of a victim's to ride on; admitted
  same_origin,  // the server's own pages
  listed,       // --allowed-origins lists it: a page of another origin, with its cookies
  any,          // only "*" admits it: a page of another origin, without cookies over SSE/poll
  refused,      // 403 `origin`
};

// `origin` is the request's Origin header (none: not sent).
origin_verdict judge_origin(const origin_policy& policy, std::optional<std::string_view> origin,
                            own_origin self);

}  // namespace ringcast
