#include "protocol/client_address.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <charconv>

#include "protocol/header_list.hpp"

namespace ringcast {

namespace ip = boost::asio::ip;

namespace {

std::optional<ip::address> address_of(std::string_view text) {
  boost::system::error_code ec;
  const auto a = ip::make_address(std::string(text), ec);
  if (ec) return std::nullopt;
  return canonical(a);
}

// One hop of X-Forwarded-For: an address, "[v6]" or "[v6]:port", or "v4:port".
std::optional<ip::address> hop_address(std::string_view hop) {
  if (hop.starts_with('[')) {
    const auto close = hop.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    return address_of(hop.substr(1, close - 1));
  }
  if (auto a = address_of(hop)) return a;
  const auto colon = hop.find(':');
  if (colon != std::string_view::npos && hop.find(':', colon + 1) == std::string_view::npos)
    return address_of(hop.substr(0, colon));
  return std::nullopt;
}

}  // namespace

bool in_ranges(const std::vector<address_range>& ranges, const ip::address& a) {
  return std::any_of(ranges.begin(), ranges.end(),
                     [&a](const address_range& r) { return r.contains(a); });
}

ip::address address_group(const ip::address& a, unsigned v6_prefix) {
  const ip::address c = canonical(a);
  if (c.is_v4()) return c;
  auto bytes = c.to_v6().to_bytes();
  unsigned bits = v6_prefix;
  for (auto& b : bytes) {
    const unsigned keep = std::min(bits, 8u);
    b = static_cast<unsigned char>(b & (0xff00u >> keep));
    bits -= keep;
  }
  return ip::address_v6(bytes);
}

ip::address canonical(const ip::address& a) {
  if (a.is_v6() && a.to_v6().is_v4_mapped()) return ip::make_address_v4(ip::v4_mapped, a.to_v6());
  return a;
}

bool address_range::contains(const ip::address& a) const {
  const ip::address c = canonical(a);
  if (c.is_v4() != base.is_v4()) return false;
  auto compare = [this](const auto& x, const auto& y) {
    unsigned bits = prefix;
    for (std::size_t i = 0; i < x.size() && bits > 0; ++i, bits -= std::min(bits, 8u)) {
      const unsigned mask = bits >= 8 ? 0xffu : (0xffu << (8 - bits)) & 0xffu;
      if ((x[i] & mask) != (y[i] & mask)) return false;
    }
    return true;
  };
  return c.is_v4() ? compare(c.to_v4().to_bytes(), base.to_v4().to_bytes())
                   : compare(c.to_v6().to_bytes(), base.to_v6().to_bytes());
}

parsed<std::vector<address_range>> parse_address_ranges(std::string_view text) {
  std::vector<address_range> out;
  while (!text.empty()) {
    const auto comma = text.find(',');
    const std::string_view item = trim_ows(text.substr(0, comma));
    text = comma == std::string_view::npos ? std::string_view{} : text.substr(comma + 1);
    const auto slash = item.find('/');
    const auto base = address_of(item.substr(0, slash));
    if (!base)
      return parsed<std::vector<address_range>>::fail(
          fmt::format("'{}' is not an address or ADDRESS/PREFIX", item));
    const unsigned max_prefix = base->is_v4() ? 32 : 128;
    unsigned prefix = max_prefix;
    if (slash != std::string_view::npos) {
      const std::string_view bits = item.substr(slash + 1);
      const auto [end, ec] = std::from_chars(bits.data(), bits.data() + bits.size(), prefix);
      if (ec != std::errc{} || end != bits.data() + bits.size() || bits.empty() ||
          prefix > max_prefix)
        return parsed<std::vector<address_range>>::fail(
            fmt::format("'{}': the prefix must be 0-{}", item, max_prefix));
    }
    out.push_back({*base, prefix});
  }
  if (out.empty()) return parsed<std::vector<address_range>>::fail("no address given");
  return parsed<std::vector<address_range>>::ok(std::move(out));
}

ip::address client_address(const ip::address& peer,
                           const std::vector<std::string_view>& forwarded_for,
                           const std::vector<address_range>& trusted) {
  const ip::address from = canonical(peer);
  if (forwarded_for.empty() || !in_ranges(trusted, from)) return from;
  std::optional<ip::address> nearest_trusted;
  for (auto field = forwarded_for.rbegin(); field != forwarded_for.rend(); ++field) {
    std::string_view rest = *field;
    while (true) {
      const auto comma = rest.rfind(',');
      const std::string_view hop =
          trim_ows(comma == std::string_view::npos ? rest : rest.substr(comma + 1));
      if (!hop.empty()) {
        const auto a = hop_address(hop);
        if (!a) return from;  // not written by a trusted proxy: the header is not usable
        if (!in_ranges(trusted, *a)) return *a;
        nearest_trusted = a;
      }
      if (comma == std::string_view::npos) break;
      rest = rest.substr(0, comma);
    }
  }
  return nearest_trusted.value_or(from);
}

}  // namespace ringcast
