#include "id_tracker.hpp"

#include <algorithm>

namespace ringcast::load {

void id_tracker::set_base(std::uint64_t last_id) {
  if (!base_) base_ = last_id;
}

bool id_tracker::seen(std::uint64_t id) const {
  if (!base_ || id <= *base_) return false;
  const auto k = id - *base_ - 1;
  return k / 64 < bits_.size() && (bits_[k / 64] >> (k % 64) & 1) != 0;
}

id_tracker::outcome id_tracker::record(std::uint64_t id) {
  if (!base_ || id <= *base_) return outcome::before_base;
  const auto k = id - *base_ - 1;
  if (k / 64 >= bits_.size()) bits_.resize(k / 64 + 1, 0);
  auto& word = bits_[k / 64];
  const auto bit = std::uint64_t{1} << (k % 64);
  if (word & bit) {
    ++duplicates_;
    return outcome::duplicate;
  }
  word |= bit;
  return outcome::fresh;
}

id_tracker::tally id_tracker::count(std::span<const std::uint64_t> published) const {
  tally t;
  if (!base_) return t;
  const auto first = std::upper_bound(published.begin(), published.end(), *base_);
  for (auto it = first; it != published.end(); ++it) {
    ++t.expected;
    if (seen(*it)) ++t.received;
  }
  t.lost = t.expected - t.received;
  return t;
}

}  // namespace ringcast::load
