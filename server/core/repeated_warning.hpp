// A warning that may come many times a second (a backend that is down, retried without back-off
// while draining): a new text is logged at once, the same text again at most every `every`, with
// how many were left out meanwhile.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>

namespace ringcast {

class repeated_warning {
 public:
  using clock = std::chrono::steady_clock;
  explicit repeated_warning(
      std::chrono::milliseconds every = std::chrono::seconds(5),
      std::function<clock::time_point()> now = [] { return clock::now(); });

  // Logs `text` (log_warn) unless it repeats the last one within `every`; true if it logged.
  bool warn(const std::string& text);

 private:
  std::chrono::milliseconds every_;
  std::function<clock::time_point()> now_;
  std::string last_;
  clock::time_point last_at_{};
  std::uint64_t left_out_ = 0;
};

}  // namespace ringcast
