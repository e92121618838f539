#include "stamped_stream.hpp"

#include <gtest/gtest.h>

#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/write.hpp>
#include <chrono>
#include <string>
#include <thread>

#include "client_state.hpp"

namespace ringcast::load {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

struct loopback_pair {
  asio::io_context io;
  tcp::acceptor acceptor{io, {asio::ip::address_v4::loopback(), 0}};
  stamped_stream client{net_stream::socket_type(io)};
  tcp::socket server{io};
  loopback_pair() {
    client.next_layer().socket().connect(acceptor.local_endpoint());
    acceptor.accept(server);
  }
  // One async_read_some run to completion: the bytes read.
  std::string read_some() {
    std::string got(64, '\0');
    std::size_t n = 0;
    boost::system::error_code result;
    client.async_read_some(asio::buffer(got), [&](boost::system::error_code ec, std::size_t k) {
      result = ec;
      n = k;
    });
    io.restart();
    io.run();
    EXPECT_FALSE(result) << result.message();
    got.resize(n);
    return got;
  }
};

// Bytes that waited 100 ms in the socket before the read are stamped with when they came, not
// with when they were read (a client at idle priority reads late).
TEST(StampedStream, AReadCarriesTheTimeTheBytesReachedTheSocket) {
  const kernel_stamping on;  // Linux turns stamping on a moment after the first socket asks
  loopback_pair p;
  ASSERT_TRUE(p.client.stamp_arrivals());
  const std::int64_t before_write = realtime_us();
  asio::write(p.server, asio::buffer(std::string("hello")));
  std::this_thread::sleep_for(std::chrono::milliseconds(100));
  const std::int64_t before_read = realtime_us();
  EXPECT_EQ(p.read_some(), "hello");
  const std::int64_t stamped = p.client.last_arrival_us();
  EXPECT_GE(stamped, before_write);
  EXPECT_LT(stamped, before_read - 50'000) << "stamped as read, not as received";
}

TEST(StampedStream, UnstampedItReadsAsTheStreamBeneathAndStampsNothing) {
  loopback_pair p;
  asio::write(p.server, asio::buffer(std::string("abc")));
  EXPECT_EQ(p.read_some(), "abc");
  EXPECT_EQ(p.client.last_arrival_us(), 0);
}

TEST(StampedStream, ThePeersCloseIsEndOfFile) {
  loopback_pair p;
  ASSERT_TRUE(p.client.stamp_arrivals());
  p.server.close();
  std::string got(8, '\0');
  boost::system::error_code result;
  p.client.async_read_some(asio::buffer(got),
                           [&](boost::system::error_code ec, std::size_t) { result = ec; });
  p.io.run();
  EXPECT_EQ(result, asio::error::eof);
}

}  // namespace
}  // namespace ringcast::load
