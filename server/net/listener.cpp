#include "net/listener.hpp"

#include <optional>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>

#include "core/log.hpp"
#include "net/accepted_socket.hpp"
#include "net/descriptor_table.hpp"
#include "net/http_connection.hpp"

namespace ringcast {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;

listener::listener(std::vector<connection_context*> loops, connection_limit& limit)
    : loops_(std::move(loops)),
      limit_(limit),
      acceptor_(loops_.front()->io()),
      backoff_(loops_.front()->io()) {}

namespace {

// Descriptors beyond --max-connections that the table is grown for: the server's own (the
// listener, each loop's epoll, eventfd and timerfd, the log, hook and Redis connections) and
// connections over the limit, which are accepted to be answered 503.
constexpr std::size_t descriptor_headroom = 256;

// --listen's host: an address as it is, a name (localhost) through the resolver, as --redis and
// ringcast-load's --target resolve theirs. A name with IPv4 and IPv6 addresses listens on its first
// IPv4 one (localhost is 127.0.0.1 whatever the order /etc/hosts lists it in).
std::optional<asio::ip::address> listen_address(asio::io_context& io, const std::string& host,
                                                std::uint16_t port) {
  boost::system::error_code ec;
  auto address = asio::ip::make_address(host, ec);
  if (!ec) return address;
  tcp::resolver resolver(io);
  const auto found =
      resolver.resolve(host, std::to_string(port), tcp::resolver::numeric_service, ec);
  if (ec || found.empty()) {
    log_error("cannot listen on {}:{}: the name does not resolve ({})", host, port,
              ec ? ec.message() : "no address");
    return std::nullopt;
  }
  for (const auto& entry : found)
    if (entry.endpoint().address().is_v4()) return entry.endpoint().address();
  return found.begin()->endpoint().address();
}

}  // namespace

bool listener::open(const std::string& host, std::uint16_t port) {
  const auto address = listen_address(loops_.front()->io(), host, port);
  if (!address) return false;
  const tcp::endpoint endpoint(*address, port);
  boost::system::error_code ec;
  acceptor_.open(endpoint.protocol(), ec);
  if (!ec) acceptor_.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) acceptor_.bind(endpoint, ec);
  if (!ec) acceptor_.listen(asio::socket_base::max_listen_connections, ec);
  if (ec) {
    log_error("cannot listen on {}:{}: {}", host, port, ec.message());
    return false;
  }
  listening();
  return true;
}

bool listener::adopt(int fd, bool v6) {
  boost::system::error_code ec;
  acceptor_.assign(v6 ? tcp::v6() : tcp::v4(), fd, ec);
  if (ec) {
    log_error("cannot listen on the handed-over socket {}: {}", fd, ec.message());
    return false;
  }
  listening();
  return true;
}

void listener::listening() {
  const auto local = acceptor_.local_endpoint();
  v6_ = local.address().is_v6();
  address_ = v6_ ? fmt::format("[{}]:{}", local.address().to_string(), local.port())
                 : fmt::format("{}:{}", local.address().to_string(), local.port());
  log_info("listening on {} with {} thread(s)", address_, loops_.size());
  // Every accepted socket inherits it (accept_socket_from): one system call per listener, not one
  // per connection. Pushes are small writes that must go out at once, not wait behind Nagle.
  boost::system::error_code ec;
  acceptor_.set_option(tcp::no_delay(true), ec);
  if (ec) log_warn("listener: TCP_NODELAY: {}", ec.message());
  // Before the loops run: growing it later stalls the accepting loop (descriptor_table.hpp).
  reserve_descriptor_table(acceptor_.native_handle(), limit_.max() + descriptor_headroom);
  accept();
}

void listener::close() {
  asio::post(acceptor_.get_executor(), [this] {
    boost::system::error_code ignored;
    acceptor_.close(ignored);
    backoff_.cancel();
  });
}

void listener::accept() {
  connection_context& loop = *loops_[next_loop_++ % loops_.size()];
  // With the peer's address as accept() gives it (no getpeername() after).
  acceptor_.async_accept(loop.io(), peer_,
                         [this, &loop](boost::system::error_code ec, stream_socket socket) {
                           on_accept(ec, std::move(socket), loop);
                         });
}

void listener::on_accept(boost::system::error_code ec, stream_socket socket,
                         connection_context& loop) {
  if (!acceptor_.is_open()) return;
  if (ec == asio::error::no_descriptors || ec == asio::error::no_buffer_space ||
      ec.value() == ENFILE) {
    // Retrying at once would spin a core until a descriptor frees up.
    out_of_descriptors_.warn(loop.now(), "accept: {}; pausing accepts for 100 ms", ec.message());
    backoff_.expires_after(std::chrono::milliseconds(100));
    backoff_.async_wait([this](boost::system::error_code wait_ec) {
      if (!wait_ec) accept();
    });
    return;
  }
  if (!ec) admit(std::move(socket), loop);
  accept();
}

void listener::admit(stream_socket socket, connection_context& loop) {
  connection_context& home = *loops_.front();  // this thread's: its settings are safe to read
  auto accepted = accept_socket_from(socket, peer_.address(), home.settings(),
                                     home.client_addresses(), home.now());
  if (!accepted) return;  // refused (closed) or gone
  asio::post(loop.io(), [&loop, socket = std::move(socket), slot = limit_.try_open(),
                         accepted = std::move(*accepted)]() mutable {
    http_connection::start(loop, std::move(socket), std::move(slot), std::move(accepted));
  });
}

}  // namespace ringcast
