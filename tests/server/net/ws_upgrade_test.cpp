// The WebSocket upgrade: its 101 waits (TCP_CORK) for the hello, and the two reach the client in
// one segment (net/ws_connection.cpp).
#include <boost/asio/write.hpp>

#include <chrono>
#include <string>

#include <gtest/gtest.h>

#include "bare_websocket.hpp"
#include "tcp_segments.hpp"
#include "test_loop.hpp"

namespace ringcast {
namespace {

namespace asio = boost::asio;

TEST(WsUpgrade, TheSwitchingProtocolsAndTheHelloComeInOneSegment) {
  test::test_loop loop{config{}};
  auto c = loop.connect();
  const auto before = test::data_segments_in(c.native_handle());
  asio::write(c, asio::buffer(test::upgrade_request("/ws?user=u")));
  const auto got = test::read_until(c.native_handle(), R"("type":"hello")");
  EXPECT_TRUE(got.starts_with("HTTP/1.1 101 Switching Protocols\r\n")) << got;
  EXPECT_NE(got.find("Sec-WebSocket-Accept: " + std::string(test::sample_accept) + "\r\n"),
            std::string::npos)
      << got;
  ASSERT_NE(got.find(R"("type":"hello")"), std::string::npos) << got;
  EXPECT_EQ(test::data_segments_in(c.native_handle()) - before, 1u)
      << "the 101 and the hello in one write";
}

}  // namespace
}  // namespace ringcast
