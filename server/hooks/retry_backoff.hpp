// The waits between attempts of a hook batch the backend did not accept (the failback of
// docs/operations.md, "Event hooks"): 1 s after the first failure, then 2 s, 4 s, … doubling up
// to 60 s, each stretched by a random 0-20 % so that nodes whose backend comes back do not all
// retry in step. Never shorter than the nominal wait. A success starts the schedule over.
#pragma once

#include <chrono>
#include <cstdint>
#include <random>

namespace ringcast {

class retry_backoff {
 public:
  using duration = std::chrono::milliseconds;
  static constexpr duration default_first{1'000};
  static constexpr duration default_cap{60'000};
  static constexpr int jitter_percent = 20;

  explicit retry_backoff(std::uint32_t seed, duration first = default_first,
                         duration cap = default_cap)
      : first_(first), cap_(cap), nominal_(first), rng_(seed) {}

  // The wait before the next attempt; the nominal wait of the one after doubles (up to the cap).
  duration next();
  void reset() { nominal_ = first_; }
  duration nominal() const { return nominal_; }  // what next() stretches

 private:
  duration first_, cap_, nominal_;
  std::mt19937 rng_;  // spreads even neighbouring seeds
};

}  // namespace ringcast
