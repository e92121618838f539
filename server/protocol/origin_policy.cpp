#include "protocol/origin_policy.hpp"

#include <algorithm>
#include <cctype>

#include <fmt/format.h>

#include "protocol/comma_list.hpp"

namespace ringcast {
namespace {

std::string lower(std::string_view s) {
  std::string out(s);
  std::transform(out.begin(), out.end(), out.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return out;
}

bool host_char(char c) {
  return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.' || c == '_';
}

// An origin as a browser serializes it: scheme "://" host [":" port], nothing after. The host is
// a name or IPv4 address, or an IPv6 address in brackets. "null" and anything else: none.
struct origin_parts {
  std::string scheme, host, port;  // port empty when it is the scheme's default
};

std::optional<origin_parts> split_origin(std::string_view text) {
  const auto sep = text.find("://");
  if (sep == std::string_view::npos) return std::nullopt;
  origin_parts o{lower(text.substr(0, sep)), {}, {}};
  if (o.scheme != "http" && o.scheme != "https") return std::nullopt;
  std::string_view rest = text.substr(sep + 3);
  std::string_view host = rest, port;
  if (rest.starts_with('[')) {
    const auto close = rest.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    host = rest.substr(0, close + 1);
    rest = rest.substr(close + 1);
    if (!rest.empty() && !rest.starts_with(':')) return std::nullopt;
    if (!rest.empty()) {
      port = rest.substr(1);
      if (port.empty()) return std::nullopt;
    }
    if (!std::all_of(host.begin() + 1, host.end() - 1, [](char c) {
          return std::isxdigit(static_cast<unsigned char>(c)) || c == ':' || c == '.';
        }))
      return std::nullopt;
  } else {
    if (const auto colon = rest.find(':'); colon != std::string_view::npos) {
      host = rest.substr(0, colon);
      port = rest.substr(colon + 1);
      if (port.empty()) return std::nullopt;
    }
    if (!std::all_of(host.begin(), host.end(), host_char)) return std::nullopt;
  }
  if (host.empty() || host.size() > 253) return std::nullopt;
  if (port.size() > 5 ||
      !std::all_of(port.begin(), port.end(), [](char c) { return c >= '0' && c <= '9'; }))
    return std::nullopt;
  if (!port.empty() && port.front() == '0') return std::nullopt;  // browsers never send "0080"
  o.host = lower(host);
  o.port = std::string(port);
  if ((o.scheme == "http" && o.port == "80") || (o.scheme == "https" && o.port == "443"))
    o.port.clear();
  return o;
}

// The server's own origin is its scheme and the request's Host: the Origin must have the same
// scheme, host and port, a default port written out on either side being the same place.
bool same_origin(const origin_parts& o, own_origin self) {
  if (self.host.empty()) return false;
  const auto own = split_origin(fmt::format("{}://{}", self.scheme, self.host));
  return own && own->scheme == o.scheme && own->host == o.host && own->port == o.port;
}

bool matches(const origin_pattern& p, const origin_parts& o) {
  if (p.scheme != o.scheme || p.port != o.port) return false;
  if (!p.subdomains) return p.host == o.host;
  return o.host.size() > p.host.size() + 1 && o.host.ends_with("." + p.host);
}

}  // namespace

parsed<origin_policy> parse_allowed_origins(std::string_view list) {
  origin_policy policy;
  for (const std::string_view item : comma_list(list)) {
    if (item == "*") {
      policy.any = true;
      continue;
    }
    origin_pattern p;
    std::string concrete(item);
    if (const auto star = item.find("://*."); star != std::string_view::npos) {
      p.subdomains = true;
      concrete.erase(star + 3, 2);  // check the rest as an ordinary origin
    }
    auto parts = split_origin(concrete);
    if (!parts || parts->host.front() == '.') {
      return parsed<origin_policy>::fail(fmt::format(
          "expected origins scheme://host[:port] (http or https, the host possibly *.name), or *, "
          "got '{}'",
          item));
    }
    p.scheme = parts->scheme;
    p.host = parts->host;
    p.port = parts->port;
    policy.allowed.push_back(std::move(p));
  }
  return parsed<origin_policy>::ok(std::move(policy));
}

std::string_view own_scheme(bool tls, bool peer_is_trusted_proxy,
                            std::optional<std::string_view> forwarded_proto) {
  const std::string_view own = tls ? "https" : "http";
  if (!peer_is_trusted_proxy || !forwarded_proto) return own;
  // Only the first value is the client's (a proxy further in appends what it saw).
  const auto values = comma_list(*forwarded_proto);
  if (values.empty()) return own;
  const std::string first = lower(values.front());
  if (first == "https") return "https";
  if (first == "http") return "http";
  return own;  // not a scheme we serve: the connection's own
}

origin_verdict judge_origin(const origin_policy& policy, std::optional<std::string_view> origin,
                            own_origin self) {
  if (!origin) return origin_verdict::no_origin;
  const auto o = split_origin(*origin);  // "null" (sandboxed frames, file:) never parses
  if (o && same_origin(*o, self)) return origin_verdict::same_origin;
  if (o && std::any_of(policy.allowed.begin(), policy.allowed.end(),
                       [&](const origin_pattern& p) { return matches(p, *o); }))
    return origin_verdict::listed;
  return policy.any ? origin_verdict::any : origin_verdict::refused;
}

}  // namespace ringcast
