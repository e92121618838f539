// http://host[:port][/path][?query] and https://…, the backend URLs of --hook-url and
// --connect-hook (docs/operations.md, "Event hooks").
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "protocol/parsed.hpp"

namespace ringcast {

struct http_url {
  bool tls = false;  // https
  std::string host;  // a name or an address (an IPv6 address without its brackets)
  std::uint16_t port = 80;
  std::string target = "/";  // path and query, as sent in the request line
  std::string text;          // the URL as given, for logs
};

parsed<http_url> parse_http_url(std::string_view text);

}  // namespace ringcast
