#include "protocol/redis_url.hpp"

#include <boost/url/parse.hpp>

#include <charconv>

#include <fmt/format.h>

namespace ringcast {

namespace {

parsed<redis_url> parse_sentinel_url(std::string_view text);

}  // namespace

parsed<redis_url> parse_redis_url(std::string_view text) {
  if (text.starts_with("sentinel://")) return parse_sentinel_url(text);
  auto url = boost::urls::parse_absolute_uri(text);
  if (!url) return parsed<redis_url>::fail("expected redis://[:password@]host[:port][/db]");
  if (url->scheme() != "redis")
    return parsed<redis_url>::fail("the scheme must be redis:// or sentinel://");
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

namespace {

// sentinel://[[user]:password@]host[:port][,host[:port]...]/master-name[/db]: each address and the
// password are read by the redis:// parser above, so the rules are the same.
parsed<redis_url> parse_sentinel_url(std::string_view text) {
  constexpr const char* form = "expected sentinel://host:port[,host:port...]/master-name[/db]";
  std::string_view rest = text.substr(std::string_view("sentinel://").size());
  const auto slash = rest.find('/');
  if (slash == std::string_view::npos) return parsed<redis_url>::fail(form);
  std::string_view authority = rest.substr(0, slash);
  std::string_view path = rest.substr(slash + 1);

  std::string_view userinfo;
  if (const auto at = authority.rfind('@'); at != std::string_view::npos) {
    userinfo = authority.substr(0, at + 1);
    authority = authority.substr(at + 1);
  }
  redis_url r;
  for (std::size_t start = 0; start <= authority.size();) {
    auto comma = authority.find(',', start);
    if (comma == std::string_view::npos) comma = authority.size();
    const std::string_view item = authority.substr(start, comma - start);
    start = comma + 1;
    if (item.empty()) return parsed<redis_url>::fail(form);
    std::string as_redis = "redis://" + std::string(userinfo) + std::string(item);
    // Without a port the Sentinel default, 26379.
    const bool bracketed = item.front() == '[';
    const auto close = item.find(']');
    const bool has_port = bracketed ? close != std::string_view::npos && close + 1 < item.size()
                                    : item.find(':') != std::string_view::npos;
    if (!has_port) as_redis += ":26379";
    auto one = parse_redis_url(as_redis);
    if (!one) return parsed<redis_url>::fail(fmt::format("sentinel '{}': {}", item, one.error));
    if (r.sentinels.empty()) {
      r.user = one.value->user;
      r.password = one.value->password;
    }
    r.sentinels.push_back({one.value->host, one.value->port});
  }

  const auto next = path.find('/');
  r.master_name = std::string(path.substr(0, next));
  if (r.master_name.empty()) return parsed<redis_url>::fail(form);
  if (r.master_name.find_first_of("?# ") != std::string::npos)
    return parsed<redis_url>::fail("no query or fragment expected");
  if (next != std::string_view::npos) {
    const std::string_view db = path.substr(next + 1);
    const auto [end, ec] = std::from_chars(db.data(), db.data() + db.size(), r.db);
    if (db.empty() || ec != std::errc{} || end != db.data() + db.size() || r.db > 15)
      return parsed<redis_url>::fail("the database must be a number 0-15 (/0)");
  }
  r.host.clear();
  r.port = 0;
  return parsed<redis_url>::ok(std::move(r));
}

}  // namespace

}  // namespace ringcast
