#include "net/loop_acceptor.hpp"

#include <sys/socket.h>
#include <unistd.h>

#include "core/log.hpp"
#include "net/accepted_socket.hpp"
#include "net/http_connection.hpp"
#include "tls/net_stream.hpp"

namespace ringcast {

namespace asio = boost::asio;

loop_acceptor::loop_acceptor(connection_context& loop, connection_limit& limit)
    : loop_(loop), limit_(limit), acceptor_(loop.io()), backoff_(loop.io()) {}

void loop_acceptor::start() {
  boost::system::error_code ec;
  acceptor_.non_blocking(true, ec);  // accept4() on a blocking socket would wait for a connection
  if (ec) log_error("listening socket: cannot make it non-blocking: {}", ec.message());
  accept();
}

void loop_acceptor::close() {
  boost::system::error_code ignored;
  acceptor_.close(ignored);
  backoff_.cancel();
}

// One connection per readiness report, taken with accept4() (non-blocking from the start): Asio's
// accept operation would try accept() again at once, and an accept() that finds nothing still costs
// the kernel a socket and a file made and freed (about 4 µs, as much as a request's handling;
// docs/performance.md §21). Each wait re-arms the listening socket in epoll, which reports it
// again at once if more connections are queued, so none is left behind.
void loop_acceptor::accept() {
  acceptor_.async_wait(tcp::acceptor::wait_read,
                       [this](boost::system::error_code ec) { on_ready(ec); });
}

void loop_acceptor::on_ready(boost::system::error_code ec) {
  if (!acceptor_.is_open() || ec == asio::error::operation_aborted) return;
  if (!ec) {
    tcp::endpoint peer;  // with the peer's address as accept() gives it (no getpeername() after)
    auto length = static_cast<socklen_t>(peer.capacity());
    const int fd =
        ::accept4(acceptor_.native_handle(), peer.data(), &length, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd >= 0) {
      peer.resize(length);
      return on_accept(fd, peer);
    }
    ec.assign(errno, boost::system::system_category());
  }
  if (ec == asio::error::no_descriptors || ec == asio::error::no_buffer_space ||
      ec == asio::error::no_memory || ec.value() == ENFILE) {
    // Retrying at once would spin a core until a descriptor frees up.
    out_of_descriptors_.warn(loop_.now(), "accept: {}; pausing accepts for 100 ms", ec.message());
    backoff_.expires_after(std::chrono::milliseconds(100));
    backoff_.async_wait([this](boost::system::error_code wait_ec) {
      if (!wait_ec) accept();
    });
    return;
  }
  // Else nothing after all (would_block), or a connection reset while queued: wait for the next.
  accept();
}

void loop_acceptor::on_accept(int fd, const tcp::endpoint& peer) {
  stream_socket socket(loop_.io());
  boost::system::error_code ec;
  socket.assign(peer.protocol(), fd, ec);
  if (ec) {
    ::close(fd);  // epoll refused it (out of memory): the client sees a reset
    return accept();
  }
  net_stream::known_non_blocking(socket);  // accept4() made it so: no ioctl()
  if (auto accepted = accept_socket_from(socket, peer.address(), loop_.settings(),
                                         loop_.client_addresses(), loop_.now())) {
    http_connection::start(loop_, std::move(socket), limit_.try_open(), std::move(*accepted));
  }  // else refused over its address's limit, and closed
  accept();
}

}  // namespace ringcast
