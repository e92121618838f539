// --allowed-hosts (docs/security.md, "Threat model: origins, hooks, pages, admin"): the names this
// server answers to. A page on a name the attacker controls that is made to resolve to the server's
// address (DNS rebinding) sends its own name in `Host`; refusing names the server does not have
// keeps such a page out of a localhost-only instance. Empty: any name.
#pragma once

#include <boost/beast/http/fields.hpp>

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "protocol/parsed.hpp"

namespace ringcast {

struct host_policy {
  std::vector<std::string> names;  // lower case, without a port; empty: any
};

// "push.example,localhost,127.0.0.1,[::1]": host names or addresses, a port is ignored.
parsed<host_policy> parse_allowed_hosts(std::string_view list);

// The name of a Host header (or an origin's authority) without its port, lower case:
// "Shop.Example:8080" -> "shop.example", "[::1]:8080" -> "[::1]".
std::string host_name_of(std::string_view authority);

// Why a request's Host is refused 400 before anything else, or none: more than one Host field
// (RFC 9112 §3.2). A proxy in front may route by one while --allowed-hosts and the same-origin
// check would read the other.
std::optional<std::string_view> host_field_error(const boost::beast::http::fields& header);

// Whether a request with this Host header (empty: none) may be answered.
bool host_allowed(const host_policy& policy, std::string_view host_header);

}  // namespace ringcast
