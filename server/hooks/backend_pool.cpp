#include "hooks/backend_pool.hpp"

namespace ringcast {

std::optional<net_stream> backend_pool::take() {
  while (!idle_.empty()) {
    net_stream s = std::move(idle_.back());
    idle_.pop_back();
    // An idle HTTP connection has nothing to say: anything readable is its end (EOF, a reset,
    // or a TLS close_notify).
    if (s.probe_readable() == net_stream::readable_state::nothing) {
      ++reused_;
      return s;
    }
    s.close();
  }
  return std::nullopt;
}

void backend_pool::give_back(net_stream stream) {
  if (idle_.size() >= max_idle_) {
    stream.close();
    return;
  }
  idle_.push_back(std::move(stream));
}

}  // namespace ringcast
