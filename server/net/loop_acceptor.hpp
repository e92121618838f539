// One listening socket of the listener's SO_REUSEPORT group (listener.hpp), served by one event
// loop: it accepts on that loop's io_context and starts each connection there, once
// accept_socket_from has counted it against its address. No hand-off to another loop: the kernel
// spreads the connections over the group's sockets.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include "core/repeated_warning.hpp"
#include "net/connection_context.hpp"
#include "net/connection_limit.hpp"
#include "tls/stream_socket.hpp"

namespace ringcast {

class loop_acceptor {
 public:
  using tcp = boost::asio::ip::tcp;

  loop_acceptor(connection_context& loop, connection_limit& limit);

  tcp::acceptor& socket() { return acceptor_; }
  connection_context& loop() { return loop_; }
  void start();  // on the loop's thread: accepts until close()
  void close();  // on the loop's thread

 private:
  void accept();
  void on_ready(boost::system::error_code ec);
  void on_accept(int fd, const tcp::endpoint& peer);

  connection_context& loop_;
  connection_limit& limit_;
  tcp::acceptor acceptor_;
  boost::asio::steady_timer backoff_;    // out of file descriptors: wait instead of spinning
  repeated_warning out_of_descriptors_;  // logged at most once a second while it lasts
};

}  // namespace ringcast
