#include "core/sequencer.hpp"

#include <algorithm>

namespace ringcast {

void sequencer::count(const message& m) {
  last_id_ = std::max(last_id_, m.id);
  ++published_;
  if (m.sticky) quota_.add(m.id, m.expires_ms);
}

bool sequencer::admit_sticky(std::int64_t now_ms) {
  std::lock_guard lock(mutex_);
  if (quota_.has_room(now_ms)) return true;
  ++sticky_refused_;
  return false;
}

void sequencer::seed(const std::vector<message_ptr>& messages) {
  std::lock_guard lock(mutex_);
  for (const auto& m : messages)
    if (m->sticky && !m->expired.load(std::memory_order_relaxed)) quota_.add(m->id, m->expires_ms);
}

void sequencer::forget_sticky(std::uint64_t id) {
  std::lock_guard lock(mutex_);
  quota_.remove(id);
}

sequencer::figures sequencer::read() const {
  std::lock_guard lock(mutex_);
  return {.published = published_, .last_id = last_id_, .sticky_refused = sticky_refused_};
}

void sequencer::capture(upgrade::handover_state& state) const {
  std::lock_guard lock(mutex_);
  state.last_id = last_id_;
  state.published = published_;
  for (const auto& [id, expires_ms] : quota_.entries())
    state.sticky_quota.push_back({id, expires_ms});
}

void sequencer::restore(const upgrade::handover_state& state) {
  std::lock_guard lock(mutex_);
  last_id_ = std::max(last_id_, state.last_id);
  published_ = state.published;
  for (const auto& e : state.sticky_quota)
    quota_.add(e.id, e.expires_ms);
}

void sequencer::raise_floor(std::uint64_t id) {
  std::lock_guard lock(mutex_);
  last_id_ = std::max(last_id_, id);
}

}  // namespace ringcast
