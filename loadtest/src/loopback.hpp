#pragma once

#include <boost/asio/ip/address_v4.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/system/error_code.hpp>
#include <cstddef>

#include "tls/stream_socket.hpp"

namespace ringcast::load {

// 127.0.0.x for x in [first, last]; each worker gets its own slice of the 250 addresses.
struct source_slice {
  unsigned first = 1;
  unsigned last = 250;
  boost::asio::ip::address_v4 pick(std::size_t k) const;
};
source_slice slice_for(unsigned worker, unsigned workers);

// Opens `socket` and binds it to `source` before the caller connects. IP_BIND_ADDRESS_NO_PORT
// defers the port choice to connect(), so a port is shared by every (source, destination) pair
// and 250 sources give 250 times the ephemeral range instead of running out near 28 000.
boost::system::error_code bind_source(stream_socket& socket,
                                      const boost::asio::ip::address_v4& source);

}  // namespace ringcast::load
