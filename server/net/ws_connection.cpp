#include "net/ws_connection.hpp"

#include <boost/asio/post.hpp>

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "core/message_deflate.hpp"
#include "core/repeated_warning.hpp"
#include "protocol/client_message.hpp"
#include "protocol/ws_deflate.hpp"

namespace ringcast {

// A broadcast prefetches this much of each recipient (subscriber.hpp).
static_assert(sizeof(ws_connection) <= subscriber::delivery_bytes);

namespace asio = boost::asio;
namespace beast = boost::beast;

// The 101 goes with the hello, in one write (ws_handshake.hpp); the bytes the client sent after
// its request are its first frames.
void ws_connection::start(connection_context& ctx, connection_parts parts, admission admitted,
                          bool known_elsewhere) {
  auto& request = admitted.request;
  // permessage-deflate is ours, not Beast's: the first offer it can honour is answered.
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
  auto upgrade = accept_upgrade(ctx, std::move(parts), request, deflate);
  if (!upgrade) return;
  auto c = std::make_shared<ws_connection>(ctx, std::move(upgrade->parts), deflate.has_value());
  c->begin(admitted.params, known_elsewhere, upgrade->early_bytes, std::move(upgrade->switching));
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
                          std::string_view early_bytes, std::string switching) {
  attach(params, known_elsewhere, std::move(switching));
  if (!early_bytes.empty() && !consume(early_bytes)) return;
  read_after_upgrade();
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
  stats.compression_saved += m.ws_frame.size() - frame.size();
}

std::size_t ws_connection::message_buffers(const message& m, bool, frame_buffers& out) const {
  if (sends_compressed(m)) {
    out[0] = asio::buffer(m.ws_deflated);
    return 1;
  }
  out[0] = asio::buffer(m.ws_frame);
  return 1;
}

std::string ws_connection::frame(std::string_view, std::string_view json,
                                 std::optional<std::uint32_t>) const {
  return ws::text_frame(json);
}

std::string ws_connection::closing_frame(ending why) const {
  return ws::close_frame(why == ending::close_slow ? ws::policy_error : ws::normal);
}

}  // namespace ringcast
