#include "id_tracker.hpp"

#include <algorithm>

namespace ringcast::load {

void id_tracker::set_base(std::uint64_t last_id) {
  if (!base_) base_ = last_id;
}

bool id_tracker::seen(std::uint64_t id) const {
  return std::binary_search(received_.begin(), received_.end(), id);
}

id_tracker::outcome id_tracker::record(std::uint64_t id) {
  if (!base_ || id <= *base_) return outcome::before_base;
  if (received_.empty() || id > received_.back()) {
    received_.push_back(id);
    return outcome::fresh;
  }
  const auto at = std::lower_bound(received_.begin(), received_.end(), id);
  if (*at == id) {
    ++duplicates_;
    return outcome::duplicate;
  }
  received_.insert(at, id);
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
