// The listener grows the process's descriptor table for --max-connections when it opens, before
// the loops run: growing it later, in a process of several threads, stalls the accept() that needs
// the room for an RCU grace period (net/descriptor_table.hpp). It listens with a socket per loop
// in one SO_REUSEPORT group, each loop serving what its own socket accepts, and refuses a port
// that something else listens on.
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <filesystem>
#include <thread>

#include <fstream>
#include <future>
#include <numeric>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>
#include <boost/asio/post.hpp>

#include "config/config.hpp"
#include "net/connection_limit.hpp"
#include "net/listener.hpp"
#include "test_loop.hpp"
#include "upgrade/process_handover.hpp"

namespace ringcast {
namespace {

// The descriptor of this process's socket whose peer is `peer` (the listener's end of a client's
// connection), or -1.
int socket_with_peer(const sockaddr_in& peer) {
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    const int fd = std::stoi(entry.path().filename().string());
    sockaddr_in got{};
    socklen_t size = sizeof got;
    if (::getpeername(fd, reinterpret_cast<sockaddr*>(&got), &size) == 0 &&
        got.sin_family == AF_INET && got.sin_port == peer.sin_port &&
        got.sin_addr.s_addr == peer.sin_addr.s_addr)
      return fd;
  }
  return -1;
}

// Descriptors the table holds now (/proc/self/status "FDSize").
std::size_t descriptor_table_size() {
  std::ifstream status("/proc/self/status");
  for (std::string line; std::getline(status, line);)
    if (line.starts_with("FDSize:")) return std::stoul(line.substr(7));
  return 0;
}

// This process's listening sockets bound to `port` on IPv4.
int listening_sockets_on(std::uint16_t port) {
  int n = 0;
  for (const auto& entry : std::filesystem::directory_iterator("/proc/self/fd")) {
    const int fd = std::stoi(entry.path().filename().string());
    sockaddr_in got{};
    socklen_t size = sizeof got;
    int listening = 0;
    socklen_t length = sizeof listening;
    if (::getsockname(fd, reinterpret_cast<sockaddr*>(&got), &size) == 0 &&
        got.sin_family == AF_INET && ntohs(got.sin_port) == port &&
        ::getsockopt(fd, SOL_SOCKET, SO_ACCEPTCONN, &listening, &length) == 0 && listening)
      ++n;
  }
  return n;
}

std::uint16_t port_of(const listener& l) {
  const auto& address = l.address();
  return static_cast<std::uint16_t>(std::stoi(address.substr(address.find(':') + 1)));
}

// A blocking client connected to 127.0.0.1:port.
int connect_to(std::uint16_t port) {
  const int client = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in server{};
  server.sin_family = AF_INET;
  server.sin_port = htons(port);
  server.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (client >= 0 && ::connect(client, reinterpret_cast<sockaddr*>(&server), sizeof server) != 0) {
    ::close(client);
    return -1;
  }
  return client;
}

// Closes the listener on its loops, then lets the accepts it cancelled come back, before it goes.
void close_on(listener& l, std::initializer_list<test::test_loop*> loops) {
  loops.begin()[0]->run([&] {
    l.close();
    return 0;
  });
  for (int round = 0; round < 2; ++round)
    for (auto* loop : loops)
      loop->run([] { return 0; });
}

TEST(Listener, GrowsTheDescriptorTableForMaxConnectionsWhenItOpens) {
  constexpr std::size_t max_connections = 6000;
  rlimit limit{};
  ASSERT_EQ(::getrlimit(RLIMIT_NOFILE, &limit), 0);
  if (limit.rlim_max != RLIM_INFINITY && limit.rlim_max < 2 * max_connections)
    GTEST_SKIP() << "RLIMIT_NOFILE's hard limit is " << limit.rlim_max;
  const rlimit raised{std::max<rlim_t>(limit.rlim_cur, 2 * max_connections), limit.rlim_max};
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &raised), 0);
  const std::size_t before = descriptor_table_size();
  if (before >= max_connections) GTEST_SKIP() << "the table holds " << before << " already";

  test::test_loop loop{config{}};
  connection_limit connections(max_connections);
  listener l({&loop}, connections);
  loop.run([&] {
    EXPECT_TRUE(l.open("127.0.0.1", 0));
    EXPECT_GE(descriptor_table_size(), max_connections) << "before: " << before;
    l.close();
    return 0;
  });
  // The close (posted), then the accept it cancelled, have run before `l` goes.
  loop.run([] { return 0; });
  loop.run([] { return 0; });
  ASSERT_EQ(::setrlimit(RLIMIT_NOFILE, &limit), 0);
}

// The listener sets TCP_NODELAY once on the listening socket, which accepted sockets inherit, and
// reads the peer from accept(): an accepted socket still has TCP_NODELAY, the send buffer of
// --send-buffer (doubled by the kernel) and non-blocking mode.
TEST(Listener, AnAcceptedSocketHasNoDelayTheSendBufferAndNonBlockingMode) {
  config settings;
  settings.send_buffer = 64 * 1024;
  test::test_loop loop{settings};
  connection_limit connections(100);
  listener l({&loop}, connections);
  ASSERT_TRUE(loop.run([&] { return l.open("127.0.0.1", 0); }));
  const auto& address = l.address();
  const int client = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(client, 0);
  sockaddr_in server{};
  server.sin_family = AF_INET;
  server.sin_port =
      htons(static_cast<std::uint16_t>(std::stoi(address.substr(address.find(':') + 1))));
  server.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(client, reinterpret_cast<sockaddr*>(&server), sizeof server), 0);
  sockaddr_in mine{};
  socklen_t size = sizeof mine;
  ASSERT_EQ(::getsockname(client, reinterpret_cast<sockaddr*>(&mine), &size), 0);
  // Accepted and handed to its connection on the loop's thread (accept() may have returned it
  // before its handler ran: only a connection waiting for its request is looked for).
  int accepted = -1;
  for (int i = 0; i < 200 && accepted < 0; ++i) {
    accepted = loop.run([&] { return loop.idle_connections() > 0 ? socket_with_peer(mine) : -1; });
    if (accepted < 0) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  ASSERT_GE(accepted, 0);
  int value = 0;
  socklen_t length = sizeof value;
  ASSERT_EQ(::getsockopt(accepted, IPPROTO_TCP, TCP_NODELAY, &value, &length), 0);
  EXPECT_EQ(value, 1);
  ASSERT_EQ(::getsockopt(accepted, SOL_SOCKET, SO_SNDBUF, &value, &length), 0);
  EXPECT_EQ(value, 2 * 64 * 1024);
  EXPECT_NE(::fcntl(accepted, F_GETFL) & O_NONBLOCK, 0);
  ::close(client);
  loop.run([&] {
    l.close();
    return 0;
  });
  loop.run([] { return 0; });
  loop.run([] { return 0; });
}

// A loop takes one connection per readiness report of its listening socket and then waits on it
// again, which re-arms it in epoll: connections queued while the loop was busy elsewhere are all
// accepted, none left waiting for the next connection to wake the loop.
TEST(Listener, ConnectionsQueuedWhileTheLoopIsBusyAreAllAccepted) {
  config settings;
  test::test_loop loop{settings};
  connection_limit connections(100);
  listener l({&loop}, connections);
  ASSERT_TRUE(loop.run([&] { return l.open("127.0.0.1", 0); }));
  const auto& address = l.address();
  sockaddr_in server{};
  server.sin_family = AF_INET;
  server.sin_port =
      htons(static_cast<std::uint16_t>(std::stoi(address.substr(address.find(':') + 1))));
  server.sin_addr.s_addr = htonl(INADDR_LOOPBACK);

  std::promise<void> release;
  boost::asio::post(loop.io(), [busy = release.get_future()]() mutable { busy.wait(); });
  constexpr int queued = 20;
  std::vector<int> clients;
  for (int i = 0; i < queued; ++i) {
    clients.push_back(::socket(AF_INET, SOCK_STREAM, 0));
    ASSERT_EQ(::connect(clients.back(), reinterpret_cast<sockaddr*>(&server), sizeof server), 0);
  }
  release.set_value();

  std::size_t accepted = 0;
  for (int i = 0; i < 400 && accepted < queued; ++i) {
    accepted = loop.run([&] { return loop.idle_connections(); });
    if (accepted < queued) std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  EXPECT_EQ(accepted, queued);
  for (const int fd : clients)
    ::close(fd);
  loop.run([&] {
    l.close();
    return 0;
  });
  loop.run([] { return 0; });
  loop.run([] { return 0; });
}

// SO_REUSEPORT lets a socket of the same user join a group that listens already: a second server
// started on the same port by mistake would share its connections. The listener refuses a port
// that something listens on, a group of its own kind included ("Address already in use").
TEST(Listener, RefusesAPortAnotherListenerOfTheSameUserListensOn) {
  test::test_loop first{config{}}, second{config{}};
  connection_limit connections(100);
  listener running({&first}, connections);
  ASSERT_TRUE(first.run([&] { return running.open("127.0.0.1", 0); }));
  listener again({&second}, connections);
  EXPECT_FALSE(second.run([&] { return again.open("127.0.0.1", port_of(running)); }));
  EXPECT_EQ(listening_sockets_on(port_of(running)), 1);
  close_on(running, {&first});
  close_on(again, {&second});  // none opened, unless it joined
}

// What an upgrading process with `sockets` loops hands over: its listening sockets (dup'd, as the
// exec keeps them), its own descriptors closed, so that nothing accepts from them: connections made
// now wait in the backlogs.
std::vector<listening_socket> handed_over(std::size_t sockets, connection_limit& connections,
                                          std::uint16_t& port) {
  std::vector<listening_socket> handed;
  test::test_loop old_loop{config{}};
  listener old(std::vector<connection_context*>(sockets, &old_loop), connections);
  old_loop.run([&] {
    if (!old.open("127.0.0.1", 0)) return 0;
    for (const auto& s : old.handover())
      handed.push_back({::dup(s.fd), s.v6});
    return 0;
  });
  port = port_of(old);
  close_on(old, {&old_loop});
  return handed;
}

// Connections served on `loops` (waiting for their first request), once `count` have come or 2 s
// have passed.
std::vector<std::size_t> served_on(std::initializer_list<test::test_loop*> loops,
                                   std::size_t count) {
  std::vector<std::size_t> out;
  for (int i = 0; i < 400; ++i) {
    out.clear();
    for (auto* loop : loops)
      out.push_back(loop->run([&] { return loop->idle_connections(); }));
    if (std::accumulate(out.begin(), out.end(), std::size_t{0}) >= count) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  return out;
}

// `n` clients connected to 127.0.0.1:port (-1 for one that could not connect).
std::vector<int> connected(std::uint16_t port, int n) {
  std::vector<int> out;
  for (int i = 0; i < n; ++i)
    out.push_back(connect_to(port));
  return out;
}

// Every client served, each by one of the two loops, and both loops serving some.
void expect_served_by_both(test::test_loop& a, test::test_loop& b,
                           const std::vector<int>& clients) {
  const auto served = served_on({&a, &b}, clients.size());
  EXPECT_EQ(served[0] + served[1], clients.size());
  EXPECT_GT(served[0], 0u);
  EXPECT_GT(served[1], 0u);
}

// Issue 40: a socket per loop, bound to one port, and the connections served on both loops, each
// by the loop whose socket accepted it (the kernel spreads them by their addresses' hash). Fails on
// 9c8eb71, which listened with one socket on loop 0 and handed every other connection over.
TEST(Listener, EveryLoopListensWithASocketOfItsOwnAndServesWhatItAccepts) {
  test::test_loop first{config{}}, second{config{}};
  connection_limit connections(100);
  listener l({&first, &second}, connections);
  ASSERT_TRUE(first.run([&] { return l.open("127.0.0.1", 0); }));
  const std::uint16_t port = port_of(l);
  EXPECT_EQ(listening_sockets_on(port), 2);
  EXPECT_EQ(l.handover().size(), 2u);
  // 32 clients: all on one loop's socket by chance once in 2^31.
  const auto clients = connected(port, 32);
  ASSERT_EQ(std::count(clients.begin(), clients.end(), -1), 0);
  expect_served_by_both(first, second, clients);
  for (const int c : clients)
    ::close(c);
  close_on(l, {&first, &second});
}

// An upgrade's new process with fewer loops than the old one had: every handed-over socket is
// accepted from (loop i takes sockets i, i + loops, ...), so no connection waiting in a backlog
// is lost.
TEST(Listener, WithFewerLoopsThanHandedOverSocketsAcceptsFromEveryOne) {
  connection_limit connections(100);
  std::uint16_t port = 0;
  auto handed = handed_over(3, connections, port);
  ASSERT_EQ(handed.size(), 3u);
  const auto clients = connected(port, 24);  // completed by the kernel, queued in the backlogs
  ASSERT_EQ(std::count(clients.begin(), clients.end(), -1), 0);
  test::test_loop a{config{}}, b{config{}};
  listener fewer({&a, &b}, connections);
  ASSERT_TRUE(a.run([&] { return fewer.adopt(handed); }));
  EXPECT_EQ(fewer.handover().size(), 3u);
  const auto served = served_on({&a, &b}, clients.size());
  EXPECT_EQ(served[0] + served[1], clients.size())
      << "a connection queued in a handed-over backlog was lost";
  close_on(fewer, {&a, &b});
  for (const int client : clients)
    ::close(client);
}

// With more loops than handed-over sockets, a loop left without one opens one into the group:
// every loop accepts, and the next upgrade hands over all of them.
TEST(Listener, WithMoreLoopsThanHandedOverSocketsOpensOneMoreIntoTheGroup) {
  connection_limit connections(100);
  std::uint16_t port = 0;
  auto handed = handed_over(1, connections, port);
  ASSERT_EQ(handed.size(), 1u);
  auto clients = connected(port, 4);  // queued in the handed-over backlog
  test::test_loop a{config{}}, b{config{}};
  listener more({&a, &b}, connections);
  ASSERT_TRUE(a.run([&] { return more.adopt(handed); }));
  EXPECT_EQ(more.handover().size(), 2u);
  EXPECT_EQ(listening_sockets_on(port), 2);
  EXPECT_EQ(more.address(), fmt::format("127.0.0.1:{}", port));
  const auto later = connected(port, 32);
  clients.insert(clients.end(), later.begin(), later.end());
  ASSERT_EQ(std::count(clients.begin(), clients.end(), -1), 0);
  expect_served_by_both(a, b, clients);
  close_on(more, {&a, &b});
  for (const int client : clients)
    ::close(client);
}

}  // namespace
}  // namespace ringcast
