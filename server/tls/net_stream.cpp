#include "tls/net_stream.hpp"

#include "tls/record_handover.hpp"

#include <openssl/err.h>
#include <openssl/ssl.h>

#include <algorithm>
#include <array>
#include <cerrno>
#include <cstring>

#include <sys/socket.h>
#include <unistd.h>

namespace ringcast {
namespace detail {
namespace {

using next = tls_step::next;

constexpr unsigned char tls_handshake_record = 0x16;

// What a failed SSL_* call (returning `result`) asks for next. `saved_errno` is errno right after
// the call, for SSL_ERROR_SYSCALL.
tls_step classify(ssl_st* ssl, int result, int saved_errno) {
  switch (SSL_get_error(ssl, result)) {
    case SSL_ERROR_WANT_READ:
      return {next::wait_read, 0, {}, false};
    case SSL_ERROR_WANT_WRITE:
      return {next::wait_write, 0, {}, false};
    case SSL_ERROR_ZERO_RETURN:  // close_notify, or (SSL_OP_IGNORE_UNEXPECTED_EOF) a bare EOF
      ERR_clear_error();
      return {next::done, 0, boost::asio::error::eof, false};
    case SSL_ERROR_SYSCALL:
      ERR_clear_error();
      return {next::done, 0,
              saved_errno ? boost::system::error_code(saved_errno, boost::system::system_category())
                          : boost::system::error_code(boost::asio::error::eof),
              true};
    default:
      return {next::done, 0, last_tls_error(), true};
  }
}

}  // namespace

tls_step tls_read(ssl_st* ssl, void* data, std::size_t size) {
  if (size == 0) return {};
  ERR_clear_error();
  errno = 0;
  std::size_t n = 0;
  const int result = SSL_read_ex(ssl, data, size, &n);
  if (result == 1) return {next::done, n, {}, false};
  return classify(ssl, result, errno);
}

tls_step tls_write(ssl_st* ssl, const void* data, std::size_t size) {
  if (size == 0) return {};
  ERR_clear_error();
  errno = 0;
  std::size_t n = 0;
  const int result = SSL_write_ex(ssl, data, size, &n);
  if (result == 1) return {next::done, n, {}, false};
  return classify(ssl, result, errno);
}

tls_step tls_handshake(ssl_st* ssl, int fd, bool& first_byte_checked) {
  if (SSL_is_server(ssl) && !first_byte_checked) {
    unsigned char first = 0;
    const ssize_t n = ::recv(fd, &first, 1, MSG_PEEK);
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return {next::wait_read, 0, {}, false};
    if (n < 0) {
      return {next::done, 0, boost::system::error_code(errno, boost::system::system_category()),
              true};
    }
    if (n == 0) return {next::done, 0, boost::asio::error::eof, true};
    first_byte_checked = true;
    if (first != tls_handshake_record) {
      const bool http_method = first >= 'A' && first <= 'Z';
      return {next::done, 0, http_method ? tls_errc::plain_http : tls_errc::not_tls, true};
    }
  }
  ERR_clear_error();
  errno = 0;
  const int result = SSL_do_handshake(ssl);
  if (result == 1) return {};
  return classify(ssl, result, errno);
}

tls_step write_attempt::operator()(net_stream& s) {
  const boost::asio::const_buffer b = gathered_.empty() ? single_ : boost::asio::buffer(gathered_);
  return s.write_step(&b, b.size() > 0 ? 1 : 0);
}

namespace {

// What record_stream reported, as the step tls_op and finish_now take.
tls_step records_step(std::size_t bytes, const boost::system::error_code& ec, bool failed,
                      next wait) {
  if (ec == boost::asio::error::would_block) return {wait, 0, {}, false};
  return {next::done, bytes, ec, failed};
}

}  // namespace

}  // namespace detail

net_stream::net_stream(socket_type socket, tls_session tls)
    : net_stream(std::move(socket), tls_engine(std::move(tls))) {}

net_stream::net_stream(socket_type socket, tls_engine tls)
    : socket_(std::move(socket)), tls_(std::move(tls)) {
  // OpenSSL must get EAGAIN from the socket, never block the loop.
  boost::system::error_code ignored;
  if (!socket_.non_blocking()) socket_.non_blocking(true, ignored);
}

void net_stream::leave_openssl() {
  ssl_st* ssl = tls_.ssl();
  if (!ssl || !SSL_is_server(ssl)) return;
  if (auto records = take_over(ssl)) tls_ = tls_engine(std::move(records));  // frees the SSL
}

detail::tls_step net_stream::read_step(boost::asio::mutable_buffer buffer) {
  record_stream* records = tls_.records();
  if (!records) return detail::tls_read(tls_.ssl(), buffer.data(), buffer.size());
  boost::system::error_code ec;
  const std::size_t n =
      records->read(socket_.native_handle(),
                    std::span(static_cast<unsigned char*>(buffer.data()), buffer.size()), ec);
  return detail::records_step(n, ec, records->failed(), detail::tls_step::next::wait_read);
}

detail::tls_step net_stream::write_step(const boost::asio::const_buffer* parts, std::size_t count) {
  if (record_stream* records = tls_.records()) {
    std::array<std::span<const unsigned char>, 16> spans;
    count = std::min(count, spans.size());
    for (std::size_t i = 0; i < count; ++i)
      spans[i] = {static_cast<const unsigned char*>(parts[i].data()), parts[i].size()};
    boost::system::error_code ec;
    const std::size_t n =
        records->write(socket_.native_handle(), std::span(spans.data(), count), ec);
    return detail::records_step(n, ec, records->failed(), detail::tls_step::next::wait_write);
  }
  if (count <= 1 || parts[0].size() >= detail::max_tls_record) {
    const boost::asio::const_buffer b = count == 0 ? boost::asio::const_buffer() : parts[0];
    return detail::tls_write(tls_.ssl(), b.data(), b.size());
  }
  // OpenSSL writes one buffer per record: several are copied into one.
  std::array<char, detail::max_tls_record> record;
  std::size_t size = 0;
  for (std::size_t i = 0; i < count && size < record.size(); ++i) {
    const std::size_t n = std::min(parts[i].size(), record.size() - size);
    std::memcpy(record.data() + size, parts[i].data(), n);
    size += n;
  }
  return detail::tls_write(tls_.ssl(), record.data(), size);
}

void net_stream::send_close_notify() {
  if (record_stream* records = tls_.records()) {
    if (close_notified_ || !socket_.is_open()) return;
    close_notified_ = true;
    records->send_close_notify(socket_.native_handle());
    return;
  }
  // The SSL knows its socket by number only: once the socket is closed, that number may already
  // belong to another connection.
  if (!tls_ || tls_failed_ || close_notified_ || !socket_.is_open() ||
      !SSL_is_init_finished(tls_.ssl()))
    return;
  close_notified_ = true;
  ERR_clear_error();
  SSL_shutdown(tls_.ssl());
  ERR_clear_error();
}

std::size_t net_stream::finish_now(const detail::tls_step& step, boost::system::error_code& ec,
                                   compact_wait& waits_for) {
  if (step.fatal) tls_failed_ = true;
  ec = step.ec;
  if (step.then == detail::tls_step::next::done) return step.bytes;
  ec = boost::asio::error::would_block;
  waits_for = step.then == detail::tls_step::next::wait_read ? socket_type::wait_read
                                                             : socket_type::wait_write;
  return 0;
}

std::size_t net_stream::read_now(boost::asio::mutable_buffer buffer,
                                 boost::system::error_code& ec) {
  if (!secure()) {
    if (!socket_.non_blocking()) socket_.non_blocking(true, ec);
    const std::size_t n = socket_.read_some(buffer, ec);
    if (ec == boost::asio::error::would_block || ec == boost::asio::error::try_again) {
      ec = boost::asio::error::would_block;
      read_waits_for_ = socket_type::wait_read;
    }
    return n;
  }
  return finish_now(read_step(buffer), ec, read_waits_for_);
}

std::size_t net_stream::write_record_now(const boost::asio::const_buffer* parts, std::size_t count,
                                         boost::system::error_code& ec) {
  return finish_now(write_step(parts, count), ec, write_waits_for_);
}

void net_stream::shutdown_send() {
  send_close_notify();
  boost::system::error_code ignored;
  socket_.shutdown(socket_type::shutdown_send, ignored);
}

void net_stream::close() {
  send_close_notify();
  boost::system::error_code ignored;
  socket_.shutdown(socket_type::shutdown_both, ignored);
  socket_.close(ignored);
}

net_stream::readable_state net_stream::probe_readable() {
  if (record_stream* records = tls_.records()) {
    switch (records->probe(socket_.native_handle())) {
      case record_stream::readiness::data:
        return readable_state::data;
      case record_stream::readiness::nothing:
        return readable_state::nothing;
      case record_stream::readiness::closed:
        return readable_state::closed;
    }
  }
  if (!tls_) {
    // A readiness report can be stale (edge-triggered epoll reports data that an earlier read
    // already took), so only a peek that returns 0 proves the peer hung up.
    char peeked = 0;
    const ssize_t n = ::recv(socket_.native_handle(), &peeked, 1, MSG_PEEK | MSG_DONTWAIT);
    if (n > 0) return readable_state::data;
    if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK || errno == EINTR))
      return readable_state::nothing;
    return readable_state::closed;
  }
  if (SSL_pending(tls_.ssl()) > 0) return readable_state::data;
  unsigned char peeked = 0;
  std::size_t n = 0;
  ERR_clear_error();
  errno = 0;
  const int result = SSL_peek_ex(tls_.ssl(), &peeked, 1, &n);
  if (result == 1) return readable_state::data;
  const auto step = detail::classify(tls_.ssl(), result, errno);
  if (step.fatal) tls_failed_ = true;
  return step.then == detail::tls_step::next::done ? readable_state::closed
                                                   : readable_state::nothing;
}

net_stream::detached net_stream::detach(const boost::asio::ip::address& peer,
                                        boost::system::error_code& ec) {
  detached d;
  if (peer.is_unspecified()) {
    d.protocol = socket_.local_endpoint(ec).protocol();
    if (ec) return d;
  } else {
    d.protocol = peer.is_v6() ? boost::asio::ip::tcp::v6() : boost::asio::ip::tcp::v4();
  }
  d.non_blocking = socket_.non_blocking();  // asio's own flag, no system call
  d.fd = socket_.release(ec);
  if (ec) return d;
  d.tls = std::move(tls_);
  return d;
}

namespace {

// asio learns that a descriptor is non-blocking only by making it so (ioctl FIONBIO) and keeps
// the answer in its socket's state, which assign() resets. A descriptor that was non-blocking in
// this process still is (O_NONBLOCK belongs to the open file, which moved with it): its state is
// set directly. The state is reached as a class derived from the socket may reach it.
struct socket_state : net_stream::socket_type {
  static void mark_non_blocking(net_stream::socket_type& socket) {
    (socket.*&socket_state::impl_).get_implementation().state_ |=
        boost::asio::detail::socket_ops::non_blocking;
  }
};

}  // namespace

void net_stream::known_non_blocking(socket_type& socket) {
  socket_state::mark_non_blocking(socket);
}

std::optional<net_stream> net_stream::adopt(boost::asio::io_context& ctx, detached d) {
  socket_type socket(ctx);
  boost::system::error_code ec;
  socket.assign(d.protocol, d.fd, ec);
  if (ec) {
    ::close(d.fd);
    return std::nullopt;
  }
  if (d.non_blocking) known_non_blocking(socket);
  if (!d.tls) return net_stream(std::move(socket));
  return net_stream(std::move(socket), std::move(d.tls));
}

void teardown(boost::beast::role_type role, net_stream& s, boost::system::error_code& ec) {
  s.send_close_notify();
  boost::beast::websocket::teardown(role, s.socket(), ec);
}

}  // namespace ringcast
