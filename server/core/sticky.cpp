#include "core/sticky.hpp"

#include <algorithm>

namespace ringcast {

namespace {

auto by_id(const std::vector<message_ptr>& v, std::uint64_t id) {
  return std::lower_bound(v.begin(), v.end(), id,
                          [](const message_ptr& m, std::uint64_t i) { return m->id < i; });
}

}  // namespace

void sticky_set::add(const message_ptr& m) {
  const auto at = by_id(messages_, m->id);
  if (at != messages_.end() && (*at)->id == m->id) return;
  messages_.insert(at, m);  // at the end, as ids arrive in order
}

bool sticky_set::remove(std::uint64_t id) {
  const auto at = by_id(messages_, id);
  if (at == messages_.end() || (*at)->id != id) return false;
  messages_.erase(at);
  return true;
}

message_ptr sticky_set::find(std::uint64_t id) const {
  const auto at = by_id(messages_, id);
  return at != messages_.end() && (*at)->id == id ? *at : nullptr;
}

void sticky_quota::forget_expired(std::int64_t now_ms) {
  std::erase_if(expires_, [now_ms](const auto& e) { return e.second != 0 && e.second <= now_ms; });
}

bool sticky_quota::has_room(std::int64_t now_ms) {
  forget_expired(now_ms);
  return expires_.size() < limit_;
}

std::size_t sticky_quota::in_force(std::int64_t now_ms) {
  forget_expired(now_ms);
  return expires_.size();
}

}  // namespace ringcast
