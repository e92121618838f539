#include "core/loop_timers.hpp"

namespace ringcast {

loop_clock::time_point system_clocks::now() const {
  return std::chrono::steady_clock::now();
}

std::int64_t system_clocks::unix_us() const {
  return std::chrono::duration_cast<std::chrono::microseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

loop_timers::loop_timers(const loop_clock& clock, time_point epoch, duration tick,
                         std::uint32_t slots, std::function<void(time_point)> on_earlier_wake)
    : clock_(clock), wheel_(epoch, tick, slots), on_earlier_wake_(std::move(on_earlier_wake)) {}

void loop_timers::arm(timed& t, time_point deadline) {
  wheel_.schedule(t, deadline);
  const time_point due = wheel_.due_time(t);
  if (due < wake_at_) {
    wake_at_ = due;
    if (on_earlier_wake_) on_earlier_wake_(due);
  }
}

loop_timers::time_point loop_timers::advance(time_point now) {
  wheel_.advance(now, [now](timer_node& node) { static_cast<timed&>(node).on_timer(now); });
  wake_at_ = wheel_.next_due().value_or(time_point::max());
  return wake_at_;
}

}  // namespace ringcast
