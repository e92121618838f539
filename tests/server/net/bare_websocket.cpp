#include "bare_websocket.hpp"

#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

namespace ringcast::test {

std::string upgrade_request(std::string_view target) {
  return "GET " + std::string(target) +
         " HTTP/1.1\r\nHost: test\r\nUpgrade: websocket\r\nConnection: Upgrade\r\n"
         "Sec-WebSocket-Key: " +
         std::string(sample_key) + "\r\nSec-WebSocket-Version: 13\r\n\r\n";
}

bool readable_within_5s(int fd) {
  pollfd p{fd, POLLIN, 0};
  return ::poll(&p, 1, 5000) == 1;
}

std::string read_until(int fd, const std::function<bool(const std::string&)>& enough) {
  std::string got;
  char chunk[1024];
  while (!enough(got) && readable_within_5s(fd)) {
    const ssize_t n = ::recv(fd, chunk, sizeof chunk, 0);
    if (n <= 0) break;
    got.append(chunk, static_cast<std::size_t>(n));
  }
  return got;
}

std::string read_until(int fd, std::string_view text) {
  return read_until(fd,
                    [text](const std::string& got) { return got.find(text) != std::string::npos; });
}

int open_connection(std::uint16_t port, std::string_view request,
                    const std::function<bool(const std::string&)>& opened) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return -1;
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(port);
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  if (::connect(fd, reinterpret_cast<const sockaddr*>(&to), sizeof to) != 0 ||
      ::send(fd, request.data(), request.size(), 0) != static_cast<ssize_t>(request.size()) ||
      !opened(read_until(fd, opened))) {
    ::close(fd);
    return -1;
  }
  return fd;
}

int open_websocket(std::uint16_t port, std::string_view target, std::string_view first_frame) {
  return open_connection(port, upgrade_request(target), [first_frame](const std::string& got) {
    return got.find(first_frame) != std::string::npos && got.back() == '}';
  });
}

std::string client_frame(std::uint8_t first_byte, std::string_view payload) {
  std::string f;
  f += static_cast<char>(first_byte);
  f += static_cast<char>(0x80 | payload.size());
  f.append(4, '\0');
  f += payload;
  return f;
}

std::pair<std::uint8_t, std::string> next_frame(int fd) {
  std::string got;
  char byte;
  while (got.size() < 2 || got.size() < 2u + (static_cast<std::uint8_t>(got[1]) & 0x7fu)) {
    if (!readable_within_5s(fd) || ::recv(fd, &byte, 1, 0) != 1) return {0, ""};
    got += byte;
  }
  return {static_cast<std::uint8_t>(got[0]), got.substr(2)};
}

}  // namespace ringcast::test
