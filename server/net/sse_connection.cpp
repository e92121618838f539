#include "sse_connection.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/asio/write.hpp>

#include <fmt/format.h>

namespace ringcast {

namespace asio = boost::asio;
namespace beast = boost::beast;

namespace {

// The body is delimited by the end of the connection (no length, no chunking), which every
// EventSource understands; the first write carries these headers.
std::string response_head(const http_request& req) {
  return fmt::format(
      "HTTP/1.{} 200 OK\r\nServer: ringcast\r\nContent-Type: text/event-stream\r\n"
      "Cache-Control: no-store\r\nConnection: close\r\nX-Accel-Buffering: no\r\n\r\n",
      req.version() == 10 ? 0 : 1);
}

constexpr std::string_view end_of_event = "\n\n";

}  // namespace

void sse_connection::start(connection_context& ctx, connection_parts parts,
                           const admission& admitted, bool known_elsewhere) {
  auto c = std::make_shared<sse_connection>(ctx, std::move(parts));
  c->send_text(response_head(admitted.request));
  c->attach(admitted.params, known_elsewhere);
  c->watch_for_close();
}

sse_connection::sse_connection(connection_context& ctx, connection_parts parts)
    : stream_connection(ctx, std::move(parts.slot)), stream_(std::move(parts.stream)) {}

void sse_connection::watch_for_close() {
  stream_.async_read_some(asio::buffer(discard_),
                          [self = shared_from_this()](beast::error_code ec, std::size_t) {
                            if (ec) {
                              self->peer_gone();
                              self->abort();
                              return;
                            }
                            self->watch_for_close();
                          });
}

void sse_connection::write(const outbound& item) {
  auto done = [self = shared_from_this()](beast::error_code ec, std::size_t) {
    self->write_done(ec);
  };
  if (item.msg) {
    const std::array<asio::const_buffer, 3> frame{asio::buffer(item.msg->sse_prefix),
                                                  asio::buffer(item.msg->json),
                                                  asio::buffer(end_of_event)};
    asio::async_write(stream_, frame, std::move(done));
  } else {
    asio::async_write(stream_, asio::buffer(item.text), std::move(done));
  }
}

std::string sse_connection::frame(std::string_view event, std::string_view json,
                                  std::optional<std::uint32_t> retry_ms) {
  return sse_event(event, json, retry_ms);
}

void sse_connection::close_after_notice(ending) {
  stream_.send_close_notify();
  beast::error_code ignored;
  stream_.socket().shutdown(asio::ip::tcp::socket::shutdown_send, ignored);
}

void sse_connection::abort() {
  stream_.close();
}

}  // namespace ringcast
