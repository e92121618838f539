#include "protocol/http_url.hpp"

#include <charconv>

#include <fmt/format.h>
#include <boost/url/parse.hpp>

namespace ringcast {

parsed<http_url> parse_http_url(std::string_view text) {
  auto fail = [&](std::string_view why) {
    return parsed<http_url>::fail(fmt::format("{}, got '{}'", why, text));
  };
  const auto uri = boost::urls::parse_absolute_uri(text);
  if (!uri) return fail("expected http://HOST[:PORT]/PATH or https://…");
  http_url url;
  const auto scheme = uri->scheme();
  if (scheme == "https") {
    url.tls = true;
    url.port = 443;
  } else if (scheme != "http") {
    return fail("expected an http:// or https:// URL");
  }
  if (uri->has_userinfo()) return fail("user and password in the URL are not supported");
  if (uri->has_fragment()) return fail("a URL with a #fragment is not sent");
  url.host = uri->host_address();
  if (url.host.empty()) return fail("expected a host");
  if (uri->has_port()) {
    const auto port = uri->port();
    std::uint16_t n = 0;
    const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), n);
    if (port.empty() || ec != std::errc{} || end != port.data() + port.size() || n == 0)
      return fail("expected a port from 1 to 65535");
    url.port = n;
  }
  const std::string_view target = uri->encoded_target();
  url.target = target.starts_with('/') ? std::string(target) : fmt::format("/{}", target);
  url.text = std::string(text);
  return parsed<http_url>::ok(std::move(url));
}

}  // namespace ringcast
