// What an idle WebSocket costs the server's heap, counted by glibc (mallinfo2) over a few hundred
// connections made with bare sockets (the client side allocates nothing): the connection object,
// its session and their entries, Asio's descriptor state and pending wait, and nothing else
// (docs/performance.md, "What an idle connection holds").
#include <malloc.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdlib>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <gtest/gtest.h>

#include "test_loop.hpp"

namespace ringcast {
namespace {

using namespace std::chrono_literals;

// Whether mallinfo2 sees this process's allocations (not when a sanitizer's allocator serves
// them): a 64 KiB block must show in the bytes in use.
bool glibc_counts_the_heap() {
  const std::size_t before = mallinfo2().uordblks;
  void* volatile block = std::malloc(64 * 1024);
  const bool counted = mallinfo2().uordblks >= before + 64 * 1024;
  std::free(block);
  return counted;
}

std::int64_t heap_in_use() {
  return static_cast<std::int64_t>(mallinfo2().uordblks);
}

// A WebSocket upgraded by hand on a bare socket, read up to its hello; the descriptor, or -1.
int open_websocket(std::uint16_t port, int i) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(port);
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0) {
    ::close(fd);
    return -1;
  }
  const std::string request = fmt::format(
      "GET /ws?user=u{}&sid=s{} HTTP/1.1\r\nHost: test\r\nUpgrade: websocket\r\n"
      "Connection: Upgrade\r\nSec-WebSocket-Key: dGhlIHNhbXBsZSBub25jZQ==\r\n"
      "Sec-WebSocket-Version: 13\r\n\r\n",
      i, i);
  if (::send(fd, request.data(), request.size(), 0) != static_cast<ssize_t>(request.size())) {
    ::close(fd);
    return -1;
  }
  std::string got;
  char chunk[512];
  while (got.find(R"("type":"hello")") == std::string::npos || got.back() != '}') {
    pollfd p{fd, POLLIN, 0};
    const ssize_t n = ::poll(&p, 1, 5000) == 1 ? ::recv(fd, chunk, sizeof chunk, 0) : -1;
    if (n <= 0) {
      ::close(fd);
      return -1;
    }
    got.append(chunk, static_cast<std::size_t>(n));
  }
  return fd;
}

// 1,342 bytes here when this was written; 1,595 before the idle connection lost its queue slot,
// its frame reader and rate bucket, its copy of the grant, and 16 bytes each of its connection's
// and its session's heap blocks.
TEST(IdleMemory, AnIdleWebSocketHoldsNoQueueNoFrameReaderAndNoRateBucket) {
  if (!glibc_counts_the_heap()) GTEST_SKIP() << "mallinfo2 does not see this allocator";
  config cfg;
  cfg.tick = 10ms;
  test::test_loop loop(cfg);
  std::vector<int> fds;
  // The first connections' one-time allocations (Asio's, the maps' first buckets) are not counted.
  for (int i = 0; i < 20; ++i) {
    fds.push_back(open_websocket(loop.port(), i));
    ASSERT_GE(fds.back(), 0);
  }
  loop.run([] {});
  constexpr int counted = 300;
  const std::int64_t before = heap_in_use();
  for (int i = 20; i < 20 + counted; ++i) {
    fds.push_back(open_websocket(loop.port(), i));
    ASSERT_GE(fds.back(), 0);
  }
  loop.run([] {});  // the loop is idle: every hello written, every connection waiting to read
  const std::int64_t per_connection = (heap_in_use() - before) / counted;
  EXPECT_EQ(loop.run([&] { return loop.stats().ws; }), 20u + counted);
  EXPECT_LE(per_connection, 1'408) << per_connection << " heap bytes per idle WebSocket";
  for (int fd : fds)
    ::close(fd);
}

}  // namespace
}  // namespace ringcast
