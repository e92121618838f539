#include "net/ws_upgrade.hpp"

#include <boost/beast/http/field.hpp>
#include <boost/beast/websocket/detail/hybi13.hpp>

#include <fmt/format.h>

namespace ringcast {

namespace http = boost::beast::http;
namespace ws_detail = boost::beast::websocket::detail;

std::optional<http_response> ws_upgrade_refusal(const http_request& req) {
  const auto bad = [&](std::string_view why) {
    return error_response(http_status::bad_request, "bad_request", why, req);
  };
  if (req.version() != 11) return bad("a WebSocket upgrade is an HTTP/1.1 request");
  if (req.find(http::field::host) == req.end()) return bad("the upgrade has no Host");
  const auto key = req.find(http::field::sec_websocket_key);
  // Beast's limit (the key is the base64 of 16 bytes: 24 characters).
  if (key == req.end() || key->value().empty() ||
      key->value().size() > ws_detail::sec_ws_key_type::static_capacity) {
    return bad("Sec-WebSocket-Key: missing or invalid");
  }
  const auto version = req.find(http::field::sec_websocket_version);
  if (version == req.end()) return bad("Sec-WebSocket-Version: missing");
  if (version->value() != "13") {
    auto res = error_response(http_status::upgrade_required, "bad_request",
                              "Sec-WebSocket-Version: 13 is the one this server speaks", req);
    res.set(http::field::sec_websocket_version, "13");
    return res;
  }
  return std::nullopt;
}

std::string ws_upgrade_response(const http_request& req,
                                const std::optional<std::string>& extensions) {
  ws_detail::sec_ws_accept_type accept;
  ws_detail::make_sec_ws_accept(accept, req[http::field::sec_websocket_key]);
  return fmt::format(
      "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: upgrade\r\n"
      "Sec-WebSocket-Accept: {}\r\nServer: ringcast\r\n{}\r\n",
      std::string_view(accept.data(), accept.size()),
      extensions ? fmt::format("Sec-WebSocket-Extensions: {}\r\n", *extensions) : std::string{});
}

}  // namespace ringcast
