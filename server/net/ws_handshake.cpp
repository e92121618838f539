#include "net/ws_handshake.hpp"

#include <boost/asio/bind_allocator.hpp>
#include <boost/beast/http/rfc7230.hpp>
#include <boost/beast/websocket/detail/hybi13.hpp>
#include <boost/beast/websocket/stream.hpp>

#include <memory>

#include "tls/exact_size_allocator.hpp"

namespace ringcast {

namespace http = boost::beast::http;
namespace websocket = boost::beast::websocket;
namespace ws_detail = websocket::detail;

// Beast 1.81's stream::impl_type::build_response, the checks in its order.
bool beast_would_accept(const http_request& req) {
  if (req.version() != 11 || req.method() != http::verb::get) return false;
  if (req.find(http::field::host) == req.end()) return false;
  const auto connection = req.find(http::field::connection);
  if (connection == req.end() || !http::token_list{connection->value()}.exists("upgrade"))
    return false;
  const auto upgrade = req.find(http::field::upgrade);
  if (upgrade == req.end() || !http::token_list{upgrade->value()}.exists("websocket")) return false;
  const auto key = req.find(http::field::sec_websocket_key);
  if (key == req.end() || key->value().size() > ws_detail::sec_ws_key_type::static_capacity)
    return false;
  const auto version = req.find(http::field::sec_websocket_version);
  return version != req.end() && version->value() == "13";
}

std::string switching_protocols(const http_request& req,
                                const std::optional<std::string>& extensions) {
  ws_detail::sec_ws_accept_type accept;
  ws_detail::make_sec_ws_accept(accept, req[http::field::sec_websocket_key]);
  std::string out;
  out.reserve(160 + (extensions ? extensions->size() : 0));
  out += "HTTP/1.1 101 Switching Protocols\r\nUpgrade: websocket\r\nConnection: upgrade\r\n";
  out += "Sec-WebSocket-Accept: ";
  out.append(accept.data(), accept.size());
  out += "\r\nServer: ringcast\r\n";
  if (extensions) {
    out += "Sec-WebSocket-Extensions: ";
    out += *extensions;
    out += "\r\n";
  }
  out += "\r\n";
  return out;
}

void beast_refuses_upgrade(connection_context& ctx, net_stream stream, const http_request& req,
                           std::optional<std::string> extensions) {
  auto upgrade = std::make_shared<websocket::stream<net_stream>>(std::move(stream));
  upgrade->set_option(websocket::stream_base::timeout{ctx.settings().handshake_timeout,
                                                      websocket::stream_base::none(), false});
  upgrade->set_option(
      websocket::stream_base::decorator([extensions](websocket::response_type& res) {
        res.set(http::field::server, "ringcast");
        if (extensions) res.set(http::field::sec_websocket_extensions, *extensions);
      }));
  // The refusal is written, then the stream (and the connection) goes with the handler. Its
  // operations (~1 KB) are not left for the thread to recycle (exact_size_allocator.hpp).
  upgrade->async_accept(req, boost::asio::bind_allocator(exact_size_allocator<void>(),
                                                         [upgrade](boost::beast::error_code) {}));
}

}  // namespace ringcast
