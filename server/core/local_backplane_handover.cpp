// The local backplane's part of the handover to a new binary (docs/operations.md, "Upgrading"):
// the schedule, which alone is this process's to carry.
#include "core/local_backplane.hpp"

namespace ringcast {

void local_backplane::capture(upgrade::handover_state& state, timing_wheel::time_point now) {
  state.schedule = schedule_->capture(now);
}

void local_backplane::restore(const upgrade::handover_state& state, timing_wheel::time_point now) {
  schedule_->restore(state.schedule, now);
  waiting_.store(schedule_->size(), std::memory_order_relaxed);
}

}  // namespace ringcast
