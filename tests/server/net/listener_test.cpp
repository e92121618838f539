// The listener grows the process's descriptor table for --max-connections when it opens, before
// the loops run: growing it later, in a process of several threads, stalls the accept() that needs
// the room for an RCU grace period (net/descriptor_table.hpp).
#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include <fstream>
#include <string>

#include <gtest/gtest.h>

#include "config/config.hpp"
#include "net/connection_limit.hpp"
#include "net/listener.hpp"
#include "test_loop.hpp"

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
  // Accepted and handed to its connection on the loop's thread.
  int accepted = -1;
  for (int i = 0; i < 200 && accepted < 0; ++i) {
    accepted = loop.run([&] { return socket_with_peer(mine); });
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

}  // namespace
}  // namespace ringcast
