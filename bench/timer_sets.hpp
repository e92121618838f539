// Four ways to keep n timers behind one small interface, so that every benchmark runs exactly
// the same steps on each. Timer i belongs to owner i; deadlines are given in ticks ahead of the
// set's current tick (at least 1).
#pragma once

#include <boost/asio/basic_waitable_timer.hpp>
#include <boost/asio/io_context.hpp>

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "ringcast/wheel/timing_wheel.hpp"
#include "rounds_wheel.hpp"

namespace ringcast::bench {

using namespace std::chrono_literals;

// The server's defaults: 512 slots per level (also Netty's default wheel size).
constexpr std::uint32_t wheel_slots = 512;

// ringcast's hierarchical wheel, on a simulated clock of 1 ms ticks.
template <std::uint32_t Slots = wheel_slots>
class hierarchical_set {
 public:
  explicit hierarchical_set(std::size_t n) : nodes_(n), wheel_(epoch, 1ms, Slots) {
    for (std::size_t i = 0; i < n; ++i) {
      nodes_[i].tag = static_cast<std::uint32_t>(i);
    }
  }
  void schedule(std::size_t i, std::uint64_t ahead) { wheel_.schedule(nodes_[i], at(ahead)); }
  void move(std::size_t i, std::uint64_t ahead) { wheel_.move(nodes_[i], at(ahead)); }
  void cancel(std::size_t i) { wheel_.cancel(nodes_[i]); }
  void settle() {}
  // Moves the clock to `tick` while nothing is armed.
  void start_at(std::uint64_t tick) {
    now_ = tick;
    wheel_.advance(at(0), [](timer_node&) {});
  }
  // Advances one tick; each timer that fires is re-armed `rearm` ticks ahead (0: not re-armed).
  std::size_t tick(std::uint64_t rearm = 0) {
    ++now_;
    return wheel_.advance(at(0), [&](timer_node& node) {
      if (rearm) wheel_.schedule(node, at(rearm));
    });
  }

 private:
  static inline const timing_wheel::time_point epoch{};
  timing_wheel::time_point at(std::uint64_t ahead) const {
    return epoch + 1ms * static_cast<std::int64_t>(now_ + ahead);
  }

  std::vector<timer_node> nodes_;  // before the wheel, which disarms them when it goes
  timing_wheel wheel_;
  std::uint64_t now_ = 0;
};

// A Netty-style single-level wheel with remaining rounds (rounds_wheel.hpp).
class rounds_set {
 public:
  explicit rounds_set(std::size_t n) : nodes_(n), wheel_(wheel_slots) {}
  void schedule(std::size_t i, std::uint64_t ahead) { wheel_.schedule(nodes_[i], now() + ahead); }
  void move(std::size_t i, std::uint64_t ahead) { wheel_.schedule(nodes_[i], now() + ahead); }
  void cancel(std::size_t i) { wheel_.cancel(nodes_[i]); }
  void settle() {}
  void start_at(std::uint64_t tick) {
    wheel_.advance(tick, [](rounds_node&) {});
  }
  std::size_t tick(std::uint64_t rearm = 0) {
    return wheel_.advance(now() + 1, [&](rounds_node& node) {
      if (rearm) wheel_.schedule(node, now() + rearm);
    });
  }

 private:
  std::uint64_t now() const { return wheel_.current_tick(); }

  std::vector<rounds_node> nodes_;
  rounds_wheel wheel_;
};

// An ordered map from deadline to owner, each owner keeping its iterator: O(log n), one
// allocation per armed timer. A move re-keys the map node in place (extract + insert), without
// allocating: the map's best case.
class multimap_set {
 public:
  using map = std::multimap<std::uint64_t, std::size_t>;

  explicit multimap_set(std::size_t n) : where_(n, map_.end()) {}
  void schedule(std::size_t i, std::uint64_t ahead) { where_[i] = map_.emplace(now_ + ahead, i); }
  void move(std::size_t i, std::uint64_t ahead) { rekey(i, now_ + ahead); }
  void cancel(std::size_t i) {
    if (where_[i] == map_.end()) return;
    map_.erase(where_[i]);
    where_[i] = map_.end();
  }
  void settle() {}
  void start_at(std::uint64_t tick) { now_ = tick; }
  std::size_t tick(std::uint64_t rearm = 0) {
    ++now_;
    std::size_t fired = 0;
    while (!map_.empty() && map_.begin()->first <= now_) {
      const std::size_t i = map_.begin()->second;
      ++fired;
      if (rearm) {
        rekey(i, now_ + rearm);
      } else {
        map_.erase(map_.begin());
        where_[i] = map_.end();
      }
    }
    return fired;
  }

 private:
  void rekey(std::size_t i, std::uint64_t deadline) {
    auto handle = map_.extract(where_[i]);
    handle.key() = deadline;
    where_[i] = map_.insert(std::move(handle));
  }

  map map_;
  std::vector<map::iterator> where_;
  std::uint64_t now_ = 0;
};

// A clock for Asio's timers that moves only when the benchmark says so: asio_set runs every
// workload on simulated ticks like the other sets. One set at a time uses it.
struct simulated_clock {
  using duration = std::chrono::milliseconds;
  using rep = duration::rep;
  using period = duration::period;
  using time_point = std::chrono::time_point<simulated_clock>;
  static constexpr bool is_steady = true;
  static time_point now() noexcept { return time_point{duration{ticks}}; }
  static inline rep ticks = 0;
};

// One Asio waitable timer per owner on an io_context of its own, as a server that gave each
// session its own timer would do (boost::asio::steady_timer, on the simulated clock above).
// Asio keeps the timers in a binary heap. Cancelling (also by expires_at on a waiting timer)
// queues an operation_aborted completion that the loop must still run: settle() runs them, inside
// the measured time, because a real loop pays for them too.
//
// Asio's reactor looks at its heap when its timerfd fires, and the timerfd runs on the real
// clock. So a tick moves the simulated clock and arms one more timer, `wake_`, due now: arming the
// earliest timer sets the timerfd, which wakes the loop, which then runs every timer due by now.
// That is the wake-up a real Asio loop pays once per tick with work (one timerfd_settime).
class asio_set {
 public:
  using timer = boost::asio::basic_waitable_timer<simulated_clock>;

  explicit asio_set(std::size_t n) : io_(1), wake_(io_) {
    simulated_clock::ticks = 0;
    timers_.reserve(n);
    for (std::size_t i = 0; i < n; ++i)
      timers_.emplace_back(io_);
  }
  ~asio_set() {
    for (auto& t : timers_)
      t.cancel();
    wake_.cancel();
    settle();
  }
  void schedule(std::size_t i, std::uint64_t ahead) { arm(i, ahead); }
  void move(std::size_t i, std::uint64_t ahead) { arm(i, ahead); }  // expires_at cancels the wait
  void cancel(std::size_t i) { timers_[i].cancel(); }
  void settle() {
    io_.poll();
    if (io_.stopped()) io_.restart();
  }
  // Moves the clock to `tick` while nothing is armed.
  void start_at(std::uint64_t tick) {
    simulated_clock::ticks = static_cast<simulated_clock::rep>(tick);
  }
  // Advances one tick; each timer that fires is re-armed `rearm` ticks ahead (0: not re-armed).
  std::size_t tick(std::uint64_t rearm = 0) {
    ++simulated_clock::ticks;
    rearm_ = rearm;
    fired_ = 0;
    bool woke = false;
    wake_.expires_at(simulated_clock::now());
    wake_.async_wait([&woke](const boost::system::error_code&) { woke = true; });
    // Every timer due by now is handed over in the same batch as wake_; poll() runs the batch.
    while (!woke)
      settle();
    return fired_;
  }

 private:
  void arm(std::size_t i, std::uint64_t ahead) {
    auto& t = timers_[i];
    t.expires_at(simulated_clock::now() +
                 simulated_clock::duration{static_cast<simulated_clock::rep>(ahead)});
    t.async_wait([this, i](const boost::system::error_code& ec) {
      if (ec) return;
      ++fired_;
      if (rearm_) arm(i, rearm_);
    });
  }

  boost::asio::io_context io_;
  timer wake_;
  std::vector<timer> timers_;
  std::uint64_t rearm_ = 0;
  std::size_t fired_ = 0;
};

}  // namespace ringcast::bench
