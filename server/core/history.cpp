#include "core/history.hpp"

#include <algorithm>

namespace ringcast {

void history::append(message_ptr m) {
  messages_.push_back(std::move(m));
  if (messages_.size() > capacity_) {
    floor_id_ = messages_.front()->id;
    messages_.pop_front();
  }
}

void history::seed(const std::vector<message_ptr>& retained) {
  if (!messages_.empty() || retained.empty()) return;
  floor_id_ = retained.front()->id - 1;
  for (const auto& m : retained)
    append(m);
}

void history::restore(std::uint64_t floor_id, const std::vector<message_ptr>& retained) {
  if (!messages_.empty()) return;
  floor_id_ = floor_id;
  for (const auto& m : retained)
    append(m);  // a smaller --history keeps the newest
}

history::resume_span history::after(std::uint64_t since) const {
  const bool from_the_future = since > newest_id();
  const bool evicted = since < floor_id_;
  if (from_the_future) return {messages_.end(), messages_.end(), true};
  auto first = std::upper_bound(messages_.begin(), messages_.end(), since,
                                [](std::uint64_t id, const message_ptr& m) { return id < m->id; });
  return {first, messages_.end(), evicted};
}

}  // namespace ringcast
