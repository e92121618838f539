#include "core/pacing.hpp"

#include <algorithm>

namespace ringcast::pacing {
namespace {

// SplitMix64's finalizer: every input bit moves every output bit, so consecutive ids and keys
// differing in one character land far apart.
std::uint64_t mix(std::uint64_t x) {
  x ^= x >> 30;
  x *= 0xbf58476d1ce4e5b9ULL;
  x ^= x >> 27;
  x *= 0x94d049bb133111ebULL;
  x ^= x >> 31;
  return x;
}

}  // namespace

std::uint64_t place_of(std::string_view session_key) {
  std::uint64_t h = 0xcbf29ce484222325ULL;  // FNV-1a, then mixed
  for (const char c : session_key) {
    h ^= static_cast<unsigned char>(c);
    h *= 0x100000001b3ULL;
  }
  return mix(h);
}

std::uint64_t turn_of(std::uint64_t message_id) {
  return mix(message_id + 0x9e3779b97f4a7c15ULL);
}

duration offset_at(std::uint64_t x, duration spread) {
  const auto ticks = static_cast<u128>(spread.count());
  return duration(static_cast<duration::rep>((static_cast<u128>(x) * ticks) >> 64));
}

u128 frontier(duration elapsed, duration spread) {
  if (elapsed < duration::zero()) return 0;
  if (elapsed >= spread) return whole_ring;
  // offset_at(x) <= e  <=>  x * s < (e + 1) * 2^64  <=>  x < ceil((e + 1) * 2^64 / s)
  const auto e = static_cast<u128>(elapsed.count()), s = static_cast<u128>(spread.count());
  const u128 bound = ((e + 1) << 64) + s - 1;
  return std::min(bound / s, whole_ring);
}

void paced_log::add(message_ptr m, time_point now) {
  paced_message p;
  p.msg = std::move(m);
  p.start = now;
  p.complete();
  messages_.push_back(std::move(p));
}

void paced_log::forget_settled_before(time_point horizon) {
  // Oldest first; a message still in flight keeps the ones after it (they are few).
  while (!messages_.empty() && messages_.front().settled() &&
         messages_.front().start + messages_.front().spread < horizon)
    messages_.pop_front();
}

std::size_t paced_log::in_flight() const {
  return static_cast<std::size_t>(std::count_if(
      messages_.begin(), messages_.end(), [](const paced_message& p) { return !p.settled(); }));
}

const paced_message* paced_log::find(std::uint64_t id) const {
  auto it = std::lower_bound(messages_.begin(), messages_.end(), id,
                             [](const paced_message& p, std::uint64_t v) { return p.msg->id < v; });
  return it != messages_.end() && it->msg->id == id ? &*it : nullptr;
}

}  // namespace ringcast::pacing
