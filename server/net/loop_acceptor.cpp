#include "net/loop_acceptor.hpp"

#include "core/log.hpp"
#include "net/accepted_socket.hpp"
#include "net/http_connection.hpp"

namespace ringcast {

namespace asio = boost::asio;

loop_acceptor::loop_acceptor(connection_context& loop, connection_limit& limit)
    : loop_(loop), limit_(limit), acceptor_(loop.io()), backoff_(loop.io()) {}

void loop_acceptor::start() {
  accept();
}

void loop_acceptor::close() {
  boost::system::error_code ignored;
  acceptor_.close(ignored);
  backoff_.cancel();
}

void loop_acceptor::accept() {
  // With the peer's address as accept() gives it (no getpeername() after).
  acceptor_.async_accept(loop_.io(), peer_,
                         [this](boost::system::error_code ec, stream_socket socket) {
                           on_accept(ec, std::move(socket));
                         });
}

void loop_acceptor::on_accept(boost::system::error_code ec, stream_socket socket) {
  if (!acceptor_.is_open()) return;
  if (ec == asio::error::no_descriptors || ec == asio::error::no_buffer_space ||
      ec.value() == ENFILE) {
    // Retrying at once would spin a core until a descriptor frees up.
    out_of_descriptors_.warn(loop_.now(), "accept: {}; pausing accepts for 100 ms", ec.message());
    backoff_.expires_after(std::chrono::milliseconds(100));
    backoff_.async_wait([this](boost::system::error_code wait_ec) {
      if (!wait_ec) accept();
    });
    return;
  }
  if (!ec) {
    auto accepted = accept_socket_from(socket, peer_.address(), loop_.settings(),
                                       loop_.client_addresses(), loop_.now());
    if (accepted)  // else refused (closed) or gone
      http_connection::start(loop_, std::move(socket), limit_.try_open(), std::move(*accepted));
  }
  accept();
}

}  // namespace ringcast
