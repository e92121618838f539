// Accepts TCP connections on --listen and gives each to an event loop, round-robin, once
// accept_socket has counted it against its address (accepted_socket.hpp).
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

#include <string>
#include <vector>

#include "core/repeated_warning.hpp"
#include "net/connection_context.hpp"
#include "net/connection_limit.hpp"
#include "tls/stream_socket.hpp"

namespace ringcast {

class listener {
 public:
  // Accepts on the first loop's io_context.
  listener(std::vector<connection_context*> loops, connection_limit& limit);
  // Binds and listens; logs the address (the port too when 0 was asked for).
  bool open(const std::string& host, std::uint16_t port);
  // Listens on a socket an upgrading process handed over (no bind: what waits in its backlog is
  // accepted here).
  bool adopt(int fd, bool v6);
  // The listening socket's descriptor (for an upgrade in place); -1 before open().
  int native_handle() { return acceptor_.is_open() ? acceptor_.native_handle() : -1; }
  bool v6() const { return v6_; }
  void close();  // from any thread
  // "host:port" as bound (the port chosen when 0 was asked for); set by open(), then constant.
  const std::string& address() const { return address_; }

 private:
  void accept();
  void listening();  // logs the address and starts accepting
  void on_accept(boost::system::error_code ec, stream_socket socket, connection_context& loop);
  void admit(stream_socket socket, connection_context& loop);

  std::vector<connection_context*> loops_;
  connection_limit& limit_;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer backoff_;    // out of file descriptors: wait instead of spinning
  repeated_warning out_of_descriptors_;  // logged at most once a second while it lasts
  boost::asio::ip::tcp::endpoint peer_;  // of the accept in flight (one at a time)
  std::size_t next_loop_ = 0;
  std::string address_;
  bool v6_ = false;
};

}  // namespace ringcast
