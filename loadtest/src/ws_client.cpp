#include "ws_client.hpp"

#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/websocket.hpp>

#include "socket_bytes.hpp"

namespace ringcast::load {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace websocket = beast::websocket;
using error_code = boost::system::error_code;

struct ws_client::connection {
  explicit connection(asio::io_context& io) : ws(net_stream::socket_type(io)), ping_timer(io) {}
  websocket::stream<net_stream> ws;
  beast::flat_buffer buffer;
  asio::steady_timer ping_timer;
  bool abandoned = false;
  bool writing = false;
  // The socket's bytes received when the hello was read (nchan: at the handshake); from then on
  // what it receives is the server's egress for the messages read.
  std::optional<std::uint64_t> counted_from;
  std::uint64_t messages_read = 0;

  int fd() { return ws.next_layer().socket().native_handle(); }
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
      c->ws.next_layer(), id_.server, id_.source, connect_timeout,
      [this, c](std::string_view failure) {
        if (c->abandoned) return;
        if (!failure.empty()) return failed(std::string(failure));
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
        const bool nchan = ctx_.opts.kind == server_kind::nchan;
        const auto target = nchan ? "/sub/" + ctx_.opts.channel : path("/ws");
        c->ws.async_handshake(host, target, [this, c, nchan](error_code hec) {
          if (c->abandoned) return;
          if (hec) return failed("ws_handshake");
          if (nchan) {
            nchan_connected();
            c->start_counting();
          }
          read(c);
          // Nchan takes no client frames on a subscriber: its clients stay silent.
          if (!id_.idle && !nchan) schedule_ping(c);
        });
      });
}

void ws_client::read(std::shared_ptr<connection> c) {
  c->ws.async_read(c->buffer, [this, c](error_code ec, std::size_t) {
    if (c->abandoned) return;
    if (ec) return failed(ec == websocket::error::closed ? "ws_closed" : "ws_read");
    const auto data = c->buffer.cdata();
    const std::string_view text(static_cast<const char*>(data.data()), data.size());
    if (c->counted_from) ++c->messages_read;
    if (ctx_.opts.kind == server_kind::nchan) {
      raw_message(text);
      c->buffer.consume(c->buffer.size());
      return read(c);
    }
    // The hello ends the connect: it is what a browser waits for before it shows anything.
    const auto r = envelope(text);
    c->buffer.consume(c->buffer.size());
    established();
    if (!c->counted_from) c->start_counting();
    if (r.what != reaction::kind::keep) return react(r);
    read(c);
  });
}

void ws_client::schedule_ping(std::shared_ptr<connection> c) {
  c->ping_timer.expires_after(ctx_.opts.ping_interval);
  c->ping_timer.async_wait([this, c](error_code ec) {
    if (ec || c->abandoned) return;
    // A ping still being written means the socket is backed up; skip rather than queue.
    if (!c->writing) {
      static const std::string ping = R"({"type":"ping"})";
      c->writing = true;
      c->ws.text(true);
      c->ws.async_write(asio::buffer(ping), [this, c](error_code wec, std::size_t) {
        c->writing = false;
        if (c->abandoned) return;
        if (wec) failed("ws_write");
      });
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
  conn_->ws.next_layer().close();
  conn_.reset();
}

}  // namespace ringcast::load
