#include "core/schedule_poll.hpp"

namespace ringcast {

schedule_poll::schedule_poll(std::chrono::milliseconds period, loop_timers& timers, claim_fn claim)
    : loop_timer(timers), period_(period), claim_(std::move(claim)) {}

schedule_poll::~schedule_poll() {
  *self_ = nullptr;
}

void schedule_poll::start() {
  arm_at(timers().now());
}

void schedule_poll::arm_at(time_point when) {
  deadline_ = when;
  loop_timer::arm_at(when);
}

void schedule_poll::expect(time_point due) {
  if (in_flight_) {
    expected_ = expected_ ? std::min(*expected_, due) : due;
    return;
  }
  if (!armed() || due < deadline_) arm_at(due);
}

void schedule_poll::on_timer(time_point) {
  in_flight_ = true;
  claim_([self = self_](answer a) {
    if (*self) (*self)->answered(a);
  });
}

void schedule_poll::answered(const answer& a) {
  in_flight_ = false;
  const time_point now = timers().now();
  time_point next = now + period_;
  if (a.ok && a.more) next = now;
  if (a.ok && a.next_due) next = std::min(next, now + *a.next_due);
  if (expected_) next = std::min(next, *expected_);
  expected_.reset();
  arm_at(next);
}

}  // namespace ringcast
