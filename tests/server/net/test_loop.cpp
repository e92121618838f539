#include "test_loop.hpp"

#include <sys/socket.h>
#include <sys/time.h>

#include "net/accepted_socket.hpp"
#include "net/http_connection.hpp"

namespace ringcast::test {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

test_loop::test_loop(const config& cfg)
    : cfg_(cfg),
      settings_(connection_settings::from(cfg)),
      clock_(time_point{} + std::chrono::hours(1)),
      timers_(clock_, clock_.now(), cfg_.tick, cfg_.wheel_slots),
      hub_(cfg_, timers_, stats_, 0),
      work_(io_.get_executor()),
      acceptor_(io_, tcp::endpoint(asio::ip::make_address("127.0.0.1"), 0)) {
  port_ = acceptor_.local_endpoint().port();
  accept();
  thread_ = std::thread([this] { io_.run(); });
}

test_loop::~test_loop() {
  // Connections still open hold the hub: close everything on the loop, then stop it.
  run([this] {
    boost::system::error_code ignored;
    acceptor_.close(ignored);
    http_connection::drain_idle(connections_);
    hub_.drain(clock_.now());
  });
  work_.reset();
  io_.stop();
  thread_.join();
}

void test_loop::accept() {
  acceptor_.async_accept(io_, [this](boost::system::error_code ec, stream_socket socket) {
    if (ec) return;
    auto accepted = accept_socket(socket, settings(), client_addresses(), now());
    if (!accepted) return accept();  // refused per address, closed
    boost::system::error_code ignored;
    if (const int bytes = send_buffer_.load(); bytes > 0)
      socket.set_option(asio::socket_base::send_buffer_size(bytes), ignored);
    http_connection::start(*this, std::move(socket), limit_.try_open(), std::move(*accepted));
    accept();
  });
}

void test_loop::drain_idle_connections() {
  draining_ = true;
  run([this] {
    http_connection::drain_idle(connections_);
    return 0;
  });
}

void test_loop::advance(std::chrono::milliseconds d) {
  run([this, d] {
    clock_.advance(d);
    timers_.advance();
  });
}

tcp::socket test_loop::connect() {
  tcp::socket s(client_io_);
  s.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port_));
  s.set_option(tcp::no_delay(true));
  timeval timeout{5, 0};
  ::setsockopt(s.native_handle(), SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof timeout);
  return s;
}

tcp::socket test_loop::connect_small() {
  tcp::socket s(client_io_);
  s.open(tcp::v4());
  s.set_option(asio::socket_base::receive_buffer_size(1024));
  s.connect(tcp::endpoint(asio::ip::make_address("127.0.0.1"), port_));
  s.set_option(tcp::no_delay(true));
  return s;
}

}  // namespace ringcast::test
