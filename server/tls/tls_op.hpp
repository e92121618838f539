// The parts of net_stream's asynchronous TLS operations: one non-blocking step of OpenSSL (read,
// write, handshake) and what it asks for next, the operation that retries a step whenever the
// socket is ready, and the attempts it retries. net_stream.hpp puts them together.
#pragma once

#include <boost/asio/buffer.hpp>
#include <boost/asio/post.hpp>
#include <boost/system/error_code.hpp>

#include <algorithm>
#include <cstddef>
#include <string>
#include <utility>

struct ssl_st;

namespace ringcast {

class net_stream;

namespace detail {

// The outcome of one non-blocking OpenSSL call: finished (bytes, or an error), or wait until the
// socket is readable or writable and call again with the same arguments.
struct tls_step {
  enum class next { done, wait_read, wait_write };
  next then = next::done;
  std::size_t bytes = 0;
  boost::system::error_code ec;
  bool fatal = false;  // OpenSSL forbids a close_notify after this
};

tls_step tls_read(ssl_st* ssl, void* data, std::size_t size);
tls_step tls_write(ssl_st* ssl, const void* data, std::size_t size);
// A server first peeks at the first byte, to tell a plaintext request from a TLS handshake.
tls_step tls_handshake(ssl_st* ssl, int fd, bool& first_byte_checked);

// The most plaintext one TLS record carries.
constexpr std::size_t max_tls_record = 16 * 1024;

// Retries `attempt` whenever the socket is ready, then completes; a result that is there at once
// is posted, never delivered inside the initiating call.
template <class Stream, bool WithBytes, class Attempt>
class tls_op {
 public:
  tls_op(Stream& stream, Attempt attempt) : stream_(stream), attempt_(std::move(attempt)) {}

  template <class Self>
  void operator()(Self& self, boost::system::error_code wait_ec = {}) {
    using socket = typename Stream::socket_type;
    if (state_ == state::posted) return finish(self);
    if (wait_ec) {
      step_ = {tls_step::next::done, 0, wait_ec, false};
      return finish(self);
    }
    step_ = attempt_(stream_);
    if (step_.fatal) stream_.tls_failed_ = true;
    if (step_.then != tls_step::next::done) {
      state_ = state::waiting;
      stream_.socket_.async_wait(
          step_.then == tls_step::next::wait_read ? socket::wait_read : socket::wait_write,
          std::move(self));
      return;
    }
    if (state_ == state::starting) {
      state_ = state::posted;
      boost::asio::post(std::move(self));
      return;
    }
    finish(self);
  }

 private:
  enum class state { starting, waiting, posted };

  template <class Self>
  void finish(Self& self) {
    if constexpr (WithBytes) {
      self.complete(step_.ec, step_.bytes);
    } else {
      self.complete(step_.ec);
    }
  }

  Stream& stream_;
  Attempt attempt_;
  state state_ = state::starting;
  tls_step step_;
};

template <class MutableBuffers>
boost::asio::mutable_buffer first_nonempty(const MutableBuffers& buffers) {
  for (auto it = boost::asio::buffer_sequence_begin(buffers);
       it != boost::asio::buffer_sequence_end(buffers); ++it) {
    const boost::asio::mutable_buffer b(*it);
    if (b.size() > 0) return b;
  }
  return {};
}

// A write of several buffers (a WebSocket frame header and its payload, an SSE event in three
// parts) is copied into one TLS record rather than sent as one record per buffer.
class write_attempt {
 public:
  template <class ConstBuffers>
  explicit write_attempt(const ConstBuffers& buffers) {
    std::size_t parts = 0;
    for (auto it = boost::asio::buffer_sequence_begin(buffers);
         it != boost::asio::buffer_sequence_end(buffers); ++it) {
      const boost::asio::const_buffer b(*it);
      if (b.size() == 0) continue;
      if (++parts == 1) single_ = b;
      if (parts == 2) {
        gathered_.assign(static_cast<const char*>(single_.data()),
                         std::min(single_.size(), max_tls_record));
      }
      if (parts >= 2 && gathered_.size() < max_tls_record) {
        gathered_.append(static_cast<const char*>(b.data()),
                         std::min(b.size(), max_tls_record - gathered_.size()));
      }
    }
  }
  tls_step operator()(net_stream& s);  // net_stream.cpp

 private:
  boost::asio::const_buffer single_;
  std::string gathered_;  // empty when there is a single buffer
};

}  // namespace detail
}  // namespace ringcast
