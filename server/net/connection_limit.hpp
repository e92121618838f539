// Open TCP connections, for --max-connections. A slot is held by whichever object owns the
// socket, from accept to close, and moves with it between loops and handler classes.
#pragma once

#include <atomic>
#include <cstddef>
#include <optional>
#include <utility>

namespace ringcast {

class connection_limit {
 public:
  explicit connection_limit(std::size_t max) : max_(max) {}

  class slot {
   public:
    slot() = default;
    slot(slot&& o) noexcept : limit_(std::exchange(o.limit_, nullptr)) {}
    slot& operator=(slot&& o) noexcept {
      std::swap(limit_, o.limit_);
      return *this;
    }
    ~slot() {
      if (limit_) limit_->open_.fetch_sub(1, std::memory_order_relaxed);
    }

   private:
    friend class connection_limit;
    explicit slot(connection_limit* l) : limit_(l) {}
    connection_limit* limit_ = nullptr;
  };

  // A slot, or none when the limit is reached.
  std::optional<slot> try_open() {
    if (open_.fetch_add(1, std::memory_order_relaxed) >= max_.load(std::memory_order_relaxed)) {
      open_.fetch_sub(1, std::memory_order_relaxed);
      return std::nullopt;
    }
    return slot(this);
  }
  // A connection that is already open (handed over by an upgrade in place) counts, whatever the
  // limit.
  slot count_open() {
    open_.fetch_add(1, std::memory_order_relaxed);
    return slot(this);
  }
  std::size_t open() const { return open_.load(std::memory_order_relaxed); }
  std::size_t max() const { return max_.load(std::memory_order_relaxed); }
  // For connections from now on; open ones above a lowered limit stay open.
  void set_max(std::size_t max) { max_.store(max, std::memory_order_relaxed); }

 private:
  std::atomic<std::size_t> max_;
  std::atomic<std::size_t> open_{0};
};

}  // namespace ringcast
