#include "redis_url.hpp"

#include <boost/url/parse.hpp>

#include <charconv>

namespace ringcast {

parsed<redis_url> parse_redis_url(std::string_view text) {
  auto url = boost::urls::parse_absolute_uri(text);
  if (!url) return parsed<redis_url>::fail("expected redis://[:password@]host[:port][/db]");
  if (url->scheme() != "redis") return parsed<redis_url>::fail("the scheme must be redis://");
  redis_url r;
  if (!url->host().empty()) r.host = url->host_address();
  if (r.host.size() > 2 && r.host.front() == '[') r.host = r.host.substr(1, r.host.size() - 2);
  if (url->has_port()) {
    // port_number() wraps values over 65535, so read the digits ourselves.
    const std::string_view digits = url->port();
    unsigned port = 0;
    const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), port);
    if (ec != std::errc{} || end != digits.data() + digits.size() || port == 0 || port > 65535) {
      return parsed<redis_url>::fail("the port must be 1-65535");
    }
    r.port = static_cast<std::uint16_t>(port);
  }
  if (url->has_userinfo()) {
    r.user = url->user();
    r.password = url->password();
  }
  std::string_view path = url->encoded_path();
  if (!path.empty() && path != "/") {
    path.remove_prefix(1);
    const auto [end, ec] = std::from_chars(path.data(), path.data() + path.size(), r.db);
    if (ec != std::errc{} || end != path.data() + path.size() || r.db > 15) {
      return parsed<redis_url>::fail("the database must be a number 0-15 (/0)");
    }
  }
  if (url->has_query() || url->has_fragment()) {
    return parsed<redis_url>::fail("no query or fragment expected");
  }
  return parsed<redis_url>::ok(std::move(r));
}

}  // namespace ringcast
