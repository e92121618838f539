// ringcast's own 101 (net/ws_handshake.hpp) against Beast's websocket accept, which wrote it before
// and still answers every upgrade it refuses: the same requests switch, with the same bytes.
#include "net/ws_handshake.hpp"

#include <boost/beast/_experimental/test/stream.hpp>
#include <boost/beast/http/string_body.hpp>
#include <boost/beast/websocket/stream.hpp>

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace ringcast {
namespace {

namespace beast = boost::beast;
namespace http = beast::http;
namespace websocket = beast::websocket;

http_request upgrade_request() {
  http_request req{http::verb::get, "/ws?user=ann&sid=s1", 11};
  req.set(http::field::host, "127.0.0.1:8080");
  req.set(http::field::connection, "Upgrade");
  req.set(http::field::upgrade, "websocket");
  req.set(http::field::sec_websocket_key, "dGhlIHNhbXBsZSBub25jZQ==");
  req.set(http::field::sec_websocket_version, "13");
  return req;
}

struct beast_answer {
  bool switched = false;
  std::string bytes;  // what Beast wrote
};

// Beast's accept of `req`, decorated as ringcast decorated it (Server, and the deflate answer).
beast_answer beast_accept(const http_request& req, const std::optional<std::string>& extensions) {
  boost::asio::io_context io;
  beast::test::stream server(io), client(io);
  server.connect(client);
  websocket::stream<beast::test::stream&> ws(server);
  ws.set_option(websocket::stream_base::decorator([extensions](websocket::response_type& res) {
    res.set(http::field::server, "ringcast");
    if (extensions) res.set(http::field::sec_websocket_extensions, *extensions);
  }));
  beast::error_code ec;
  ws.accept(req, ec);
  return {!ec, std::string(client.str())};
}

TEST(WsHandshake, TheSwitchingProtocolsIsTheOneBeastWrote) {
  const auto req = upgrade_request();
  for (const std::optional<std::string>& extensions :
       {std::optional<std::string>{},
        std::optional<std::string>{
            "permessage-deflate; server_no_context_takeover; client_no_context_takeover"}}) {
    const auto beast = beast_accept(req, extensions);
    ASSERT_TRUE(beast.switched);
    EXPECT_EQ(switching_protocols(req, extensions), beast.bytes);
  }
  // RFC 6455's own example key and accept.
  EXPECT_NE(switching_protocols(req, std::nullopt)
                .find("\r\nSec-WebSocket-Accept: s3pPLMBiTxaQ9kYGzzhZRbK+xOo=\r\n"),
            std::string::npos);
}

TEST(WsHandshake, ItSwitchesWhereBeastSwitchesAndLeavesBeastEveryRefusal) {
  using change = std::function<void(http_request&)>;
  const std::vector<std::pair<const char*, change>> cases = {
      {"as it is", [](http_request&) {}},
      {"HTTP/1.0", [](http_request& r) { r.version(10); }},
      {"POST", [](http_request& r) { r.method(http::verb::post); }},
      {"no Host", [](http_request& r) { r.erase(http::field::host); }},
      {"no Connection", [](http_request& r) { r.erase(http::field::connection); }},
      {"Connection: keep-alive",
       [](http_request& r) { r.set(http::field::connection, "keep-alive"); }},
      {"Connection: keep-alive, Upgrade",
       [](http_request& r) { r.set(http::field::connection, "keep-alive, Upgrade"); }},
      {"no Upgrade", [](http_request& r) { r.erase(http::field::upgrade); }},
      {"Upgrade: h2c", [](http_request& r) { r.set(http::field::upgrade, "h2c"); }},
      {"Upgrade: WebSocket", [](http_request& r) { r.set(http::field::upgrade, "WebSocket"); }},
      {"no key", [](http_request& r) { r.erase(http::field::sec_websocket_key); }},
      {"an empty key", [](http_request& r) { r.set(http::field::sec_websocket_key, ""); }},
      {"a key of 25",
       [](http_request& r) { r.set(http::field::sec_websocket_key, std::string(25, 'A')); }},
      {"no version", [](http_request& r) { r.erase(http::field::sec_websocket_version); }},
      {"version 8", [](http_request& r) { r.set(http::field::sec_websocket_version, "8"); }},
  };
  for (const auto& [name, apply] : cases) {
    auto req = upgrade_request();
    apply(req);
    const auto beast = beast_accept(req, std::nullopt);
    EXPECT_EQ(beast_would_accept(req), beast.switched) << name;
    if (beast.switched) {
      EXPECT_EQ(switching_protocols(req, std::nullopt), beast.bytes) << name;
    }
  }
}

}  // namespace
}  // namespace ringcast
