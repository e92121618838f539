#include "config/flag_values.hpp"

#include <dirent.h>

#include <cerrno>
#include <charconv>
#include <cstring>
#include <limits>

#include <fmt/format.h>
#include <boost/url/ipv4_address.hpp>
#include <boost/url/ipv6_address.hpp>

#include "config/flag_error.hpp"
#include "protocol/duration.hpp"

namespace ringcast {

std::uint64_t number_value(std::string_view flag, const std::string& text, std::uint64_t lo,
                           std::uint64_t hi) {
  std::uint64_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec == std::errc{} && end == text.data() + text.size() && n >= lo && n <= hi) return n;
  if (hi == std::numeric_limits<std::uint64_t>::max())
    bad_flag(flag, fmt::format("expected a whole number of at least {}, got '{}'", lo, text));
  bad_flag(flag, fmt::format("expected a whole number from {} to {}, got '{}'", lo, hi, text));
}

config::ms duration_value(std::string_view flag, const std::string& text) {
  auto d = parse_duration(text);
  if (!d) bad_flag(flag, d.error);
  return *d.value;
}

namespace {

// A DNS name (localhost, push.example.com): resolved when the server starts to listen. It has a
// letter, so that a bad address (256.0.0.1) is not taken for a name.
bool host_name(std::string_view host) {
  constexpr std::size_t longest_name = 253;
  constexpr std::string_view letters = "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ";
  return !host.empty() && host.size() <= longest_name && host.front() != '-' &&
         host.front() != '.' && host.find_first_of(letters) != std::string_view::npos &&
         host.find_first_not_of(std::string{letters} + "0123456789.-") == std::string_view::npos;
}

}  // namespace

void read_listen(const std::string& text, config& cfg) {
  auto fail = [&] {
    bad_flag("listen",
             fmt::format("expected IPv4:PORT, [IPv6]:PORT or HOSTNAME:PORT, got '{}'", text));
  };
  const auto colon = text.rfind(':');
  if (colon == std::string::npos) fail();
  std::string_view host = std::string_view{text}.substr(0, colon);
  const std::string_view port = std::string_view{text}.substr(colon + 1);

  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') {
    host = host.substr(1, host.size() - 2);
    if (!boost::urls::parse_ipv6_address(host)) fail();
  } else if (!boost::urls::parse_ipv4_address(host) && !host_name(host)) {
    fail();
  }
  std::uint16_t port_number = 0;
  const auto [end, ec] = std::from_chars(port.data(), port.data() + port.size(), port_number);
  if (port.empty() || ec != std::errc{} || end != port.data() + port.size()) fail();

  cfg.listen_host = host;
  cfg.listen_port = port_number;
}

void check_web_root(const std::string& dir) {
  DIR* listing = ::opendir(dir.c_str());
  if (!listing)
    bad_flag("web-root",
             fmt::format("'{}' is not a readable directory: {}", dir, std::strerror(errno)));
  ::closedir(listing);
}

}  // namespace ringcast
