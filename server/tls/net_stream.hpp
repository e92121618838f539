// A TCP connection that may carry TLS, as one Asio stream type. One type for both keeps the
// connection classes (and Beast's websocket::stream over them) free of templates, and a
// connection can move to another event loop with its TLS state: OpenSSL reads and writes the
// socket itself (as nginx does), so that state lives in the SSL and the kernel, never in buffers
// tied to an io_context. Asio waits for readiness; every read and write tries TLS first.
// A server's TLS 1.3 connection leaves OpenSSL once its handshake is over: the SSL object is
// freed and ringcast's own record layer (record_stream.hpp) carries the records, holding the
// keys and nothing else while idle (about 14 KB less per connection). TLS 1.2 stays with OpenSSL.
#pragma once

#include <iterator>

#include <boost/asio/bind_allocator.hpp>
#include <boost/asio/buffer.hpp>
#include <boost/asio/compose.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/role.hpp>
#include <boost/beast/websocket/teardown.hpp>

#include <array>
#include <cstdint>
#include <memory>
#include <optional>

#include "tls/exact_size_allocator.hpp"
#include "tls/heap_trim.hpp"
#include "tls/record_stream.hpp"
#include "tls/stream_socket.hpp"
#include "tls/tls_context.hpp"
#include "tls/tls_engine.hpp"
#include "tls/tls_op.hpp"

namespace ringcast {

class net_stream {
 public:
  using socket_type = stream_socket;
  using executor_type = socket_type::executor_type;

  explicit net_stream(socket_type socket) : socket_(std::move(socket)) {}
  // `tls` is a session on this socket's descriptor (tls_context::new_session).
  net_stream(socket_type socket, tls_session tls);

  executor_type get_executor() noexcept { return socket_.get_executor(); }
  socket_type& socket() { return socket_; }
  bool secure() const { return static_cast<bool>(tls_); }
  // TLS carried by ringcast's record layer (the handshake is over and OpenSSL's SSL is freed).
  bool own_records() const { return tls_.records() != nullptr; }

  template <class MutableBuffers, class Token>
  auto async_read_some(const MutableBuffers& buffers, Token&& token);
  template <class ConstBuffers, class Token>
  auto async_write_some(const ConstBuffers& buffers, Token&& token);
  // TLS only. A server completes with tls_errc::plain_http when plaintext HTTP arrives instead
  // of a handshake (nothing has been consumed: the socket can still answer it in plain HTTP).
  template <class Token>
  auto async_handshake(Token&& token);
  // TLS server only: the client has sent at least one byte of its handshake.
  bool handshake_started() const { return first_byte_checked_; }

  // Reads and writes that never wait and never post, for connections that keep no operation
  // pending while idle: what the socket takes or gives now, else boost::asio::error::would_block,
  // after which async_wait_readable / async_wait_writable wait for the readiness that read or
  // write needs (with TLS a read may need the socket writable, and a write readable).
  // Read until would_block before waiting: OpenSSL can hold decrypted bytes the socket no longer
  // signals. Under TLS several buffers go out as one record (up to 16 KiB), and after a
  // would_block the next write_now must start with the same bytes (OpenSSL finishes the record
  // it began); more may follow them.
  std::size_t read_now(boost::asio::mutable_buffer buffer, boost::system::error_code& ec);
  template <class ConstBuffers>
  std::size_t write_now(const ConstBuffers& buffers, boost::system::error_code& ec);
  // The wait is the one operation an idle connection keeps pending: it takes a block of its own
  // size (tls/exact_size_allocator.hpp). Recycled by Asio's thread cache, it would take the block
  // its thread freed last (a request's read, a hand-off to the session's loop: up to ~1 KB) and
  // keep it as long as the connection idles.
  template <class Handler>
  void async_wait_readable(Handler&& handler) {
    socket_.async_wait(
        read_waits_for_,
        boost::asio::bind_allocator(exact_size_allocator<void>{}, std::forward<Handler>(handler)));
  }
  template <class Handler>
  void async_wait_writable(Handler&& handler) {
    socket_.async_wait(
        write_waits_for_,
        boost::asio::bind_allocator(exact_size_allocator<void>{}, std::forward<Handler>(handler)));
  }

  // TLS: tells the peer the stream ends, if the socket takes the alert now (never waits).
  void send_close_notify();
  // Ends our direction of the stream (close_notify first with TLS); reads go on.
  void shutdown_send();
  void close();  // send_close_notify(), then shut the socket down both ways and close it

  // The socket became readable while nothing was reading it (a held long-poll): did the peer
  // send data, hang up, or nothing after all (TLS housekeeping, or a stale readiness report)?
  enum class readable_state { data, closed, nothing };
  readable_state probe_readable();

  // For moving to another event loop: the socket leaves its io_context as a bare descriptor,
  // with what this process knows of it, so that adopt() need not ask the kernel again.
  struct detached {
    int fd = -1;
    boost::asio::ip::tcp protocol = boost::asio::ip::tcp::v4();
    tls_engine tls;
    // O_NONBLOCK is set (by this process): adopt() tells asio so instead of setting it again
    // (an ioctl). False for a descriptor handed over by another process: it is set anew.
    bool non_blocking = false;
  };
  // `peer` is the address accept() gave: a socket's family is its peer's (an IPv6 socket's IPv4
  // peers come as mapped IPv6 addresses), so no getsockname(); an unspecified one asks for it.
  detached detach(const boost::asio::ip::address& peer, boost::system::error_code& ec);
  // Closes the descriptor if it cannot be adopted.
  static std::optional<net_stream> adopt(boost::asio::io_context& ctx, detached d);
  // Tells asio that `socket`'s descriptor is non-blocking already (accept4() with SOCK_NONBLOCK,
  // or made so before a hand-off), which asio would otherwise learn only by an ioctl() of its own.
  static void known_non_blocking(socket_type& socket);

  friend void beast_close_socket(net_stream& s) { s.close(); }

 private:
  template <class, bool, class>
  friend class detail::tls_op;
  friend class detail::write_attempt;

  // A wait_type in one byte (every connection object holds two).
  class compact_wait {
   public:
    compact_wait(socket_type::wait_type w) : value_(static_cast<std::uint8_t>(w)) {}
    operator socket_type::wait_type() const { return static_cast<socket_type::wait_type>(value_); }

   private:
    std::uint8_t value_;
  };

  net_stream(socket_type socket, tls_engine tls);

  std::size_t finish_now(const detail::tls_step& step, boost::system::error_code& ec,
                         compact_wait& waits_for);
  std::size_t write_record_now(const boost::asio::const_buffer* parts, std::size_t count,
                               boost::system::error_code& ec);
  // One non-blocking read or write by whichever carries the records (OpenSSL or record_stream).
  detail::tls_step read_step(boost::asio::mutable_buffer buffer);
  detail::tls_step write_step(const boost::asio::const_buffer* parts, std::size_t count);
  // After a server handshake: TLS 1.3 moves to record_stream and the SSL is freed.
  void leave_openssl();

  socket_type socket_;
  tls_engine tls_;  // empty: plain TCP
  compact_wait read_waits_for_ = socket_type::wait_read;
  compact_wait write_waits_for_ = socket_type::wait_write;
  bool tls_failed_ = false;
  bool close_notified_ = false;
  bool first_byte_checked_ = false;
};

template <class MutableBuffers, class Token>
auto net_stream::async_read_some(const MutableBuffers& buffers, Token&& token) {
  using signature = void(boost::system::error_code, std::size_t);
  return boost::asio::async_initiate<Token, signature>(
      [this](auto handler, const MutableBuffers& b) {
        if (!secure()) {
          socket_.async_read_some(b, std::move(handler));
          return;
        }
        auto attempt = [buffer = detail::first_nonempty(b)](net_stream& s) {
          return s.read_step(buffer);
        };
        boost::asio::async_compose<decltype(handler), signature>(
            detail::tls_op<net_stream, true, decltype(attempt)>(*this, std::move(attempt)), handler,
            socket_);
      },
      token, buffers);
}

template <class ConstBuffers, class Token>
auto net_stream::async_write_some(const ConstBuffers& buffers, Token&& token) {
  using signature = void(boost::system::error_code, std::size_t);
  return boost::asio::async_initiate<Token, signature>(
      [this](auto handler, const ConstBuffers& b) {
        if (!secure()) {
          socket_.async_write_some(b, std::move(handler));
          return;
        }
        boost::asio::async_compose<decltype(handler), signature>(
            detail::tls_op<net_stream, true, detail::write_attempt>(*this,
                                                                    detail::write_attempt(b)),
            handler, socket_);
      },
      token, buffers);
}

template <class Token>
auto net_stream::async_handshake(Token&& token) {
  using signature = void(boost::system::error_code);
  auto attempt = [](net_stream& s) {
    auto step =
        detail::tls_handshake(s.tls_.ssl(), s.socket_.native_handle(), s.first_byte_checked_);
    if (step.then == detail::tls_step::next::done) {
      note_handshake_ended();
      if (!step.ec) s.leave_openssl();
    }
    return step;
  };
  return boost::asio::async_compose<Token, signature>(
      detail::tls_op<net_stream, false, decltype(attempt)>(*this, attempt), token, socket_);
}

template <class ConstBuffers>
std::size_t net_stream::write_now(const ConstBuffers& buffers, boost::system::error_code& ec) {
  if (!secure()) {
    if (!socket_.non_blocking()) socket_.non_blocking(true, ec);
    // One buffer (a message's frame, delivered as it comes) goes out with send(), not sendmsg():
    // asio picks send() for a single buffer, and the kernel then imports no iovec array.
    const auto first = boost::asio::buffer_sequence_begin(buffers);
    const auto last = boost::asio::buffer_sequence_end(buffers);
    const std::size_t n = first != last && std::next(first) == last
                              ? socket_.write_some(boost::asio::const_buffer(*first), ec)
                              : socket_.write_some(buffers, ec);
    if (ec == boost::asio::error::would_block || ec == boost::asio::error::try_again) {
      ec = boost::asio::error::would_block;
      write_waits_for_ = socket_type::wait_write;
    }
    return n;
  }
  // The first buffers, as many as one record takes (copied into one on the stack, not the heap).
  std::array<boost::asio::const_buffer, 16> parts;
  std::size_t count = 0, bytes = 0;
  for (auto it = boost::asio::buffer_sequence_begin(buffers);
       it != boost::asio::buffer_sequence_end(buffers) && count < parts.size() &&
       bytes < detail::max_tls_record;
       ++it) {
    const boost::asio::const_buffer b(*it);
    if (b.size() == 0) continue;
    parts[count++] = b;
    bytes += b.size();
  }
  return write_record_now(parts.data(), count, ec);
}

// Beast's WebSocket close ends with a teardown of the stream beneath it, found by name lookup.
void teardown(boost::beast::role_type role, net_stream& s, boost::system::error_code& ec);

template <class Handler>
void async_teardown(boost::beast::role_type role, net_stream& s, Handler&& handler) {
  s.send_close_notify();
  boost::beast::websocket::async_teardown(role, s.socket(), std::forward<Handler>(handler));
}

}  // namespace ringcast
