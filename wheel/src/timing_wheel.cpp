#include "ringcast/wheel/timing_wheel.hpp"

#include <algorithm>
#include <bit>
#include <limits>

namespace ringcast {
namespace {

constexpr std::uint32_t min_slots = 16;
constexpr std::uint32_t max_slots = 65536;

std::uint32_t normalise_slot_count(std::uint32_t slots) {
  return std::bit_ceil(std::clamp(slots, min_slots, max_slots));
}

}  // namespace

timing_wheel::timing_wheel(time_point epoch, duration tick, std::uint32_t slots)
    : epoch_(epoch),
      tick_(std::max(tick, duration{1})),
      slot_count_(normalise_slot_count(slots)),
      bits_(static_cast<std::uint32_t>(std::countr_zero(slot_count_))),
      levels_(63 / bits_ + 1),
      expiring_slot_(levels_ * slot_count_),
      heads_(std::size_t{levels_} * slot_count_ + 1, nullptr),
      occupancy_(heads_.size(), 0),
      words_per_level_(std::max<std::uint32_t>(1, slot_count_ / 64)) {
  bitmap_.assign(std::size_t{levels_} * words_per_level_, 0);
}

timing_wheel::~timing_wheel() {
  // Owners may outlive the wheel; leave their nodes disarmed rather than dangling.
  for (timer_node* head : heads_) {
    if (!head) continue;
    timer_node* node = head;
    do {
      node->slot_ = timer_node::unarmed_slot;
      node = node->next_;
    } while (node != head);
  }
}

std::uint64_t timing_wheel::tick_at_or_before(time_point t) const {
  if (t <= epoch_) return 0;
  return static_cast<std::uint64_t>((t - epoch_) / tick_);
}

std::uint64_t timing_wheel::tick_at_or_after(time_point t) const {
  if (t <= epoch_) return 0;
  const duration since = t - epoch_;
  const auto whole = static_cast<std::uint64_t>(since / tick_);
  return since % tick_ == duration::zero() ? whole : whole + 1;
}

// The level comes from the distance to the deadline: level L holds nodes due in [S^L, S^(L+1))
// ticks (S = slots), in the slot of the deadline's digit at L. Rings are circular: a node sits in
// its slot until the next time the current tick enters a block of S^L ticks with that digit, which
// is the start of the block holding its deadline, and is cascaded then. Placing by distance rather
// than by the highest digit in which deadline and current tick differ keeps short timeouts out of
// the high levels, so no aligned boundary (S^2, S^3, ...) makes everything cascade at once.
std::uint32_t timing_wheel::slot_for(std::uint64_t deadline_tick) const {
  const std::uint64_t distance = deadline_tick - current_tick_;
  const std::uint32_t level =
      distance < slot_count_ ? 0
                             : static_cast<std::uint32_t>(63 - std::countl_zero(distance)) / bits_;
  const auto index =
      static_cast<std::uint32_t>(deadline_tick >> (level * bits_)) & (slot_count_ - 1);
  return level * slot_count_ + index;
}

void timing_wheel::link(timer_node& node, std::uint32_t slot) {
  timer_node*& head = heads_[slot];
  if (!head) {
    node.next_ = node.prev_ = &node;
    head = &node;
  } else {  // append at the tail: nodes of one tick fire in the order they were armed
    timer_node* tail = head->prev_;
    tail->next_ = &node;
    node.prev_ = tail;
    node.next_ = head;
    head->prev_ = &node;
  }
  node.slot_ = slot;
  if (occupancy_[slot]++ == 0 && slot != expiring_slot_) occupied_word(slot) |= occupied_bit(slot);
}

void timing_wheel::unlink(timer_node& node) {
  const std::uint32_t slot = node.slot_;
  timer_node*& head = heads_[slot];
  if (node.next_ == &node) {
    head = nullptr;
  } else {
    node.prev_->next_ = node.next_;
    node.next_->prev_ = node.prev_;
    if (head == &node) head = node.next_;
  }
  node.next_ = node.prev_ = nullptr;
  node.slot_ = timer_node::unarmed_slot;
  if (--occupancy_[slot] == 0 && slot != expiring_slot_) occupied_word(slot) &= ~occupied_bit(slot);
}

void timing_wheel::schedule(timer_node& node, time_point deadline) {
  // A deadline that is not after the last processed tick fires at the next one.
  const std::uint64_t tick = std::max(tick_at_or_after(deadline), current_tick_ + 1);
  if (node.armed()) {
    ++counters_.moved;
    const std::uint32_t slot = slot_for(tick);
    node.deadline_tick_ = tick;
    if (slot == node.slot_) return;  // same bucket: nothing to relink
    unlink(node);
    link(node, slot);
    return;
  }
  ++counters_.scheduled;
  ++size_;
  node.deadline_tick_ = tick;
  link(node, slot_for(tick));
}

bool timing_wheel::cancel(timer_node& node) {
  if (!node.armed()) return false;
  unlink(node);
  --size_;
  ++counters_.cancelled;
  return true;
}

// The first occupied slot of `level` in [from, to), if any.
std::optional<std::uint32_t> timing_wheel::first_occupied(std::uint32_t level, std::uint32_t from,
                                                          std::uint32_t to) const {
  const std::uint64_t* words = bitmap_.data() + std::size_t{level} * words_per_level_;
  for (std::uint32_t word = from / 64; word * 64 < to; ++word) {
    std::uint64_t bits = words[word];
    if (word == from / 64) bits &= ~std::uint64_t{0} << (from % 64);
    if (bits == 0) continue;
    const auto index = word * 64 + static_cast<std::uint32_t>(std::countr_zero(bits));
    return index < to ? std::optional(index) : std::nullopt;
  }
  return std::nullopt;
}

// Each level's next work is its first occupied slot after the hand, going round the ring: that
// slot's moment is the next tick at which the current tick enters a block of S^L ticks with the
// slot's digit. The earliest over the levels wins. A level's moments are multiples of S^L, so once
// the earliest found is no later than the next such multiple, no higher level can come sooner.
std::optional<std::uint64_t> timing_wheel::next_work_tick() const {
  std::optional<std::uint64_t> earliest;
  for (std::uint32_t level = 0; level < levels_; ++level) {
    const std::uint32_t shift = level * bits_;
    const std::uint32_t block_shift = shift + bits_;
    const std::uint64_t next_boundary = ((current_tick_ >> shift) + 1) << shift;
    if (earliest && *earliest <= next_boundary) break;
    const auto hand = static_cast<std::uint32_t>(current_tick_ >> shift) & (slot_count_ - 1);
    auto index = first_occupied(level, hand + 1, slot_count_);
    bool next_revolution = false;
    if (!index) {
      index = first_occupied(level, 0, hand + 1);
      next_revolution = true;
    }
    if (!index) continue;
    const std::uint64_t block_start =
        block_shift >= 64 ? 0 : (current_tick_ >> block_shift) << block_shift;
    std::uint64_t tick = block_start + (std::uint64_t{*index} << shift);
    // The top level spans every tick there is: its ring never comes round again.
    if (next_revolution && block_shift < 64) tick += std::uint64_t{1} << block_shift;
    if (!earliest || tick < *earliest) earliest = tick;
  }
  return earliest;
}

// A deadline near time_point::max() rounds up to a tick whose start time_point cannot hold.
timing_wheel::time_point timing_wheel::time_of_saturated(std::uint64_t tick) const {
  const auto max_ticks = static_cast<std::uint64_t>((time_point::max() - epoch_) / tick_);
  return tick > max_ticks ? time_point::max() : time_of(tick);
}

std::optional<timing_wheel::time_point> timing_wheel::next_due() const {
  const auto tick = next_work_tick();
  if (!tick) return std::nullopt;
  return time_of_saturated(*tick);
}

bool timing_wheel::begin_next_tick(std::uint64_t target) {
  assert(!heads_[expiring_slot_] && "advance() called from inside on_expire");
  const auto tick = next_work_tick();
  if (!tick || *tick > target) {
    current_tick_ = std::max(current_tick_, target);
    return false;
  }
  current_tick_ = *tick;
  // Cascade every level whose block starts at this tick. The order does not matter: a node comes
  // from a block that starts now, so it is due less than S^L ticks from now and lands in a lower
  // level, in a slot other than the one cascading there (or in level 0's current slot, due now).
  for (std::uint32_t level = levels_ - 1; level > 0; --level) {
    const std::uint32_t shift = level * bits_;
    if ((current_tick_ & ((std::uint64_t{1} << shift) - 1)) != 0) continue;
    cascade(level * slot_count_ +
            (static_cast<std::uint32_t>(current_tick_ >> shift) & (slot_count_ - 1)));
  }
  // Hand the level-0 slot over to the expiring batch, so callbacks may cancel or move any of it.
  // The list moves whole; only each node's slot index is rewritten.
  const auto slot = static_cast<std::uint32_t>(current_tick_) & (slot_count_ - 1);
  if (timer_node* head = heads_[slot]) {
    timer_node* node = head;
    do {
      node->slot_ = expiring_slot_;
      node = node->next_;
    } while (node != head);
    heads_[expiring_slot_] = head;
    occupancy_[expiring_slot_] = occupancy_[slot];
    heads_[slot] = nullptr;
    occupancy_[slot] = 0;
    occupied_word(slot) &= ~occupied_bit(slot);
  }
  return true;
}

void timing_wheel::cascade(std::uint32_t slot) {
  timer_node* node = heads_[slot];
  if (!node) return;
  // Detach the whole list, then relink each node where it now belongs: no unlinking one by one.
  counters_.cascaded += occupancy_[slot];
  heads_[slot] = nullptr;
  occupancy_[slot] = 0;
  occupied_word(slot) &= ~occupied_bit(slot);
  node->prev_->next_ = nullptr;
  while (node) {
    timer_node* next = node->next_;
    link(*node, slot_for(node->deadline_tick_));
    node = next;
  }
}

timer_node* timing_wheel::pop_expiring() {
  timer_node* node = heads_[expiring_slot_];
  if (!node) return nullptr;
  unlink(*node);
  --size_;
  ++counters_.fired;
  return node;
}

std::size_t timing_wheel::footprint_bytes() const {
  return sizeof(*this) + heads_.capacity() * sizeof(timer_node*) +
         occupancy_.capacity() * sizeof(std::uint32_t) + bitmap_.capacity() * sizeof(std::uint64_t);
}

}  // namespace ringcast
