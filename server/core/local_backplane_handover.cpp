// The local backplane's part of the handover to a new binary (docs/operations.md, "Upgrading"):
// the id sequencer and the schedule, which alone are this process's to carry.
#include <algorithm>

#include "local_backplane.hpp"

namespace ringcast {

void local_backplane::hold_numbering(const std::function<void()>& f) {
  std::lock_guard lock(sequencer_);
  f();
}

void local_backplane::capture(upgrade::handover_state& state, timing_wheel::time_point now) {
  {
    std::lock_guard lock(sequencer_);
    state.last_id = last_id_;
  }
  state.schedule = schedule_->capture(now);
}

void local_backplane::restore(const upgrade::handover_state& state, timing_wheel::time_point now) {
  {
    std::lock_guard lock(sequencer_);
    last_id_ = std::max(last_id_, state.last_id);
  }
  schedule_->restore(state.schedule, now);
  waiting_.store(schedule_->size(), std::memory_order_relaxed);
}

}  // namespace ringcast
