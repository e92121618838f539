#include "stamped_stream.hpp"

#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace ringcast::load {

bool stamped_stream::stamp_arrivals() {
  const int on = 1;
  if (setsockopt(next_.socket().native_handle(), SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on) != 0)
    return false;
  stamping_ = true;
  return true;
}

std::size_t stamped_stream::receive(boost::asio::mutable_buffer buffer,
                                    boost::system::error_code& ec) {
  iovec iov{buffer.data(), buffer.size()};
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(timespec))];
  msghdr msg{};
  msg.msg_iov = &iov;
  msg.msg_iovlen = 1;
  msg.msg_control = control;
  msg.msg_controllen = sizeof control;
  const ssize_t n = recvmsg(next_.socket().native_handle(), &msg, MSG_DONTWAIT);
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
  last_arrival_us_ = 0;
  for (cmsghdr* c = CMSG_FIRSTHDR(&msg); c; c = CMSG_NXTHDR(&msg, c)) {
    if (c->cmsg_level != SOL_SOCKET || c->cmsg_type != SCM_TIMESTAMPNS) continue;
    timespec ts{};
    std::memcpy(&ts, CMSG_DATA(c), sizeof ts);
    last_arrival_us_ = static_cast<std::int64_t>(ts.tv_sec) * 1'000'000 + ts.tv_nsec / 1000;
  }
  ec = {};
  return static_cast<std::size_t>(n);
}

kernel_stamping::kernel_stamping() : fd_(socket(AF_INET, SOCK_DGRAM | SOCK_CLOEXEC, 0)) {
  const int on = 1;
  if (fd_ >= 0) setsockopt(fd_, SOL_SOCKET, SO_TIMESTAMPNS, &on, sizeof on);
}

kernel_stamping::~kernel_stamping() {
  if (fd_ >= 0) close(fd_);
}

}  // namespace ringcast::load
