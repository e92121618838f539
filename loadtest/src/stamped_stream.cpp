#include "stamped_stream.hpp"

#include <arpa/inet.h>
#include <fmt/format.h>
#include <netinet/in.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstring>
#include <stdexcept>
#include <thread>

namespace ringcast::load {
namespace {

// One recvmsg() into [data, data + size) with `flags`: its result. When it took bytes, `stamp_us`
// is their receive time (0 if they came unstamped); else it is left as it was.
ssize_t receive_stamped(int fd, void* data, std::size_t size, int flags, std::int64_t& stamp_us) {
  iovec iov{data, size};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  const ssize_t n = recvmsg(fd, &msg, flags);
  if (n <= 0) return n;
  stamp_us = 0;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS) continue;
    timespec ts{};
    std::memcpy(&ts, CMSG_DATA(c), sizeof ts);
    stamp_us = static_cast<std::int64_t>(ts.tv_sec) * 1'000'000 + ts.tv_nsec / 1000;
  }
  return n;
}

}  // namespace

bool stamped_stream::stamp_arrivals() {
  const int on = 1;
  if (setsockopt(next_.socket().native_handle(), SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) != 0)
    return false;
  stamping_ = true;
  return true;
}

std::size_t stamped_stream::receive(boost::asio::mutable_buffer buffer,
                                    boost::system::error_code& ec) {
  const ssize_t n = receive_stamped(next_.socket().native_handle(), buffer.data(), buffer.size(),
                                    MSG_DONTWAIT, last_arrival_us_);
  if (n < 0) {
    ec = errno == EAGAIN || errno == EWOULDBLOCK
             ? make_error_code(boost::asio::error::would_block)
             : boost::system::error_code(errno, boost::system::system_category());
    return 0;
  }
  if (n == 0) {
    ec = boost::asio::error::eof;
    return 0;
  }
  ec = {};
  return static_cast<std::size_t>(n);
}

namespace {

// A connected loopback TCP pair: [0] stamps what it receives, [1] sends. TCP, because a
// datagram read before stamping is on is stamped with the read's time instead.
bool loopback_pair(int (&fds)[2]) {
  const int listener = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  sockaddr_in address{};
  address.sin_family = AF_INET;
  address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t length = sizeof address;
  const int on = 1;
  const timeval wait{0, 100'000};  // bounds a read that nothing answers
  fds[0] = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  const bool made = listener >= 0 && fds[0] >= 0 &&
                    bind(listener, reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
                    listen(listener, 1) == 0 &&
                    getsockname(listener, reinterpret_cast<sockaddr*>(&address), &length) == 0 &&
                    setsockopt(fds[0], SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) == 0 &&
                    setsockopt(fds[0], SOL_SOCKET, SO_RCVTIMEO, &wait, sizeof wait) == 0 &&
                    connect(fds[0], reinterpret_cast<sockaddr*>(&address), sizeof address) == 0 &&
                    (fds[1] = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC)) >= 0;
  if (listener >= 0) close(listener);
  return made;
}

void close_pair(int (&fds)[2]) {
  for (const int fd : fds)
    if (fd >= 0) close(fd);
}

}  // namespace

kernel_stamping::kernel_stamping() {
  if (!loopback_pair(fds_)) {
    const int error = errno;
    close_pair(fds_);
    throw std::runtime_error(fmt::format("--arrival kernel: no loopback pair to probe stamping: {}",
                                         std::strerror(error)));
  }
  // Asking is not enough: the first replies would still come unstamped. A byte every 5 ms
  // shows when stamping is on (in a few milliseconds on an idle machine).
  for (int probe = 0; probe < 400; ++probe) {
    char byte = 0;
    std::int64_t stamp_us = 0;
    if (send(fds_[1], "p", 1, MSG_NOSIGNAL) == 1 &&
        receive_stamped(fds_[0], &byte, 1, 0, stamp_us) == 1 && stamp_us != 0)
      return;
    std::this_thread::sleep_for(std::chrono::milliseconds(5));
  }
  close_pair(fds_);
  throw std::runtime_error("--arrival kernel: the kernel did not stamp received packets in 2 s");
}

kernel_stamping::~kernel_stamping() {
  close_pair(fds_);
}

}  // namespace ringcast::load
