// Accepts TCP connections and hands each to an event loop, round-robin.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/steady_timer.hpp>

namespace ringcast {

class server;
class event_loop;

class listener {
 public:
  explicit listener(server& owner);
  // Binds and listens on --listen; logs the address (the port too when 0 was asked for).
  bool open();
  void close();  // from any thread

 private:
  void accept();
  void on_accept(boost::system::error_code ec, boost::asio::ip::tcp::socket socket,
                 event_loop& loop);

  server& owner_;
  boost::asio::ip::tcp::acceptor acceptor_;
  boost::asio::steady_timer backoff_;  // out of file descriptors: wait instead of spinning
  std::size_t next_loop_ = 0;
};

}  // namespace ringcast
