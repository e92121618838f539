// The wall clock, for what is stated in Unix time (message timestamps, scheduled times). Timers
// never use it: they run on the steady clock.
#pragma once

#include <chrono>
#include <cstdint>

namespace ringcast {

inline std::int64_t unix_ms() {
  return std::chrono::duration_cast<std::chrono::milliseconds>(
             std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace ringcast
