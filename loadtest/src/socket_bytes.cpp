#include "socket_bytes.hpp"

// <linux/tcp.h>, not <netinet/tcp.h>: glibc's struct tcp_info stops before tcpi_bytes_received.
#include <linux/tcp.h>
#include <netinet/in.h>
#include <sys/socket.h>

#include <cstddef>

namespace ringcast::load {

std::optional<std::uint64_t> socket_bytes_received(int fd) {
  tcp_info info{};
  socklen_t size = sizeof info;
  if (getsockopt(fd, IPPROTO_TCP, TCP_INFO, &info, &size) != 0) return std::nullopt;
  // An older kernel fills a shorter struct.
  if (size < offsetof(tcp_info, tcpi_bytes_received) + sizeof info.tcpi_bytes_received)
    return std::nullopt;
  return info.tcpi_bytes_received;
}

}  // namespace ringcast::load
