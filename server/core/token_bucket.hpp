// A token bucket: `rate` tokens a second flow in, at most `burst` are held, and an action costs
// one. Rate and burst are passed at each call rather than stored, so that a bucket is 16 bytes
// (one per WebSocket client, one per client address) and a SIGHUP that changes them applies at
// once. Time is passed in: unit-tested on a simulated clock (tests/server/net/limits_test.cpp).
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

  explicit token_bucket(time_point now, double tokens) : tokens_(tokens), last_(now) {}

  // Takes a token if there is one.
  bool take(time_point now, shape s) {
    refill(now, s);
    if (tokens_ < 1) return false;
    tokens_ -= 1;
    return true;
  }
  // Full again at `now` (nothing taken that has not flowed back).
  bool full(time_point now, shape s) const { return level(now, s) >= s.burst; }
  // How long until the next token (zero if one is there).
  clock::duration wait(time_point now, shape s) const {
    const double missing = 1 - level(now, s);
    if (missing <= 0) return clock::duration::zero();
    return std::chrono::duration_cast<clock::duration>(
        std::chrono::duration<double>(missing / s.rate));
  }

 private:
  double level(time_point now, shape s) const {
    const double elapsed = std::chrono::duration<double>(now - last_).count();
    return std::min(s.burst, tokens_ + std::max(0.0, elapsed) * s.rate);
  }
  void refill(time_point now, shape s) {
    tokens_ = level(now, s);
    if (now > last_) last_ = now;
  }

  double tokens_;
  time_point last_;
};

}  // namespace ringcast
