// The timer service of one event loop: its timing wheel, the wake-up of the loop's one Asio timer,
// and the loop's clocks. Everything on a loop that waits for a time (a session, a connection's
// handshake or write, a message's ttl, a hook's flush or retry, a promotion) is a `timed` node
// armed here, and everything that asks what time it is asks here: the steady `now()` that the
// wheel runs on and the wall `unix_ms()` (tokens' `exp`, promotions' `at`, event timestamps).
// Both come from one `loop_clock`, so a test on a `simulated_clock` moves them together and no
// code under test reads the real clocks (this file's system_clocks is the only reader).
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>

#include "ringcast/wheel/timing_wheel.hpp"

namespace ringcast {

// A steady clock for deadlines and a wall clock for what clients and operators see as time.
class loop_clock {
 public:
  using time_point = timing_wheel::time_point;
  virtual time_point now() const = 0;
  virtual std::int64_t unix_us() const = 0;  // the wall clock, Unix microseconds
  std::int64_t unix_ms() const { return unix_us() / 1000; }

 protected:
  ~loop_clock() = default;
};

// The process's real clocks.
class system_clocks final : public loop_clock {
 public:
  time_point now() const override;
  std::int64_t unix_us() const override;
};

// Time that moves only when a test says so; the wall clock moves with the steady one unless a
// test sets it apart (an operator setting the clock back).
class simulated_clock final : public loop_clock {
 public:
  static constexpr std::int64_t default_unix_ms = 1'700'000'000'000;  // 2023-11-14
  explicit simulated_clock(time_point start = {}, std::int64_t unix_ms_at_start = default_unix_ms)
      : now_(start), wall_at_start_(unix_ms_at_start), start_(start) {}

  time_point now() const override { return now_; }
  std::int64_t unix_us() const override {
    return wall_at_start_ * 1000 +
           std::chrono::duration_cast<std::chrono::microseconds>(now_ - start_).count();
  }
  // Both clocks move to `t` (never back).
  void set(time_point t) { now_ = t; }
  void advance(timing_wheel::duration d) { now_ += d; }
  // The wall clock alone jumps by `d` (negative: set back).
  void shift_wall(std::chrono::milliseconds d) { wall_at_start_ += d.count(); }

 private:
  time_point now_;
  std::int64_t wall_at_start_;
  time_point start_;
};

// Anything with a timeout in a loop's wheel: the wheel hands back the node, this gives it a
// behaviour without growing the node itself (a session keeps this bare 32-byte node).
class timed : public timer_node {
 public:
  using time_point = timing_wheel::time_point;
  virtual void on_timer(time_point now) = 0;

 protected:
  ~timed() = default;
};

class loop_timers {
 public:
  using time_point = timing_wheel::time_point;
  using duration = timing_wheel::duration;

  // `epoch`: tick 0 of the wheel (the same for every loop of a node). `on_earlier_wake` is called
  // when a node is armed before the instant the last advance() returned: the loop re-arms its
  // one Asio timer then.
  loop_timers(const loop_clock& clock, time_point epoch, duration tick, std::uint32_t slots,
              std::function<void(time_point)> on_earlier_wake = {});
  loop_timers(const loop_timers&) = delete;
  loop_timers& operator=(const loop_timers&) = delete;

  time_point now() const { return clock_.now(); }
  std::int64_t unix_ms() const { return clock_.unix_ms(); }
  const loop_clock& clock() const { return clock_; }

  // Arms (or moves) a node; a node armed already is moved, nothing is allocated.
  void arm(timed& t, time_point deadline);
  void disarm(timed& t) { wheel_.cancel(t); }
  // Runs every node due by `now`; returns when the loop's timer should fire next (max: never).
  time_point advance(time_point now);
  time_point advance() { return advance(now()); }

  const timing_wheel& wheel() const { return wheel_; }

 private:
  const loop_clock& clock_;
  timing_wheel wheel_;
  std::function<void(time_point)> on_earlier_wake_;
  time_point wake_at_ = time_point::max();
};

// A timer owned by one object of the loop (a connection, a hook's outbox, a promotion poll):
// bound to the loop's timers once, and disarmed when its owner is destroyed, so an owner never
// has to remember to cancel it.
class loop_timer : public timed {
 public:
  explicit loop_timer(loop_timers& timers) : timers_(timers) {}
  loop_timer(const loop_timer&) = delete;
  loop_timer& operator=(const loop_timer&) = delete;

  void arm_at(time_point deadline) { timers_.arm(*this, deadline); }
  void arm_in(timing_wheel::duration d) { timers_.arm(*this, timers_.now() + d); }
  void disarm() { timers_.disarm(*this); }
  loop_timers& timers() const { return timers_; }

 protected:
  ~loop_timer() { timers_.disarm(*this); }

 private:
  loop_timers& timers_;
};

}  // namespace ringcast
