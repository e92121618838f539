// The schedule's part of the handover to a new binary (docs/operations.md, "Upgrading"): each
// waiting promotion's record (upgrade/promotion_record.hpp) carried whole, beside its slot and
// its time on the wheel.
#include <boost/pfr/core.hpp>

#include "core/handover_messages.hpp"
#include "core/schedule.hpp"
#include "upgrade/record_walk.hpp"

namespace ringcast {

// A field added to these fails the build here until capture and restore carry it (a promotion's
// own fields are in its record, which they carry whole).
static_assert(boost::pfr::tuple_size_v<upgrade::schedule_state> == 2 &&
              boost::pfr::tuple_size_v<upgrade::promotion_state> == 3);

upgrade::schedule_state schedule::capture(time_point now) const {
  upgrade::schedule_state out;
  out.generations.reserve(slots_used_);
  for (std::uint32_t slot = 0; slot < slots_used_; ++slot) {
    const entry& e = at(slot);
    out.generations.push_back(e.generation);
    if (!e.armed()) continue;
    upgrade::promotion_state& p = out.waiting.emplace_back();
    p.slot = slot;
    p.due = relative_to(timers_.wheel().due_time(e), now);
    upgrade::carry(static_cast<const upgrade::promotion_record&>(e), p.record);
  }
  return out;
}

void schedule::restore(const upgrade::schedule_state& state, time_point now) {
  if (slots_used_ != 0) return;
  slots_used_ = static_cast<std::uint32_t>(state.generations.size());
  for (std::uint32_t slot = 0; slot < slots_used_; slot += chunk_size)
    chunks_.push_back(std::make_unique<entry[]>(chunk_size));
  for (std::uint32_t slot = 0; slot < slots_used_; ++slot) {
    entry& e = at(slot);
    e.owner_ = this;
    e.tag = slot;
    e.generation = state.generations[slot];
  }
  for (const auto& p : state.waiting) {  // the codec checked: slots in range, each once
    entry& e = at(p.slot);
    upgrade::carry(p.record, static_cast<upgrade::promotion_record&>(e));
    ++size_;
    timers_.arm(e, absolute_from(p.due, now));
  }
  // Free slots are reused last-freed first: the lowest slot is handed out next.
  for (std::uint32_t slot = slots_used_; slot-- > 0;) {
    if (at(slot).request_json.empty()) free_.push_back(slot);
  }
}

}  // namespace ringcast
