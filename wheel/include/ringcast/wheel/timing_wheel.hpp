// A hierarchical hashed timing wheel with intrusive nodes.
//
// Contracts
// ---------
// * A `timer_node` is embedded in its owner (a session, a connection). The wheel never allocates
//   per node: schedule, move and cancel relink the node in O(1).
// * The wheel is driven by its owner: `advance(now, on_expire)` processes every tick that came due
//   since the last call, in tick order, and calls `on_expire(node)` for each node due in that tick.
//   Time is passed in (a steady clock's time_point), so tests drive it with a simulated clock.
// * Never early: a node scheduled for deadline D fires in the first `advance(now)` with now >= D.
//   At most one tick late: it fires at the first tick boundary at or after D
//   (epoch + k * tick, k = ceil((D - epoch) / tick)). A deadline at or before the last processed
//   tick fires at the next tick.
// * Any delay works, from 0 to centuries: the slot ring is repeated in enough levels to cover the
//   whole 64-bit tick range (Varghese & Lauck scheme 7). A node far in the future sits in a coarse
//   level and is cascaded to a finer one when its coarse slot comes due; it cascades at most once
//   per level, and it always fires in exactly its own tick. See docs/wheel.md for the choice.
// * Inside `on_expire` any node may be scheduled, moved or cancelled, including the one firing
//   and the ones still waiting in the same tick. A waiting node that is cancelled does not fire;
//   one that is moved fires at its new deadline; one that is scheduled for the current tick or
//   earlier fires at the next tick (so a callback re-arming itself with delay 0 cannot livelock).
// * A node must not be destroyed while armed (asserted in debug builds): cancel it first.
// * Not thread-safe: one wheel per event loop, used from that loop only.
#pragma once

#include <cassert>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace ringcast {

class timing_wheel;

// The intrusive hook. 32 bytes: two links, the deadline in ticks, the slot it sits in, and a
// 32-bit tag the owner may use freely (e.g. to tell which of its timers this node is).
class timer_node {
 public:
  timer_node() = default;
  timer_node(const timer_node&) = delete;
  timer_node& operator=(const timer_node&) = delete;
  ~timer_node() { assert(!armed() && "cancel a timer_node before destroying it"); }

  bool armed() const { return slot_ != unarmed_slot; }

 private:
  friend class timing_wheel;
  static constexpr std::uint32_t unarmed_slot = ~std::uint32_t{0};

  timer_node* next_ = nullptr;
  timer_node* prev_ = nullptr;
  std::uint64_t deadline_tick_ = 0;
  std::uint32_t slot_ = unarmed_slot;

 public:
  std::uint32_t tag = 0;  // the owner's, untouched by the wheel
};

static_assert(sizeof(timer_node) <= 32, "the node's own cost is at most 32 bytes");

class timing_wheel {
 public:
  using clock = std::chrono::steady_clock;
  using time_point = clock::time_point;
  using duration = clock::duration;

  struct counters {
    std::uint64_t scheduled = 0;  // an unarmed node armed
    std::uint64_t moved = 0;      // an armed node given a new deadline
    std::uint64_t cancelled = 0;  // an armed node disarmed before firing
    std::uint64_t fired = 0;      // a node handed to on_expire
    std::uint64_t cascaded = 0;   // a node moved from a coarse level to a finer one
  };

  // `tick` is rounded up to at least 1 ns; `slots` is normalised to a power of two in
  // [16, 65536]. Tick 0 is `epoch`.
  timing_wheel(time_point epoch, duration tick, std::uint32_t slots);
  timing_wheel(const timing_wheel&) = delete;
  timing_wheel& operator=(const timing_wheel&) = delete;
  ~timing_wheel();

  // Arms `node` for `deadline`; if it is already armed this is a move.
  void schedule(timer_node& node, time_point deadline);
  // Gives an armed node a new deadline in O(1) without disarming it; an unarmed node is scheduled.
  void move(timer_node& node, time_point deadline) { schedule(node, deadline); }
  // Disarms `node`. Returns whether it was armed; cancelling an unarmed node does nothing.
  bool cancel(timer_node& node);
  static bool armed(const timer_node& node) { return node.armed(); }

  // Processes every tick up to `now`, calling on_expire(timer_node&) for each node that comes
  // due, in deadline order. Returns the number of nodes fired. on_expire must not throw and must
  // not call advance().
  template <class OnExpire>
  std::size_t advance(time_point now, OnExpire&& on_expire) {
    std::size_t fired = 0;
    const std::uint64_t target = tick_at_or_before(now);
    while (begin_next_tick(target)) {
      while (timer_node* node = pop_expiring()) {
        ++fired;
        on_expire(*node);
      }
    }
    return fired;
  }

  // When the next tick with work (an expiry or a cascade) is due, or nullopt if nothing is armed.
  // The owner arms its one event-loop timer for this instant.
  std::optional<time_point> next_due() const;

  // The instant at which an armed node will fire (the end of its tick); time_point::max() if that
  // lies beyond what a time_point can hold.
  time_point due_time(const timer_node& node) const {
    return time_of_saturated(node.deadline_tick_);
  }

  // Introspection, cheap to read (for the admin page's picture of the wheel).
  std::uint64_t current_tick() const { return current_tick_; }
  duration tick_length() const { return tick_; }
  std::uint32_t slot_count() const { return slot_count_; }
  std::uint32_t level_count() const { return levels_; }
  std::size_t size() const { return size_; }
  const counters& stats() const { return counters_; }
  // Nodes per slot at `level` (slot_count() entries); slot (current_tick() >> level*bits) & mask
  // is the hand's position at that level.
  std::span<const std::uint32_t> occupancy(std::uint32_t level = 0) const {
    return {occupancy_.data() + std::size_t{level} * slot_count_, slot_count_};
  }
  // Bytes of bookkeeping the wheel itself holds (slot heads, counts, bitmaps), independent of
  // how many nodes are armed.
  std::size_t footprint_bytes() const;

 private:
  std::uint64_t tick_at_or_before(time_point t) const;
  std::uint64_t tick_at_or_after(time_point t) const;
  time_point time_of(std::uint64_t tick) const {
    return epoch_ + tick_ * static_cast<duration::rep>(tick);
  }
  time_point time_of_saturated(std::uint64_t tick) const;

  std::uint32_t slot_for(std::uint64_t deadline_tick) const;
  std::uint64_t& occupied_word(std::uint32_t slot) {
    return bitmap_[(slot >> bits_) * words_per_level_ + (slot & (slot_count_ - 1)) / 64];
  }
  std::uint64_t occupied_bit(std::uint32_t slot) const {
    return std::uint64_t{1} << ((slot & (slot_count_ - 1)) % 64);
  }
  void link(timer_node& node, std::uint32_t slot);
  void unlink(timer_node& node);
  std::optional<std::uint32_t> first_occupied(std::uint32_t level, std::uint32_t from,
                                              std::uint32_t to) const;
  std::optional<std::uint64_t> next_work_tick() const;
  bool begin_next_tick(std::uint64_t target);
  void cascade(std::uint32_t slot);
  timer_node* pop_expiring();

  const time_point epoch_;
  const duration tick_;
  std::uint32_t slot_count_;
  std::uint32_t bits_;           // log2(slot_count_)
  std::uint32_t levels_;         // enough levels of slot_count_ slots to cover 64-bit ticks
  std::uint32_t expiring_slot_;  // one extra slot: the batch of the tick being expired

  std::uint64_t current_tick_ = 0;
  std::size_t size_ = 0;
  counters counters_;

  std::vector<timer_node*> heads_;        // levels_ * slot_count_ + 1 circular lists
  std::vector<std::uint32_t> occupancy_;  // nodes per slot, same indexing
  std::vector<std::uint64_t> bitmap_;     // occupied slots, levels_ * words_per_level_
  std::uint32_t words_per_level_;
};

}  // namespace ringcast
