// Shared by the wheel tests: a simulated clock written in ticks, and a recorder of firings.
#pragma once

#include <chrono>
#include <cstdint>
#include <ostream>
#include <vector>

#include "ringcast/wheel/timing_wheel.hpp"

namespace ringcast::test {

using namespace std::chrono_literals;

inline const timing_wheel::time_point t0{};
constexpr timing_wheel::duration one_tick = 1ms;

// The instant `n` ticks after t0 (negative: before the wheel's epoch).
inline timing_wheel::time_point at(std::int64_t n) {
  return t0 + n * one_tick;
}

struct firing {
  std::uint32_t tag;
  std::uint64_t tick;  // the wheel's current tick while the node was handed over
  bool operator==(const firing&) const = default;
};

inline std::ostream& operator<<(std::ostream& out, const firing& f) {
  return out << "{tag " << f.tag << " at tick " << f.tick << "}";
}

// Advances `wheel` to `now`, recording each node's tag and the tick it fired in.
inline std::vector<firing> advance_recording(timing_wheel& wheel, timing_wheel::time_point now) {
  std::vector<firing> fired;
  wheel.advance(now, [&](timer_node& node) { fired.push_back({node.tag, wheel.current_tick()}); });
  return fired;
}

}  // namespace ringcast::test
