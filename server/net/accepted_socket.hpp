// What every accepted TCP connection goes through before an event loop serves it (the listener's,
// and the unit tests' loop): counted against its address (--max-connections-per-ip, closed at once
// over it; a --trusted-proxy peer is counted later, under the client its request head names),
// TCP_NODELAY, a send buffer capped at --send-buffer, and non-blocking mode (set once: asio and
// the write path then ask the kernel no more).
#pragma once

#include <boost/asio/ip/tcp.hpp>

#include <optional>

#include "config/config.hpp"
#include "net/address_limits.hpp"
#include "tls/stream_socket.hpp"

namespace ringcast {

struct accepted {
  address_limits::slot address;  // empty for a trusted proxy, or with the limit off
  // The TCP peer, read once here: the Origin check, the client's address and the connect hook
  // read it from the connection, not from the socket again.
  boost::asio::ip::address peer;
};

// The connection as accepted, or none when it was refused: the socket is closed then.
std::optional<accepted> accept_socket(stream_socket& socket, const config& settings,
                                      address_limits& addresses, address_limits::time_point now);

// As accept_socket, for a socket accepted non-blocking (accept4() with SOCK_NONBLOCK) from a
// listening socket that has TCP_NODELAY set (accepted sockets inherit it), with the peer's address
// as accept() returned it: three system calls fewer per connection (the listener's,
// docs/performance.md sections 16 and 21).
std::optional<accepted> accept_socket_from(stream_socket& socket,
                                           const boost::asio::ip::address& peer,
                                           const config& settings, address_limits& addresses,
                                           address_limits::time_point now);

}  // namespace ringcast
