#include "net/ws_connection.hpp"

#include <boost/asio/post.hpp>
#include <boost/beast/websocket/stream.hpp>

#include <algorithm>
#include <optional>

#include <fmt/format.h>

#include "core/message_deflate.hpp"
#include "core/repeated_warning.hpp"
#include "protocol/client_message.hpp"
#include "protocol/ws_deflate.hpp"

namespace ringcast {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;

namespace {

// Reads per wake-up before yielding to the loop's other connections.
constexpr int reads_per_turn = 16;

}  // namespace

// Beast answers the upgrade (refusing a bad one with 400 or 426) within the handshake timeout;
// then the stream is taken back from it, with the bytes the client sent after its request.
void ws_connection::start(connection_context& ctx, connection_parts parts, admission admitted,
                          bool known_elsewhere) {
  auto upgrade = std::make_shared<websocket::stream<net_stream>>(std::move(parts.stream));
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
  upgrade->async_accept(request, [&ctx, upgrade, buffer = std::move(parts.buffer),
                                  slot = std::move(parts.slot), address = std::move(parts.address),
                                  peer = parts.peer, params = std::move(admitted.params),
                                  known_elsewhere,
                                  deflate = deflate.has_value()](beast::error_code ec) mutable {
    if (ec) return;  // the upgrade failed or timed out; nothing was attached
    const std::string early(static_cast<const char*>(buffer.data().data()), buffer.data().size());
    auto c = std::make_shared<ws_connection>(
        ctx,
        connection_parts{
            std::move(upgrade->next_layer()), {}, std::move(slot), std::move(address), peer},
        deflate);
    c->begin(params, known_elsewhere, early);
  });
}

ws_connection::ws_connection(connection_context& ctx, connection_parts parts, bool deflate)
    : stream_connection(ctx, std::move(parts), connection_kind::ws), deflate_(deflate) {
  if (!deflate_) return;
  compress_min_ = static_cast<std::uint32_t>(
      std::min<std::size_t>(ctx.settings().compress_min_bytes, UINT32_MAX));
}

ws_connection::client_input& ws_connection::input() {
  if (!input_) {
    connection_context& ctx = context();
    input_.reset(new client_input{
        .reader = {max_client_message, max_client_frames},
        .rate = token_bucket(ctx.now(), 2.0 * ctx.settings().client_message_rate)});
    if (deflate_) input_->reader.accept_compressed();
  }
  return *input_;
}

void ws_connection::release_idle_input() {
  if (!input_ || !input_->reader.between_messages()) return;
  connection_context& ctx = context();
  const double rate = ctx.settings().client_message_rate;
  if (rate == 0 || input_->rate.full(ctx.now(), {rate, 2 * rate})) input_.reset();
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
  if (reader_done_ || shut_down_ || (input_ && !input_->reader.between_messages())) return false;
  out.kind = moved_stream::kind_t::ws;
  out.deflate = deflate_;
  out.compress_min = compress_min_;
  return true;
}

// Every frame of the client costs a token (--client-message-rate a second, bursts of twice
// that): a client beyond it is closed with 1008, and the rest of what it sent is dropped.
bool ws_connection::within_rate() {
  static repeated_warning closed;  // every loop's: logged at most once a second
  connection_context& ctx = context();
  const double rate = ctx.settings().client_message_rate;
  if (rate == 0 || input().rate.take(ctx.now(), {rate, 2 * rate})) return true;
  ++ctx.stats().message_rate;
  closed.warn(ctx.now(), "WebSocket client closed 1008: over --client-message-rate {}", rate);
  reader_done_ = true;
  finish(ws::close_frame(ws::policy_error, "message rate"));
  return false;
}

void ws_connection::begin(const client_params& params, bool known_elsewhere,
                          std::string_view early_bytes) {
  attach(params, known_elsewhere);
  if (!early_bytes.empty() && !consume(early_bytes)) return;
  read();
}

void ws_connection::read() {
  std::array<char, 512> chunk;
  for (int round = 0; round < reads_per_turn; ++round) {
    boost::system::error_code ec;
    const std::size_t n = stream().read_now(asio::buffer(chunk), ec);
    if (ec == asio::error::would_block) return wait_readable();
    if (ec) return peer_gone();  // the client went away (or, after our close, finished it)
    if (!consume({chunk.data(), n})) return;
  }
  asio::post(stream().get_executor(), [self = self()] { self->read(); });
}

void ws_connection::wait_readable() {
  stream().async_wait_readable([self = self()](boost::system::error_code ec) {
    if (ec == asio::error::operation_aborted) return;  // closed meanwhile
    if (ec) return self->peer_gone();
    self->read();
  });
}

bool ws_connection::consume(std::string_view bytes) {
  while (!reader_done_) {
    ws::event e = input().reader.next(bytes);
    switch (e.type) {
      case ws::event_type::need_more:
        release_idle_input();
        return true;
      case ws::event_type::fragment:
        // Part of a message: costs a token like any frame, so that a stream of empty
        // continuations (which never make a message) is bounded too.
        if (!within_rate()) break;
        activity();
        break;
      case ws::event_type::text:
      case ws::event_type::binary:
        if (!within_rate()) break;
        activity();
        on_message(e.message);
        break;
      case ws::event_type::ping:
        if (!within_rate()) break;
        activity();
        send_framed(ws::pong_frame(e.payload));
        break;
      case ws::event_type::pong:
        if (!within_rate()) break;
        activity();
        break;
      case ws::event_type::close:
        // The client's close, or its answer to ours: echo its code (RFC 6455 section 5.5.1), then
        // close once it is written.
        reader_done_ = true;
        finish(closing() ? std::string()
                         : ws::close_frame(e.code == ws::no_status ? ws::normal : e.code));
        break;
      case ws::event_type::failed:
        reader_done_ = true;
        finish(ws::close_frame(ws::close_code_for(e.why)));
        break;
    }
  }
  input_.reset();
  return true;  // after the close, bytes are read and dropped until the client hangs up
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

// Our close frame is out: half-close, and keep reading until the client closes too (the ending
// grace timer bounds the wait).
void ws_connection::close_when_written() {
  if (shut_down_) return;
  shut_down_ = true;
  stream().shutdown_send();
}

}  // namespace ringcast
