#include "ws_connection.hpp"

#include <boost/asio/buffer.hpp>
#include <boost/beast/core/buffers_to_string.hpp>
#include <boost/beast/websocket/rfc6455.hpp>

#include <fmt/format.h>

#include "client_message.hpp"

namespace ringcast {

namespace beast = boost::beast;
namespace websocket = beast::websocket;

void ws_connection::start(connection_context& ctx, connection_parts parts, admission admitted,
                          bool known_elsewhere) {
  auto c = std::make_shared<ws_connection>(ctx, std::move(parts));
  c->ws_.async_accept(admitted.request,
                      [c, params = std::move(admitted.params), known_elsewhere](
                          beast::error_code ec) { c->on_accept(ec, params, known_elsewhere); });
}

ws_connection::ws_connection(connection_context& ctx, connection_parts parts)
    : stream_connection(ctx, std::move(parts.slot)), ws_(std::move(parts.stream)) {
  const connection_settings& cfg = ctx.settings();
  // The session's wheel node does heartbeats and idle detection; Beast's own timer only bounds
  // the upgrade handshake.
  ws_.set_option(websocket::stream_base::timeout{cfg.handshake_timeout,
                                                 websocket::stream_base::none(), false});
  ws_.set_option(websocket::stream_base::decorator(
      [](websocket::response_type& res) { res.set(beast::http::field::server, "ringcast"); }));
  ws_.read_message_max(max_client_frame);
  ws_.text(true);
  ws_.control_callback([this](websocket::frame_type kind, beast::string_view) {
    if (kind != websocket::frame_type::close) activity();  // a pong or ping is activity
  });
}

void ws_connection::on_accept(beast::error_code ec, const client_params& params,
                              bool known_elsewhere) {
  if (ec) return;  // the upgrade failed or timed out; nothing was attached
  attach(params, known_elsewhere);
  read();
}

// Reads in small steps: Beast's async_read would prepare its whole read-size hint (1.5 KiB) up
// front, and every idle connection would hold that while its read waits. A message longer than a
// step grows the buffer as it arrives (up to max_client_frame), and the buffer is given back after.
void ws_connection::read() {
  ws_.async_read_some(in_, read_step,
                      [self = shared_from_this()](beast::error_code ec, std::size_t) {
                        if (ec) {
                          // message_too_big: Beast has already failed the connection with 1009.
                          self->peer_gone();
                          return;
                        }
                        if (self->ws_.is_message_done()) self->on_message();
                        self->read();
                      });
}

void ws_connection::on_message() {
  activity();
  const std::string text = beast::buffers_to_string(in_.data());
  in_.consume(in_.size());
  if (in_.capacity() > read_step) in_.shrink_to_fit();
  session* s = current_session();
  if (!s) return;  // ending: the client's words no longer matter
  hub& h = context().sessions();
  auto parsed_message = parse_client_message(text);
  if (!parsed_message) {
    ++h.stats().client_errors;
    send_text(error_json("bad_request", parsed_message.error));
    return;
  }
  std::visit(
      [&](auto& m) {
        using T = std::decay_t<decltype(m)>;
        if constexpr (std::is_same_v<T, ping_message>) {
          send_text(pong_json());
        } else if constexpr (std::is_same_v<T, ack_message>) {
          h.acknowledge(*s, m.id);
        } else if constexpr (std::is_same_v<T, subscribe_message>) {
          if (!h.may_subscribe(*s, m.channels)) {
            ++h.stats().client_errors;
            send_text(error_json("unauthorized", "a channel is not among the token's channels"));
          } else if (!h.subscribe(*s, m.channels)) {
            ++h.stats().client_errors;
            send_text(error_json("bad_request", fmt::format("at most {} channels per session",
                                                            max_channels_per_client)));
          }
        } else {
          h.unsubscribe(*s, m.channels);
        }
      },
      *parsed_message.value);
}

void ws_connection::heartbeat() {
  if (ping_in_flight_ || closing_) return;
  ping_in_flight_ = true;
  ws_.async_ping({},
                 [self = shared_from_this()](beast::error_code) { self->ping_in_flight_ = false; });
}

void ws_connection::write(const outbound& item) {
  const std::string& text = item.msg ? item.msg->json : item.text;
  ws_.async_write(
      boost::asio::buffer(text),
      [self = shared_from_this()](beast::error_code ec, std::size_t) { self->write_done(ec); });
}

std::string ws_connection::frame(std::string_view, std::string_view json,
                                 std::optional<std::uint32_t>) {
  return std::string(json);
}

void ws_connection::close_after_notice(ending why) {
  if (closing_) return;
  closing_ = true;
  const auto code = why == ending::close_slow ? websocket::close_code::policy_error
                                              : websocket::close_code::normal;
  ws_.async_close(code, [self = shared_from_this()](beast::error_code) {});
}

void ws_connection::abort() {
  closing_ = true;
  ws_.next_layer().close();
}

}  // namespace ringcast
