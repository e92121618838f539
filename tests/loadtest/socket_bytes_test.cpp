#include "socket_bytes.hpp"

#include <gtest/gtest.h>

#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/read.hpp>
#include <boost/asio/write.hpp>
#include <string>

namespace ringcast::load {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

// The kernel's count on a real loopback connection: every byte the peer wrote, whether or not
// the reader has consumed it.
TEST(SocketBytes, CountsWhatTheSocketReceived) {
  asio::io_context io;
  tcp::acceptor acceptor(io, {asio::ip::address_v4::loopback(), 0});
  tcp::socket client(io), server(io);
  client.connect(acceptor.local_endpoint());
  acceptor.accept(server);
  const auto before = socket_bytes_received(client.native_handle());
  ASSERT_TRUE(before) << "the kernel does not report tcpi_bytes_received";
  EXPECT_EQ(*before, 0u);
  const std::string sent(3000, 'x');
  asio::write(server, asio::buffer(sent));
  std::string got(sent.size(), '\0');
  asio::read(client, asio::buffer(got));
  EXPECT_EQ(socket_bytes_received(client.native_handle()), 3000u);
  EXPECT_EQ(socket_bytes_received(server.native_handle()), 0u);  // it only wrote
  EXPECT_FALSE(socket_bytes_received(-1));
}

}  // namespace
}  // namespace ringcast::load
