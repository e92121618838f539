// At most N of something in flight across threads (--connect-hook-concurrency: connect-hook POSTs
// per node, shared by every event loop's gate). Beyond it the caller refuses at once instead of
// queueing: a flood of connects cannot become a flood of requests to the backend.
#pragma once

#include <atomic>
#include <cstddef>

namespace ringcast {

class concurrency_cap {
 public:
  explicit concurrency_cap(std::size_t limit) : limit_(limit) {}

  // A place, or false when `limit` are taken; a place taken is given back with release().
  bool try_acquire() {
    std::size_t now = in_flight_.load(std::memory_order_relaxed);
    do {
      if (now >= limit_) return false;
    } while (!in_flight_.compare_exchange_weak(now, now + 1, std::memory_order_relaxed));
    return true;
  }
  void release() { in_flight_.fetch_sub(1, std::memory_order_relaxed); }

  std::size_t in_flight() const { return in_flight_.load(std::memory_order_relaxed); }
  std::size_t limit() const { return limit_; }

 private:
  const std::size_t limit_;
  std::atomic<std::size_t> in_flight_{0};
};

}  // namespace ringcast
