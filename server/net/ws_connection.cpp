#include "net/ws_connection.hpp"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/socket.h>

#include <boost/asio/bind_allocator.hpp>
#include <boost/asio/post.hpp>
#include <boost/beast/websocket/stream.hpp>

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "core/message_deflate.hpp"
#include "core/repeated_warning.hpp"
#include "net/exact_size_allocator.hpp"
#include "protocol/client_message.hpp"
#include "protocol/ws_deflate.hpp"

namespace ringcast {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;

namespace {

// TCP_CORK from the upgrade to the hello: the 101 Beast writes waits in the socket, and the two go
// out in one segment when the hello is written. Written apart, the 101 woke the client, which on a
// busy machine could take the core before the hello it waits for was written (docs/performance.md,
// section 16). Left as it is if the kernel refuses: the two then go apart, as before.
void cork(net_stream& stream, bool on) {
  const int value = on ? 1 : 0;
  ::setsockopt(stream.socket().native_handle(), IPPROTO_TCP, TCP_CORK, &value, sizeof value);
}

}  // namespace

// Beast answers the upgrade (refusing a bad one with 400 or 426) within the handshake timeout;
// then the stream is taken back from it, with the bytes the client sent after its request.
void ws_connection::start(connection_context& ctx, connection_parts parts, admission admitted,
                          bool known_elsewhere) {
  auto upgrade = std::make_shared<websocket::stream<net_stream>>(std::move(parts.stream));
  cork(upgrade->next_layer(), true);
  upgrade->set_option(websocket::stream_base::timeout{ctx.settings().handshake_timeout,
                                                      websocket::stream_base::none(), false});
  auto& request = admitted.request;
  // permessage-deflate is ours, not Beast's: Beast sees no extension and answers none but this.
  std::optional<std::string> deflate;
  if (ctx.settings().compression) {
    std::string offers;
    const auto [first, last] = request.equal_range(beast::http::field::sec_websocket_extensions);
    for (auto field = first; field != last; ++field) {
      if (!offers.empty()) offers += ',';
      offers += field->value();
    }
    if (!offers.empty()) deflate = ws::negotiate_deflate(offers);
  }
  upgrade->set_option(websocket::stream_base::decorator([deflate](websocket::response_type& res) {
    res.set(beast::http::field::server, "ringcast");
    if (deflate) res.set(beast::http::field::sec_websocket_extensions, *deflate);
  }));
  auto accepted = [&ctx, upgrade, buffer = std::move(parts.buffer), slot = std::move(parts.slot),
                   address = std::move(parts.address), peer = parts.peer,
                   params = std::move(admitted.params), known_elsewhere,
                   deflate = deflate.has_value()](beast::error_code ec) mutable {
    if (ec) return;  // the upgrade failed or timed out; nothing was attached
    const std::string early(static_cast<const char*>(buffer.data().data()), buffer.data().size());
    auto c = std::make_shared<ws_connection>(
        ctx,
        connection_parts{
            std::move(upgrade->next_layer()), {}, std::move(slot), std::move(address), peer},
        deflate);
    c->begin(params, known_elsewhere, early);
  };
  // The upgrade's operations (~1 KB) are not left for the thread to recycle: exact_size_allocator.
  upgrade->async_accept(request,
                        asio::bind_allocator(exact_size_allocator<void>(), std::move(accepted)));
}

ws_connection::ws_connection(connection_context& ctx, connection_parts parts, bool deflate)
    : client_frames_connection(ctx, std::move(parts), connection_kind::ws) {
  deflate_ = deflate;
  if (!deflate_) return;
  compress_min_ = static_cast<std::uint32_t>(
      std::min<std::size_t>(ctx.settings().compress_min_bytes, UINT32_MAX));
}

void ws_connection::adopt(connection_context& ctx, connection_parts parts, const moved_stream& m,
                          std::vector<outbound> queue) {
  auto c = std::make_shared<ws_connection>(ctx, std::move(parts), m.deflate);
  c->compress_min_ = m.compress_min;
  c->resume_moved(m, std::move(queue));
  if (!m.unread.empty() && !c->consume(m.unread)) return;
  c->read();
}

bool ws_connection::capture_transport(moved_stream& out) const {
  if (reader_done_ || shut_down_ || mid_message()) return false;
  out.kind = moved_stream::kind_t::ws;
  out.deflate = deflate_;
  out.compress_min = compress_min_;
  return true;
}

void ws_connection::over_rate(double rate) {
  static repeated_warning closed;  // every loop's: logged at most once a second
  closed.warn(context().now(), "WebSocket client closed 1008: over --client-message-rate {}", rate);
  finish(ws::close_frame(ws::policy_error, "message rate"));
}

void ws_connection::begin(const client_params& params, bool known_elsewhere,
                          std::string_view early_bytes) {
  attach(params, known_elsewhere);
  cork(stream(), false);  // the 101 and the hello go now
  if (!early_bytes.empty() && !consume(early_bytes)) return;
  read();
}

void ws_connection::on_message(std::string_view text) {
  session* s = current_session();
  if (!s) return;  // ending: the client's words no longer matter
  hub& h = context().sessions();
  auto parsed_message = parse_client_message(text);
  if (!parsed_message) {
    ++context().stats().client_errors;
    send_framed(frame("error", error_json("bad_request", parsed_message.error), std::nullopt));
    return;
  }
  std::visit(
      [&](auto& m) {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, ping_message>) {
          send_framed(frame("pong", pong_json(), std::nullopt));
        } else if constexpr (std::is_same_v<T, ack_message>) {
          h.acknowledge(*s, m.id);
        } else if constexpr (std::is_same_v<T, subscribe_message>) {
          if (!h.may_subscribe(*s, m.channels)) {
            ++context().stats().client_errors;
            send_framed(frame(
                "error", error_json("unauthorized", "a channel is outside this session's grant"),
                std::nullopt));
          } else if (!h.subscribe(*s, m.channels)) {
            ++context().stats().client_errors;
            send_framed(frame(
                "error",
                error_json("bad_request",
                           fmt::format("at most {} channels per session", max_channels_per_client)),
                std::nullopt));
          }
        } else {
          h.unsubscribe(*s, m.channels);
        }
      },
      *parsed_message.value);
}

// Nothing was sent for a while: a quiet moment to give back what reading the client took.
void ws_connection::heartbeat() {
  release_idle_input();
  static const std::string ping = ws::ping_frame();
  send_framed(ping);
}

// Compressed when negotiated, long enough, and deflating paid: then the message's shared
// compressed frame, built by queued() on this loop or another, before any message_buffers().
bool ws_connection::sends_compressed(const message& m) const {
  return deflate_ && m.json.size() >= compress_min_ && !m.ws_deflated.empty();
}

void ws_connection::queued(const message& m, bool) {
  if (!deflate_ || m.json.size() < compress_min_) return;
  loop_stats& stats = context().stats();
  const std::string& frame = ws_deflated_frame(m, stats);
  if (frame.empty()) return;
  ++stats.compressed_sent;
  stats.compression_saved += m.ws_header.size + m.json.size() - frame.size();
}

std::size_t ws_connection::message_buffers(const message& m, bool, frame_buffers& out) const {
  if (sends_compressed(m)) {
    out[0] = asio::buffer(m.ws_deflated);
    return 1;
  }
  out[0] = asio::buffer(m.ws_header.view());
  out[1] = asio::buffer(m.json);
  return 2;
}

std::string ws_connection::frame(std::string_view, std::string_view json,
                                 std::optional<std::uint32_t>) const {
  std::string out(ws::text_frame_header(json.size()).view());
  out += json;
  return out;
}

std::string ws_connection::closing_frame(ending why) const {
  return ws::close_frame(why == ending::close_slow ? ws::policy_error : ws::normal);
}

}  // namespace ringcast
