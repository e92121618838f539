// The frames waiting to be written to one client, oldest first.
#pragma once

#include <chrono>
#include <cstddef>
#include <span>
#include <string>
#include <vector>

#include "core/message.hpp"

namespace ringcast {

struct outbound {
  message_ptr msg;   // a published message, shared with every other queue it is on
  std::string text;  // or a frame of this connection's own (hello, pong, notices, heartbeats)
  // `msg` framed without its id (a paced message that came after a higher id: SSE's
  // Last-Event-ID must not go back), from bytes shared as the numbered frame's are.
  bool unnumbered = false;
  // When the socket first would not take it (its write began and did not finish): it must be
  // written by then + --write-timeout. max: written at once so far, no deadline needed.
  std::chrono::steady_clock::time_point waiting_since =
      std::chrono::steady_clock::time_point::max();
};

// A FIFO that allocates nothing until it is used: std::deque allocates a 512-byte block when it is
// constructed, which across 10,000 idle connections is 5 MB of empty queues.
class outbound_queue {
 public:
  bool empty() const { return head_ == items_.size(); }
  std::size_t size() const { return items_.size() - head_; }
  void push_back(outbound item) { items_.push_back(std::move(item)); }
  // The items, oldest first, for a gathered write. (Items move when the vector grows: the view is
  // good until the next push_back.)
  std::span<const outbound> items() const { return {items_.data() + head_, items_.size() - head_}; }
  std::span<outbound> items() { return {items_.data() + head_, items_.size() - head_}; }
  // Removes the `n` oldest items (those a write finished).
  void pop_front(std::size_t n) {
    head_ += n;
    if (empty()) {
      // A burst (a backlog on connect: the promotions in force, a resume) leaves no capacity
      // behind: kept, it would cost each of thousands of idle connections 48 bytes a slot.
      if (items_.capacity() > kept_capacity)
        release();
      else
        clear();
    } else if (head_ >= 64 && head_ * 2 >= items_.size()) {  // a queue that never drains
      items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
  }
  void clear() {
    items_.clear();
    head_ = 0;
  }
  std::size_t capacity() const { return items_.capacity(); }

 private:
  // The steady state of a live connection is one item at a time: that much stays allocated.
  static constexpr std::size_t kept_capacity = 2;
  void release() {
    std::vector<outbound>().swap(items_);
    head_ = 0;
  }
  std::vector<outbound> items_;
  std::size_t head_ = 0;  // items_[0, head_) were written
};

}  // namespace ringcast
