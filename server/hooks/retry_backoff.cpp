#include "hooks/retry_backoff.hpp"

#include <algorithm>

namespace ringcast {

retry_backoff::duration retry_backoff::next() {
  const duration base = nominal_;
  const auto spread = base.count() * jitter_percent / 100;
  const duration wait{base.count() + std::uniform_int_distribution<duration::rep>(0, spread)(rng_)};
  nominal_ = std::min(cap_, base * 2);
  return wait;
}

}  // namespace ringcast
