// The stream under a ws client's Beast WebSocket. With --arrival kernel it reads with recvmsg() and
// keeps the kernel's receive time of what it read (SO_TIMESTAMPNS): when the bytes reached the
// client's socket, which is when the server delivered them, not the later moment a client of the
// tool (at idle priority then, docs/loadtest.md) got round to reading them. Otherwise it is the
// net_stream beneath, and a message's arrival is the time it was read.
#pragma once

#include <sys/socket.h>
#include <time.h>

#include <boost/asio/compose.hpp>
#include <boost/beast/core/role.hpp>
#include <boost/beast/websocket/teardown.hpp>

#include <cstdint>

#include "tls/net_stream.hpp"

namespace ringcast::load {

class stamped_stream {
 public:
  using executor_type = net_stream::executor_type;

  explicit stamped_stream(net_stream::socket_type socket) : next_(std::move(socket)) {}

  executor_type get_executor() noexcept { return next_.get_executor(); }
  net_stream& next_layer() { return next_; }

  // From now on, reads go through recvmsg() with the kernel's timestamps (a connected, plain
  // socket: the caller checks --tls is off). False, with errno, when the socket refuses the option.
  bool stamp_arrivals();
  // The kernel's receive time (Unix µs) of the bytes the last read took; 0 before, or when the
  // kernel gave none.
  std::int64_t last_arrival_us() const { return last_arrival_us_; }

  template <class MutableBuffers, class Token>
  auto async_read_some(const MutableBuffers& buffers, Token&& token) {
    if (!stamping_) return next_.async_read_some(buffers, std::forward<Token>(token));
    return boost::asio::async_compose<Token, void(boost::system::error_code, std::size_t)>(
        stamped_read<MutableBuffers>{*this, buffers}, token, next_.socket());
  }
  template <class ConstBuffers, class Token>
  auto async_write_some(const ConstBuffers& buffers, Token&& token) {
    return next_.async_write_some(buffers, std::forward<Token>(token));
  }

 private:
  // Waits until the socket is readable, then takes what is there with its receive time.
  template <class MutableBuffers>
  struct stamped_read {
    stamped_stream& s;
    MutableBuffers buffers;
    bool waited = false;

    template <class Self>
    void operator()(Self& self, boost::system::error_code ec = {}) {
      if (waited) {
        if (ec) return self.complete(ec, 0);
        const std::size_t n = s.receive(*boost::asio::buffer_sequence_begin(buffers), ec);
        if (ec != boost::asio::error::would_block) return self.complete(ec, n);
      }
      waited = true;
      s.next_.socket().async_wait(net_stream::socket_type::wait_read, std::move(self));
    }
  };

  // One recvmsg() into `buffer`: the bytes taken (eof for none), and their receive time kept.
  std::size_t receive(boost::asio::mutable_buffer buffer, boost::system::error_code& ec);

  friend void teardown(boost::beast::role_type role, stamped_stream& s,
                       boost::system::error_code& ec) {
    teardown(role, s.next_, ec);
  }
  template <class Handler>
  friend void async_teardown(boost::beast::role_type role, stamped_stream& s, Handler&& handler) {
    async_teardown(role, s.next_, std::forward<Handler>(handler));
  }

  net_stream next_;
  bool stamping_ = false;
  std::int64_t last_arrival_us_ = 0;
};

// Linux stamps received packets only while some socket asks for it, and turns stamping on a
// moment after the first one asks (deferred work): the first replies of a run would come
// unstamped. Made, it has seen bytes of its own stamped (or thrown after 2 s); held by a worker
// for its whole run (--arrival kernel), it keeps stamping on.
class kernel_stamping {
 public:
  kernel_stamping();
  ~kernel_stamping();
  kernel_stamping(const kernel_stamping&) = delete;
  kernel_stamping& operator=(const kernel_stamping&) = delete;

 private:
  int fds_[2] = {-1, -1};  // a loopback pair: its socket keeps stamping on
};

}  // namespace ringcast::load
