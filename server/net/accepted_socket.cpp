#include "net/accepted_socket.hpp"

#include "core/repeated_warning.hpp"
#include "protocol/client_address.hpp"

namespace ringcast {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

std::optional<accepted> accept_socket(stream_socket& socket, const config& settings,
                                      address_limits& addresses, address_limits::time_point now) {
  boost::system::error_code ec;
  const auto peer = socket.remote_endpoint(ec);
  if (ec) return std::nullopt;  // gone already
  // Pushes are small writes that must go out at once, not wait behind Nagle for an ACK (a TLS
  // handshake's session tickets followed by the first response would stall ~40 ms).
  socket.set_option(tcp::no_delay(true), ec);
  socket.non_blocking(true, ec);  // accept_socket_from expects it, as accept4() gives it
  return accept_socket_from(socket, peer.address(), settings, addresses, now);
}

std::optional<accepted> accept_socket_from(stream_socket& socket, const asio::ip::address& peer,
                                           const config& settings, address_limits& addresses,
                                           address_limits::time_point now) {
  static repeated_warning refusals;  // logged at most once a second while it lasts
  boost::system::error_code ec;
  accepted out{{}, peer};
  if (!in_ranges(settings.trusted_proxies, out.peer)) {
    auto held = addresses.open_connection(peer, now);
    if (held.refused != address_limits::refusal::none) {
      refusals.warn(now, "{}: closed at accept over --max-connections-per-ip", peer.to_string());
      socket.close(ec);
      return std::nullopt;
    }
    out.address = std::move(held.held);
  }
  // A client that does not read pins at most this much kernel memory (the kernel doubles it for
  // its bookkeeping), instead of the autotuned net.ipv4.tcp_wmem maximum.
  if (settings.send_buffer > 0)
    socket.set_option(asio::socket_base::send_buffer_size(static_cast<int>(settings.send_buffer)),
                      ec);
  return out;
}

}  // namespace ringcast
