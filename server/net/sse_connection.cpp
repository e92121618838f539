#include "sse_connection.hpp"

#include <boost/asio/buffer.hpp>

#include <fmt/format.h>

namespace ringcast {

namespace asio = boost::asio;

namespace {

// The body is delimited by the end of the connection (no length, no chunking), which every
// EventSource understands; the first write carries these headers.
std::string response_head(const http_request& req, std::chrono::seconds hsts) {
  return fmt::format(
      "HTTP/1.{} 200 OK\r\nServer: ringcast\r\nContent-Type: text/event-stream\r\n"
      "Cache-Control: no-store\r\nConnection: close\r\nX-Accel-Buffering: no\r\n{}\r\n",
      req.version() == 10 ? 0 : 1,
      hsts.count() > 0 ? fmt::format("Strict-Transport-Security: max-age={}\r\n", hsts.count())
                       : std::string{});
}

constexpr std::string_view end_of_event = "\n\n";

}  // namespace

void sse_connection::start(connection_context& ctx, connection_parts parts,
                           const admission& admitted, bool known_elsewhere) {
  auto c = std::make_shared<sse_connection>(ctx, std::move(parts));
  c->send_framed(response_head(admitted.request, ctx.settings().hsts));
  c->attach(admitted.params, known_elsewhere);
  c->watch_for_close();
}

sse_connection::sse_connection(connection_context& ctx, connection_parts parts)
    : stream_connection(ctx, std::move(parts)) {}

void sse_connection::heartbeat() {
  send_framed(": hb\n\n");
}

void sse_connection::watch_for_close() {
  std::array<char, 512> discard;
  boost::system::error_code ec;
  do {
    stream().read_now(asio::buffer(discard), ec);
  } while (!ec);
  if (ec != asio::error::would_block) return peer_gone();
  stream().async_wait_readable([self = self()](boost::system::error_code wait_ec) {
    if (wait_ec == asio::error::operation_aborted) return;  // closed meanwhile
    if (wait_ec) return self->peer_gone();
    self->watch_for_close();
  });
}

std::size_t sse_connection::message_buffers(const message& m, frame_buffers& out) const {
  out[0] = asio::buffer(m.sse_prefix);
  out[1] = asio::buffer(m.json);
  out[2] = asio::buffer(end_of_event);
  return 3;
}

std::string sse_connection::frame(std::string_view event, std::string_view json,
                                  std::optional<std::uint32_t> retry_ms) const {
  return sse_event(event, json, retry_ms);
}

// No `id:` line: the browser's Last-Event-ID stays at the highest id it has seen.
std::string sse_connection::unnumbered_frame(const message& m) const {
  std::string event = "event: message\ndata: ";
  event.append(m.json).append(end_of_event);
  return event;
}

std::string sse_connection::resume_point_frame(std::uint64_t id) const {
  return fmt::format("id: {}\n\n", id);
}

void sse_connection::close_when_written() {
  if (shut_down_) return;
  shut_down_ = true;
  stream().shutdown_send();
}

}  // namespace ringcast
