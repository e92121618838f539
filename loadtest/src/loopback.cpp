#include "loopback.hpp"

#include <netinet/in.h>

#include <boost/asio/detail/socket_option.hpp>

namespace ringcast::load {

namespace asio = boost::asio;

asio::ip::address_v4 source_slice::pick(std::size_t k) const {
  const auto x = first + static_cast<unsigned>(k % (last - first + 1));
  return asio::ip::address_v4{(127u << 24) | x};
}

source_slice slice_for(unsigned worker, unsigned workers) {
  const unsigned per = 250 / workers;
  return {1 + worker * per, worker * per + per};
}

boost::system::error_code bind_source(stream_socket& socket, const asio::ip::address_v4& source) {
  boost::system::error_code ec;
  socket.open(asio::ip::tcp::v4(), ec);
  if (ec) return ec;
#ifdef IP_BIND_ADDRESS_NO_PORT
  socket.set_option(asio::detail::socket_option::boolean<IPPROTO_IP, IP_BIND_ADDRESS_NO_PORT>(true),
                    ec);
  if (ec) return ec;
#endif
  socket.set_option(asio::ip::tcp::no_delay(true), ec);
  socket.bind({source, 0}, ec);
  return ec;
}

}  // namespace ringcast::load
