#include "ws_client.hpp"

#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>
#include <boost/json.hpp>
#include <deque>

#include "socket_bytes.hpp"
#include "stamped_stream.hpp"

namespace ringcast::load {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using error_code = boost::system::error_code;

struct ws_client::connection {
  explicit connection(asio::io_context& io) : ws(net_stream::socket_type(io)), ping_timer(io) {}
  websocket::stream<stamped_stream> ws;
  beast::flat_buffer buffer;
  asio::steady_timer ping_timer;
  bool abandoned = false;
  bool writing = false;
  std::deque<std::string> unwritten;  // frames waiting for the one in flight (pusher)
  // The socket's bytes received when the hello was read (nchan: at the handshake); from then on
  // what it receives is the server's egress for the messages read.
  std::optional<std::uint64_t> counted_from;
  std::uint64_t messages_read = 0;

  net_stream& stream() { return ws.next_layer().next_layer(); }
  int fd() { return stream().socket().native_handle(); }
  void start_counting() { counted_from = socket_bytes_received(fd()); }
  // Books what was received since start_counting() into `result`.
  void count_into(client_result& result) {
    if (!counted_from) return;
    if (const auto now = socket_bytes_received(fd())) {
      result.ws_socket_bytes += *now - *counted_from;
      result.ws_socket_messages += messages_read;
    }
  }
};

void ws_client::open() {
  auto c = std::make_shared<connection>(ctx_.io);
  conn_ = c;
  connection_started();
  ctx_.net.connect(
      c->stream(), id_.server, id_.source, connect_timeout, [this, c](std::string_view failure) {
        if (c->abandoned) return;
        if (!failure.empty()) return failed(std::string(failure));
        if (ctx_.opts.kernel_arrival && !c->ws.next_layer().stamp_arrivals())
          return failed("arrival_stamp");
        // The websocket stream keeps its own timers from here on (handshake, then the server's
        // pings).
        auto timeouts = websocket::stream_base::timeout::suggested(beast::role_type::client);
        timeouts.keep_alive_pings = false;  // the server pings; the active clients send JSON pings
        c->ws.set_option(timeouts);
        c->ws.read_message_max(1 << 20);
        if (ctx_.opts.ws_deflate) {
          // Every message compressed on its own, as ringcast always negotiates it.
          websocket::permessage_deflate pmd;
          pmd.client_enable = true;
          pmd.server_no_context_takeover = true;
          pmd.client_no_context_takeover = true;
          c->ws.set_option(pmd);
        }
        const auto host =
            id_.server.address().to_string() + ":" + std::to_string(id_.server.port());
        const auto kind = ctx_.opts.kind;
        const auto target =
            kind == server_kind::nchan ? "/sub/" + ctx_.opts.channel
            : kind == server_kind::pusher
                ? "/app/" + ctx_.opts.pusher_key + "?protocol=7&client=ringcast-load&version=1"
                : path("/ws");
        c->ws.async_handshake(host, target, [this, c, kind](error_code hec) {
          if (c->abandoned) return;
          if (hec) return failed("ws_handshake");
          upgraded();
          if (kind == server_kind::nchan) {
            nchan_connected();
            c->start_counting();
          }
          read(c);
          // Nchan takes no client frames on a subscriber: its clients stay silent.
          if (!id_.idle && kind != server_kind::nchan) schedule_ping(c);
        });
      });
}

std::int64_t ws_client::arrival(const connection& c) {
  if (!ctx_.opts.kernel_arrival) return realtime_us();
  if (const std::int64_t stamped = c.ws.next_layer().last_arrival_us()) return stamped;
  ctx_.count_error("arrival_unstamped");  // and booked at the time it was read
  return realtime_us();
}

void ws_client::read(std::shared_ptr<connection> c) {
  c->ws.async_read(c->buffer, [this, c](error_code ec, std::size_t) {
    if (c->abandoned) return;
    if (ec) return failed(ec == websocket::error::closed ? "ws_closed" : "ws_read");
    const auto data = c->buffer.cdata();
    const std::string_view text(static_cast<const char*>(data.data()), data.size());
    if (c->counted_from) ++c->messages_read;
    if (ctx_.opts.kind == server_kind::nchan) {
      raw_message(text, arrival(*c));
      c->buffer.consume(c->buffer.size());
      return read(c);
    }
    if (ctx_.opts.kind == server_kind::pusher) {
      const bool go_on = pusher_frame(c, text);
      c->buffer.consume(c->buffer.size());
      if (go_on) read(c);
      return;
    }
    // The hello ends the connect: it is what a browser waits for before it shows anything.
    const auto r = envelope(text, arrival(*c));
    c->buffer.consume(c->buffer.size());
    established();
    if (!c->counted_from) c->start_counting();
    if (r.what != reaction::kind::keep) return react(r);
    read(c);
  });
}

// Pusher's frames (docs/pusher.md): connection_established -> subscribe to --channel;
// subscription_succeeded -> counted as connected; the server's pusher:ping is answered; an event
// on the channel carries the published body as its data string. False when the connection ends.
bool ws_client::pusher_frame(const std::shared_ptr<connection>& c, std::string_view text) {
  boost::system::error_code ec;
  const auto value = boost::json::parse(text, ec);
  const auto* frame = !ec ? value.if_object() : nullptr;
  const auto* event = frame ? frame->if_contains("event") : nullptr;
  if (!event || !event->is_string()) {
    failed("pusher_bad_frame");
    return false;
  }
  const std::string_view name = event->get_string();
  if (name == "pusher:connection_established") {
    send(c, boost::json::serialize(boost::json::object{
                {"event", "pusher:subscribe"},
                {"data", boost::json::object{{"channel", ctx_.opts.channel}}}}));
  } else if (name == "pusher_internal:subscription_succeeded") {
    nchan_connected();
    c->start_counting();
  } else if (name == "pusher:ping") {
    send(c, R"({"event":"pusher:pong","data":{}})");
  } else if (name == "pusher:error" || name == "pusher:subscription_error") {
    failed(std::string(name.substr(name.find(':') + 1)));
    return false;
  } else if (const auto* data = frame->if_contains("data"); data && data->is_string()) {
    raw_message(data->get_string(), arrival(*c));
  }
  return true;
}

// Writes one text frame, after those already waiting: Beast takes one write at a time.
void ws_client::send(const std::shared_ptr<connection>& c, std::string text) {
  c->unwritten.push_back(std::move(text));
  if (!c->writing) write_next(c);
}

void ws_client::write_next(const std::shared_ptr<connection>& c) {
  if (c->unwritten.empty()) return;
  c->writing = true;
  c->ws.text(true);
  c->ws.async_write(asio::buffer(c->unwritten.front()), [this, c](error_code wec, std::size_t) {
    c->writing = false;
    if (c->abandoned) return;
    if (wec) return failed("ws_write");
    c->unwritten.pop_front();
    write_next(c);
  });
}

void ws_client::schedule_ping(std::shared_ptr<connection> c) {
  c->ping_timer.expires_after(ctx_.opts.ping_interval);
  c->ping_timer.async_wait([this, c](error_code ec) {
    if (ec || c->abandoned) return;
    // A ping still waiting to be written means the socket is backed up; skip rather than queue.
    if (c->unwritten.empty()) {
      send(c, ctx_.opts.kind == server_kind::pusher ? R"({"event":"pusher:ping","data":{}})"
                                                    : R"({"type":"ping"})");
    }
    schedule_ping(c);
  });
}

void ws_client::add_wire(client_result& into) const {
  if (conn_ && !conn_->abandoned) conn_->count_into(into);
}

void ws_client::drop() {
  if (!conn_) return;
  conn_->abandoned = true;
  conn_->count_into(ctx_.result);
  conn_->counted_from.reset();
  conn_->ping_timer.cancel();
  conn_->stream().close();
  conn_.reset();
}

}  // namespace ringcast::load
