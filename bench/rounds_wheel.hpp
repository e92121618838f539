// A single-level hashed wheel with "remaining rounds", as Netty's HashedWheelTimer: the
// comparison that justifies the hierarchical wheel (bench only, not for production use).
//
// A node lands in slot (deadline & mask) with `rounds` = the full turns it must still wait.
// Every tick walks its whole slot and decrements the rounds of the nodes not yet due, so a
// far-future node is paid for once per turn, and an idle wheel still walks every tick.
// Callbacks may only re-arm the node handed to them.
#pragma once

#include <bit>
#include <cstddef>
#include <cstdint>
#include <vector>

namespace ringcast::bench {

class rounds_node {
 public:
  bool armed() const { return slot_ != unarmed_slot; }

 private:
  friend class rounds_wheel;
  static constexpr std::uint32_t unarmed_slot = ~std::uint32_t{0};

  rounds_node* next_ = nullptr;
  rounds_node* prev_ = nullptr;
  std::uint64_t deadline_tick_ = 0;
  std::uint32_t rounds_ = 0;
  std::uint32_t slot_ = unarmed_slot;
};

class rounds_wheel {
 public:
  explicit rounds_wheel(std::uint32_t slots)
      : mask_(std::bit_ceil(slots) - 1), heads_(std::size_t{mask_} + 1, nullptr) {}

  // Arms `node` for `deadline_tick` (at least the next tick); an armed node is moved.
  void schedule(rounds_node& node, std::uint64_t deadline_tick) {
    if (node.armed()) unlink(node);
    if (deadline_tick <= current_) deadline_tick = current_ + 1;
    node.deadline_tick_ = deadline_tick;
    node.rounds_ = static_cast<std::uint32_t>((deadline_tick - current_ - 1) / (mask_ + 1));
    link(node, static_cast<std::uint32_t>(deadline_tick & mask_));
  }

  bool cancel(rounds_node& node) {
    if (!node.armed()) return false;
    unlink(node);
    return true;
  }

  // Walks every tick up to `target`, as Netty's worker thread does once per tick.
  template <class OnExpire>
  std::size_t advance(std::uint64_t target, OnExpire&& on_expire) {
    std::size_t fired = 0;
    while (current_ < target) {
      ++current_;
      const auto slot = static_cast<std::uint32_t>(current_ & mask_);
      // Detach the slot first, so a node re-armed into it is not walked again this tick, and
      // open the ring so the walk ends at its old tail.
      rounds_node* node = heads_[slot];
      heads_[slot] = nullptr;
      if (node) node->prev_->next_ = nullptr;
      while (node) {
        rounds_node* next = node->next_;
        node->slot_ = rounds_node::unarmed_slot;
        if (node->rounds_ == 0) {
          ++fired;
          on_expire(*node);
        } else {
          --node->rounds_;
          link(*node, slot);
        }
        node = next;
      }
    }
    return fired;
  }

  std::uint64_t current_tick() const { return current_; }

 private:
  void link(rounds_node& node, std::uint32_t slot) {
    rounds_node*& head = heads_[slot];
    if (!head) {
      node.next_ = node.prev_ = &node;
      head = &node;
    } else {
      node.prev_ = head->prev_;
      node.next_ = head;
      head->prev_->next_ = &node;
      head->prev_ = &node;
    }
    node.slot_ = slot;
  }

  void unlink(rounds_node& node) {
    rounds_node*& head = heads_[node.slot_];
    if (node.next_ == &node) {
      head = nullptr;
    } else {
      node.prev_->next_ = node.next_;
      node.next_->prev_ = node.prev_;
      if (head == &node) head = node.next_;
    }
    node.slot_ = rounds_node::unarmed_slot;
  }

  std::uint32_t mask_;
  std::vector<rounds_node*> heads_;
  std::uint64_t current_ = 0;
};

static_assert(sizeof(rounds_node) <= 32);

}  // namespace ringcast::bench
