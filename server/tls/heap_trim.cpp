#include "heap_trim.hpp"

#include <boost/asio/steady_timer.hpp>

#include <malloc.h>

#include <memory>

namespace ringcast {

bool trim_schedule::handshake_ended(clock::time_point now) {
  const std::lock_guard lock(mutex_);
  last_handshake_ = now;
  if (timer_running_) return false;
  timer_running_ = true;
  first_untrimmed_ = now;
  return true;
}

std::optional<trim_schedule::clock::duration> trim_schedule::timer_fired(clock::time_point now) {
  const std::lock_guard lock(mutex_);
  const auto quiet_at = last_handshake_ + quiet_;
  if (now < quiet_at && now < first_untrimmed_ + longest_wait_)
    return std::min(quiet_at, first_untrimmed_ + longest_wait_) - now;
  timer_running_ = false;
  return std::nullopt;
}

void trim_schedule::timer_lost() {
  const std::lock_guard lock(mutex_);
  timer_running_ = false;
}

namespace {

trim_schedule& process_schedule() {
  static trim_schedule schedule(std::chrono::seconds(1), std::chrono::seconds(10));
  return schedule;
}

// The timer and whether it went off, for as long as its handler exists: an event loop destroyed
// with the timer pending destroys the handler without calling it, and the schedule must know.
struct trim_timer {
  trim_timer(const boost::asio::any_io_executor& loop, trim_schedule::clock::duration delay)
      : timer(loop, delay) {}
  trim_timer(const trim_timer&) = delete;
  trim_timer& operator=(const trim_timer&) = delete;
  ~trim_timer() {
    if (!fired) process_schedule().timer_lost();
  }
  boost::asio::steady_timer timer;
  bool fired = false;
};

void wait_then_trim(const boost::asio::any_io_executor& loop,
                    trim_schedule::clock::duration delay) {
  auto t = std::make_shared<trim_timer>(loop, delay);
  t->timer.async_wait([t, loop](const boost::system::error_code& ec) {
    t->fired = true;
    trim_schedule& schedule = process_schedule();
    if (ec) return schedule.timer_lost();
    if (const auto again = schedule.timer_fired(trim_schedule::clock::now()))
      return wait_then_trim(loop, *again);
    malloc_trim(0);
  });
}

}  // namespace

void note_handshake_ended(const boost::asio::any_io_executor& loop) {
  trim_schedule& schedule = process_schedule();
  if (schedule.handshake_ended(trim_schedule::clock::now())) wait_then_trim(loop, schedule.quiet());
}

}  // namespace ringcast
