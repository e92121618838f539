// A warning that an attack can repeat thousands of times a second (out of descriptors, a client
// limit hit): the first is logged at once, the next ones at most once a period (1 s), each line
// saying how many there were since the last: "… (1234 times in the last 1.0 s)". Any thread; the
// text is only formatted when a line is written. Time is passed in
// (tests/server/net/limits_test.cpp).
#pragma once

#include <fmt/format.h>

#include <chrono>
#include <cstdint>
#include <mutex>
#include <optional>
#include <string>

#include "core/log.hpp"

namespace ringcast {

class repeated_warning {
 public:
  using clock = std::chrono::steady_clock;

  explicit repeated_warning(clock::duration period = std::chrono::seconds(1)) : period_(period) {}

  template <class... Args>
  void warn(clock::time_point now, fmt::format_string<Args...> f, Args&&... args) {
    if (auto suffix = count(now))
      log_warn("{}{}", fmt::format(f, std::forward<Args>(args)...), *suffix);
  }

  // Counts one occurrence at `now`; the suffix of the line to log now ("" for the first, or
  // " (N times in the last S s)"), or none while within the period of the last line.
  std::optional<std::string> count(clock::time_point now);

 private:
  std::mutex mutex_;
  clock::duration period_;
  std::optional<clock::time_point> logged_;  // when the last line was written
  std::uint64_t since_ = 0;                  // occurrences since then, not yet reported
};

}  // namespace ringcast
