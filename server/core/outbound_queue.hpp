// The frames waiting to be written to one client, oldest first.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "message.hpp"

namespace ringcast {

struct outbound {
  message_ptr msg;   // a published message, shared with every other queue it is on
  std::string text;  // or a frame of this connection's own (hello, pong, notices, heartbeats)
};

// A FIFO that allocates nothing until it is used: std::deque allocates a 512-byte block when it is
// constructed, which across 10,000 idle connections is 5 MB of empty queues.
class outbound_queue {
 public:
  bool empty() const { return head_ == items_.size(); }
  std::size_t size() const { return items_.size() - head_; }
  void push_back(outbound item) { items_.push_back(std::move(item)); }
  // Removes and returns the oldest item. (Items move when the vector grows, so a write must be
  // given a taken item, never a reference into the queue.)
  outbound take_front() {
    outbound item = std::move(items_[head_++]);
    if (empty()) {
      clear();
    } else if (head_ >= 64 && head_ * 2 >= items_.size()) {  // a queue that never drains
      items_.erase(items_.begin(), items_.begin() + static_cast<std::ptrdiff_t>(head_));
      head_ = 0;
    }
    return item;
  }
  void clear() {
    items_.clear();
    head_ = 0;
  }

 private:
  std::vector<outbound> items_;
  std::size_t head_ = 0;  // items_[0, head_) were taken
};

}  // namespace ringcast
