#include "net/descriptor_table.hpp"

#include <fcntl.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <limits>

#include "core/log.hpp"

namespace ringcast {

bool reserve_descriptor_table(int fd, std::size_t count) {
  rlimit limit{};
  if (::getrlimit(RLIMIT_NOFILE, &limit) != 0) {
    log_warn("cannot read RLIMIT_NOFILE ({}): the descriptor table grows as connections come",
             std::strerror(errno));
    return false;
  }
  if (limit.rlim_cur != RLIM_INFINITY) count = std::min<std::size_t>(count, limit.rlim_cur);
  count = std::min<std::size_t>(count, std::numeric_limits<int>::max());
  if (count < 2) return true;
  // The lowest free descriptor at or above count - 1: the table grows to cover it.
  const int copy = ::fcntl(fd, F_DUPFD_CLOEXEC, static_cast<int>(count - 1));
  if (copy < 0) {
    log_warn("cannot reserve {} descriptors ({}): the descriptor table grows as connections come",
             count, std::strerror(errno));
    return false;
  }
  ::close(copy);
  return true;
}

}  // namespace ringcast
