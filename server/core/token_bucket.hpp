// A token bucket: `rate` tokens a second flow in, at most `burst` are held, and an action costs
// one. Kept as the one instant at which the bucket is full again (the "theoretical arrival time"
// of GCRA, the generic cell rate algorithm): the level at any time follows from it, so a bucket
// is 8 bytes, small enough to sit in every WebSocket client without being allocated and given
// back. Rate and burst are passed at each call rather than stored, so that a SIGHUP that changes
// them applies at once. Time is passed in: unit-tested on a simulated clock
// (tests/server/net/limits_test.cpp).
#pragma once

#include <algorithm>
#include <chrono>

namespace ringcast {

class token_bucket {
 public:
  using clock = std::chrono::steady_clock;
  using time_point = clock::time_point;

  struct shape {
    double rate = 0;   // tokens a second (> 0)
    double burst = 0;  // the most held; a new bucket starts full
  };

  // Takes a token if there is one: the bucket lacks at most `burst - 1` tokens before it.
  bool take(time_point now, shape s) {
    const time_point from = std::max(full_at_, now);
    if (from - now > time_for(s.burst - 1, s)) return false;
    full_at_ = from + time_for(1, s);
    return true;
  }
  // Full again at `now` (nothing taken that has not flowed back).
  bool full(time_point now, shape) const { return full_at_ <= now; }
  // How long until the next token (zero if one is there).
  clock::duration wait(time_point now, shape s) const {
    return std::max(clock::duration::zero(), full_at_ - now - time_for(s.burst - 1, s));
  }

 private:
  static clock::duration time_for(double tokens, shape s) {
    return std::chrono::round<clock::duration>(std::chrono::duration<double>(tokens / s.rate));
  }

  time_point full_at_{};  // the clock's epoch: full
};

}  // namespace ringcast
