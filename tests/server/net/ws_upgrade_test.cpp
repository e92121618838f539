// The WebSocket upgrade: its 101 waits (TCP_CORK) for the hello, and the two reach the client in
// one segment (net/ws_connection.cpp).
#include <poll.h>

#include <boost/asio/write.hpp>

#include <chrono>
#include <string>

#include <gtest/gtest.h>

#include "tcp_segments.hpp"
#include "test_loop.hpp"

namespace ringcast {
namespace {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

// RFC 6455's example key and the accept it yields (section 1.3).
constexpr std::string_view sample_key = "dGhlIHNhbXBsZSBub25jZQ==";
constexpr std::string_view sample_accept = "s3pPLMBiTxaQ9kYGzzhZRbK+xOo=";

std::string upgrade(std::string_view user, std::string_view more_lines) {
  return "GET /ws?user=" + std::string(user) +
         " HTTP/1.1\r\nHost: test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n" +
         std::string(more_lines) + "\r\n";
}

bool readable_within_5s(tcp::socket& s) {
  pollfd p{s.native_handle(), POLLIN, 0};
  return ::poll(&p, 1, 5000) == 1;
}

std::string read_until(tcp::socket& s, std::string_view text) {
  std::string got;
  char chunk[1024];
  while (got.find(text) == std::string::npos && readable_within_5s(s)) {
    boost::system::error_code ec;
    const std::size_t n = s.read_some(asio::buffer(chunk), ec);
    if (ec) break;
    got.append(chunk, n);
  }
  return got;
}

TEST(WsUpgrade, TheSwitchingProtocolsAndTheHelloComeInOneSegment) {
  test::test_loop loop{config{}};
  auto c = loop.connect();
  const auto before = test::data_segments_in(c.native_handle());
  asio::write(c, asio::buffer(upgrade("u", "Sec-WebSocket-Key: " + std::string(sample_key) +
                                               "\r\nSec-WebSocket-Version: 13\r\n")));
  const auto got = read_until(c, R"("type":"hello")");
  EXPECT_TRUE(got.starts_with("HTTP/1.1 101 Switching Protocols\r\n")) << got;
  EXPECT_NE(got.find("Sec-WebSocket-Accept: " + std::string(sample_accept) + "\r\n"),
            std::string::npos)
      << got;
  ASSERT_NE(got.find(R"("type":"hello")"), std::string::npos) << got;
  EXPECT_EQ(test::data_segments_in(c.native_handle()) - before, 1u)
      << "the 101 and the hello in one write";
}

}  // namespace
}  // namespace ringcast
