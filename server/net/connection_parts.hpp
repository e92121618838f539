// What one client connection is made of, moved whole from one handler to the next (HTTP reading,
// a held long-poll, a stream) and, detached, from one loop to another: the stream with its TLS
// state, the bytes read past the last request, and the connection's slot.
#pragma once

#include <boost/beast/core/flat_buffer.hpp>

#include <optional>

#include "net/address_limits.hpp"
#include "net/connection_context.hpp"
#include "net/connection_limit.hpp"
#include "protocol/http_reply.hpp"
#include "tls/net_stream.hpp"

namespace ringcast {

struct connection_parts {
  net_stream stream;
  boost::beast::flat_buffer buffer;
  connection_limit::slot slot;
  // The connection counted against its address (--max-connections-per-ip), from accept() (or,
  // from a trusted proxy, its request head) to its end, whatever it is doing meanwhile.
  address_limits::slot address{};
  // The TCP peer, as read at accept() (or at the upgrade's adoption): never read again.
  boost::asio::ip::address peer;

  // For the hand-off: the socket leaves its loop as a descriptor (with its TLS session).
  struct detached {
    net_stream::detached stream;
    boost::beast::flat_buffer buffer;
    connection_limit::slot slot;
    address_limits::slot address;
    boost::asio::ip::address peer;
  };
  std::optional<detached> detach();
  // On the new loop; none if the descriptor cannot be adopted (it is closed then).
  static std::optional<connection_parts> adopt(connection_context& ctx, detached d);
  // The peer of a socket taken over by an upgrade in place (unspecified if it is gone).
  static boost::asio::ip::address peer_of(net_stream& stream);
};

// Where a connection goes back to reading HTTP requests after a long-poll reply (keep-alive):
// http_connection::resume, passed down rather than included, so that the long-poll does not
// depend on the class that started it.
using http_resume = void (*)(connection_context&, connection_parts);
// Where a connect refused on its session's loop is answered (then reads on, or closes, as HTTP
// does): http_connection::answer, passed down the same way.
using http_refusal = void (*)(connection_context&, connection_parts, http_response);

}  // namespace ringcast
