// The sessions every event loop of a node holds together, against --max-sessions: each loop's hub
// counts its own in and out, so a loop sees the node's total without asking the others; and of
// them those without a connection, so a full loop whose sessions are all live knows whether
// another loop has one to displace (hub::make_room).
#pragma once

#include <atomic>
#include <cstddef>

namespace ringcast {

class session_budget {
 public:
  explicit session_budget(std::size_t max) : max_(max) {}
  // Whether one more session would go beyond the limit. A connect checks before it creates its
  // session; loops checking at the same instant may each create one (at most one per loop).
  bool full() const { return held_.load(std::memory_order_relaxed) >= max_; }
  void take() { held_.fetch_add(1, std::memory_order_relaxed); }
  void give_back() { held_.fetch_sub(1, std::memory_order_relaxed); }
  std::size_t held() const { return held_.load(std::memory_order_relaxed); }
  void idle_in() { idle_.fetch_add(1, std::memory_order_relaxed); }
  void idle_out() { idle_.fetch_sub(1, std::memory_order_relaxed); }
  bool any_idle() const { return idle_.load(std::memory_order_relaxed) > 0; }

 private:
  const std::size_t max_;
  std::atomic<std::size_t> held_{0};
  std::atomic<std::size_t> idle_{0};
};

}  // namespace ringcast
