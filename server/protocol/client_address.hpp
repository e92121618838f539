// Which address a client connects from, for the per-address limits: the TCP peer, or, when the
// peer is one of the --trusted-proxy networks, the nearest address in X-Forwarded-For that is not
// (the proxy appends the address it saw; everything left of that could be forged by the client).
#pragma once

#include <boost/asio/ip/address.hpp>

#include <optional>
#include <string_view>
#include <vector>

#include "protocol/parsed.hpp"

namespace ringcast {

struct address_range {
  boost::asio::ip::address base;
  unsigned prefix = 0;  // bits
  bool contains(const boost::asio::ip::address& a) const;
};

// "10.0.0.0/8,::1,fd00::/8": a bare address is one host. An error names the bad item.
parsed<std::vector<address_range>> parse_address_ranges(std::string_view text);

// An IPv4 address mapped into IPv6 (::ffff:a.b.c.d) as the IPv4 address itself, so that both
// spellings are one client.
boost::asio::ip::address canonical(const boost::asio::ip::address& a);

// What the per-address limits count as one client: an IPv4 address itself (canonical), an IPv6
// address its network of `v6_prefix` bits (the rest zeroed): one customer's /64 is one client,
// not 2^64 of them.
boost::asio::ip::address address_group(const boost::asio::ip::address& a, unsigned v6_prefix);

// `a` is in one of `ranges` (a --trusted-proxy peer).
bool in_ranges(const std::vector<address_range>& ranges, const boost::asio::ip::address& a);

// `forwarded_for`: the X-Forwarded-For fields of the request in order (empty: none). From a
// trusted peer the hops are read from the right, trusted ones skipped; the first untrusted hop is
// the client (all trusted: the leftmost). A hop that is not an address before that, or a peer
// that is not trusted, leaves the peer.
boost::asio::ip::address client_address(const boost::asio::ip::address& peer,
                                        const std::vector<std::string_view>& forwarded_for,
                                        const std::vector<address_range>& trusted);

}  // namespace ringcast
