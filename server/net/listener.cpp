#include "net/listener.hpp"

#include <optional>

#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>

#include "core/log.hpp"
#include "net/descriptor_table.hpp"

namespace ringcast {

namespace asio = boost::asio;
using tcp = asio::ip::tcp;
using reuse_port = asio::detail::socket_option::boolean<SOL_SOCKET, SO_REUSEPORT>;

listener::listener(std::vector<connection_context*> loops, connection_limit& limit)
    : loops_(std::move(loops)), limit_(limit) {}

listener::~listener() = default;

namespace {

// Descriptors beyond --max-connections that the table is grown for: the server's own (the
// listeners, each loop's epoll, eventfd and timerfd, the log, hook and Redis connections) and
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

// A socket with SO_REUSEPORT would join a group that another process of the same user listens
// with (a second ringcast started on the same port by mistake: each would get some of the
// connections). One without it is refused where anything listens, as the single listening socket
// of before was: it binds first, then lets the port go to the group.
void check_nothing_listens(asio::io_context& io, const tcp::endpoint& at,
                           boost::system::error_code& ec) {
  tcp::acceptor probe(io);
  probe.open(at.protocol(), ec);
  if (!ec) probe.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) probe.bind(at, ec);
}

// Every accepted socket inherits it (accept_socket_from): one system call per listening socket,
// not one per connection. Pushes are small writes that must go out at once, not wait behind Nagle.
// Set before listen(): a connection the kernel completes before would not have it.
void set_no_delay(tcp::acceptor& socket) {
  boost::system::error_code ec;
  socket.set_option(tcp::no_delay(true), ec);
  if (ec) log_warn("listener: TCP_NODELAY: {}", ec.message());
}

void bind_into_group(tcp::acceptor& socket, const tcp::endpoint& at,
                     boost::system::error_code& ec) {
  socket.open(at.protocol(), ec);
  if (!ec) socket.set_option(tcp::acceptor::reuse_address(true), ec);
  if (!ec) socket.set_option(reuse_port(true), ec);
  if (!ec) socket.bind(at, ec);
  if (!ec) set_no_delay(socket);
  if (!ec) socket.listen(asio::socket_base::max_listen_connections, ec);
}

}  // namespace

loop_acceptor& listener::add(connection_context& loop) {
  acceptors_.push_back(std::make_unique<loop_acceptor>(loop, limit_));
  return *acceptors_.back();
}

bool listener::open(const std::string& host, std::uint16_t port) {
  const auto address = listen_address(loops_.front()->io(), host, port);
  if (!address) return false;
  tcp::endpoint endpoint(*address, port);
  boost::system::error_code ec;
  if (port != 0) check_nothing_listens(loops_.front()->io(), endpoint, ec);
  for (std::size_t i = 0; !ec && i < loops_.size(); ++i) {
    tcp::acceptor& socket = add(*loops_[i]).socket();
    bind_into_group(socket, endpoint, ec);
    if (!ec && i == 0) endpoint.port(socket.local_endpoint().port());  // the others join it
  }
  if (ec) {
    log_error("cannot listen on {}:{}: {}", host, port, ec.message());
    acceptors_.clear();
    return false;
  }
  listening();
  return true;
}

bool listener::adopt(const std::vector<listening_socket>& handed) {
  if (handed.empty()) {  // check_handed_descriptors refuses such a state first
    log_error("the upgrade state holds no listening socket");
    return false;
  }
  for (std::size_t i = 0; i < handed.size(); ++i) {
    boost::system::error_code ec;
    tcp::acceptor& socket = add(*loops_[i % loops_.size()]).socket();
    socket.assign(handed[i].v6 ? tcp::v6() : tcp::v4(), handed[i].fd, ec);
    if (ec) {
      log_error("cannot listen on the handed-over socket {}: {}", handed[i].fd, ec.message());
      return false;
    }
    set_no_delay(socket);  // as on a socket opened here, whatever the old process set
  }
  const tcp::endpoint endpoint = acceptors_.front()->socket().local_endpoint();
  for (std::size_t i = handed.size(); i < loops_.size(); ++i) {
    boost::system::error_code ec;
    bind_into_group(add(*loops_[i]).socket(), endpoint, ec);
    if (ec) {  // the other loops accept on; this one serves only the sessions they hand it
      log_warn("upgrade: loop {} cannot open a listening socket of its own: {}", i, ec.message());
      acceptors_.pop_back();
    }
  }
  listening();
  return true;
}

std::vector<listening_socket> listener::handover() {
  std::vector<listening_socket> out;
  for (const auto& a : acceptors_)
    if (a->socket().is_open())
      out.push_back({a->socket().native_handle(), a->socket().local_endpoint().address().is_v6()});
  return out;
}

void listener::listening() {
  const auto local = acceptors_.front()->socket().local_endpoint();
  address_ = local.address().is_v6()
                 ? fmt::format("[{}]:{}", local.address().to_string(), local.port())
                 : fmt::format("{}:{}", local.address().to_string(), local.port());
  log_info("listening on {} with {} thread(s), {} listening socket(s)", address_, loops_.size(),
           acceptors_.size());
  // Before the loops run: growing it later stalls the accepting loop (descriptor_table.hpp).
  reserve_descriptor_table(acceptors_.front()->socket().native_handle(),
                           limit_.max() + descriptor_headroom);
  for (const auto& a : acceptors_)
    asio::post(a->loop().io(), [a = a.get()] { a->start(); });
}

void listener::close() {
  for (const auto& a : acceptors_)
    asio::post(a->loop().io(), [a = a.get()] { a->close(); });
}

}  // namespace ringcast
