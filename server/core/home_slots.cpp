#include "core/home_slots.hpp"

#include <functional>
#include <stdexcept>

namespace ringcast {

home_slots::home_slots(std::size_t loops) : slots_(slot_count) {
  if (loops == 0 || loops > loop_mask + 1) throw std::invalid_argument("home_slots: loop count");
}

std::size_t home_slots::slot_of(std::string_view user) {
  return std::hash<std::string_view>{}(user) & (slot_count - 1);
}

std::size_t home_slots::take(std::size_t slot, std::size_t here) {
  auto& word = slots_[slot];
  std::uint64_t seen = word.load(std::memory_order_relaxed);
  for (;;) {
    const std::uint64_t next = seen == 0 ? one | here : seen + one;
    // acq_rel: a loop that takes a free slot is seen as its holder by every later taker.
    if (word.compare_exchange_weak(seen, next, std::memory_order_acq_rel,
                                   std::memory_order_relaxed))
      return next & loop_mask;
  }
}

void home_slots::release_slot(std::size_t slot) {
  auto& word = slots_[slot];
  std::uint64_t seen = word.load(std::memory_order_relaxed);
  for (;;) {
    // The last count frees the slot, holder and all: the next connect may take it anywhere.
    const std::uint64_t next = seen < 2 * one ? 0 : seen - one;
    if (word.compare_exchange_weak(seen, next, std::memory_order_acq_rel,
                                   std::memory_order_relaxed))
      return;
  }
}

home_slots::home home_slots::hold(std::string_view user, std::size_t here) {
  const std::size_t slot = slot_of(user);
  return {take(slot, here), ticket(this, slot)};
}

bool home_slots::count_session(std::string_view user, std::size_t here) {
  const std::size_t slot = slot_of(user);
  if (take(slot, here) == here) return true;
  release_slot(slot);
  return false;
}

std::optional<std::size_t> home_slots::holder(std::string_view user) const {
  const std::uint64_t word = slots_[slot_of(user)].load(std::memory_order_acquire);
  if (word == 0) return std::nullopt;
  return word & loop_mask;
}

}  // namespace ringcast
