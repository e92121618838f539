#include "net/sse_connection.hpp"

#include <boost/asio/buffer.hpp>

#include <fmt/format.h>

#include "core/message_deflate.hpp"
#include "protocol/gzip_stream.hpp"

namespace ringcast {

// A broadcast prefetches this much of each recipient (subscriber.hpp).
static_assert(sizeof(sse_connection) <= subscriber::delivery_bytes);

namespace asio = boost::asio;
namespace http = boost::beast::http;

namespace {

// The body is delimited by the end of the connection (no length, no chunking), which every
// EventSource understands; the first write carries these headers.
std::string response_head(const admission& admitted, std::chrono::seconds hsts, bool gzip) {
  return fmt::format(
      "HTTP/1.{} 200 OK\r\nServer: ringcast\r\nContent-Type: text/event-stream\r\n"
      "Cache-Control: no-store\r\nConnection: close\r\nX-Accel-Buffering: no\r\n{}{}{}\r\n",
      admitted.request.version() == 10 ? 0 : 1, cors_header_lines(admitted.cors),
      hsts.count() > 0 ? fmt::format("Strict-Transport-Security: max-age={}\r\n", hsts.count())
                       : std::string{},
      gzip ? "Content-Encoding: gzip\r\nVary: Accept-Encoding\r\n" : "");
}

constexpr std::string_view end_of_event = "\n\n";

}  // namespace

void sse_connection::start(connection_context& ctx, connection_parts parts,
                           const admission& admitted, bool known_elsewhere) {
  auto c = std::make_shared<sse_connection>(ctx, std::move(parts));
  const auto accept = admitted.request.find(http::field::accept_encoding);
  c->gzip_ = ctx.settings().compression && accept != admitted.request.end() &&
             gzip::accepted(accept->value());
  std::string head = response_head(admitted, ctx.settings().hsts_max_age, c->gzip_);
  if (c->gzip_) head += gzip::header();
  c->send_framed(std::move(head));
  c->attach(admitted.params, known_elsewhere);
  c->watch_for_close();
}

sse_connection::sse_connection(connection_context& ctx, connection_parts parts)
    : stream_connection(ctx, std::move(parts), connection_kind::sse) {}

void sse_connection::adopt(connection_context& ctx, connection_parts parts, const moved_stream& m,
                           std::vector<outbound> queue) {
  auto c = std::make_shared<sse_connection>(ctx, std::move(parts));
  c->gzip_ = m.deflate;
  c->resume_moved(m, std::move(queue));
  c->watch_for_close();
}

bool sse_connection::capture_transport(moved_stream& out) const {
  if (shut_down_) return false;
  out.kind = moved_stream::kind_t::sse;
  out.deflate = gzip_;  // the stream is one gzip member of pieces: it goes on as one
  return true;
}

void sse_connection::heartbeat() {
  static const std::string gzip_heartbeat = gzip::piece(": hb\n\n");
  send_framed(gzip_ ? gzip_heartbeat : ": hb\n\n");
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

void sse_connection::queued(const message& m, bool unnumbered) {
  if (!gzip_) return;
  loop_stats& stats = context().stats();
  const std::string& piece =
      unnumbered ? sse_gzip_unnumbered_piece(m, stats) : sse_gzip_piece(m, stats);
  ++stats.compressed_sent;
  const std::size_t plain = (unnumbered ? sse_unnumbered_prefix.size() : m.sse_prefix.size()) +
                            m.json.size() + end_of_event.size();
  if (piece.size() < plain) stats.compression_saved += plain - piece.size();
}

// A message without its `id:` line leaves the browser's Last-Event-ID at the highest id it has
// seen; its bytes are shared as the numbered event's are.
std::size_t sse_connection::message_buffers(const message& m, bool unnumbered,
                                            frame_buffers& out) const {
  if (gzip_) {  // built by queued()
    out[0] = asio::buffer(unnumbered ? m.sse_gzip_unnumbered : m.sse_gzip);
    return 1;
  }
  out[0] = unnumbered ? asio::buffer(sse_unnumbered_prefix.data(), sse_unnumbered_prefix.size())
                      : asio::buffer(m.sse_prefix);
  out[1] = asio::buffer(m.json);
  out[2] = asio::buffer(end_of_event);
  return 3;
}

// Every piece of a gzip stream is its own deflate run (gzip_stream.hpp); plain text otherwise.
std::string sse_connection::encoded(std::string text) const {
  return gzip_ ? gzip::piece(text) : text;
}

std::string sse_connection::frame(std::string_view event, std::string_view json,
                                  std::optional<std::uint32_t> retry_ms) const {
  return encoded(sse_event(event, json, retry_ms));
}

std::string sse_connection::resume_point_frame(std::uint64_t id) const {
  return encoded(fmt::format("id: {}\n\n", id));
}

void sse_connection::close_when_written() {
  if (shut_down_) return;
  shut_down_ = true;
  stream().shutdown_send();
}

}  // namespace ringcast
