#include "core/message_store.hpp"

#include <algorithm>
#include <iterator>

#include "core/audience_index.hpp"
#include "core/envelope.hpp"
#include "core/pacer.hpp"

namespace ringcast {

message_store::message_store(const config& cfg, loop_timers& timers, loop_stats& stats,
                             std::uint64_t floor_id, audience_index& audience, const pacer& pacer)
    : cfg_(cfg),
      timers_(timers),
      stats_(stats),
      audience_(audience),
      pacer_(pacer),
      history_(cfg.history, floor_id) {}

void message_store::keep(const message_ptr& m, time_point now) {
  history_.append(m);
  if (m->sticky && !m->is_expired()) sticky_.add(m);
  // The ttl runs on this loop's wheel from when the message reached the loop: ts_ms and
  // expires_ms are wall-clock times, the wheel's are steady.
  if (m->expires_ms != 0) expire_at({m, now + std::chrono::milliseconds(m->expires_ms - m->ts_ms)});
}

void message_store::expire_at(expiry::record r) {
  auto [it, fresh] = expiring_.try_emplace(r.msg->id, nullptr);
  if (!fresh) return;
  it->second = std::make_unique<expiry>(*this, std::move(r));
  it->second->arm_at(it->second->due);
}

void message_store::seed_history(const std::vector<message_ptr>& retained, time_point now,
                                 std::int64_t now_ms) {
  history_.seed(retained);
  for (const auto& m : retained) {
    if (m->expires_ms != 0 && m->expires_ms <= now_ms)
      m->expired.store(true, std::memory_order_relaxed);  // nobody here received it: no notice
    else if (m->expires_ms != 0)
      expire_at({m, now + std::chrono::milliseconds(m->expires_ms - now_ms)});
    if (m->sticky && !m->is_expired()) sticky_.add(m);
  }
}

void message_store::seed_in_force(const std::vector<message_ptr>& in_force, time_point now,
                                  std::int64_t now_ms) {
  for (const auto& m : in_force) {
    if (!m->sticky || (m->expires_ms != 0 && m->expires_ms <= now_ms) || find(m->id)) continue;
    sticky_.add(m);
    if (m->expires_ms != 0) expire_at({m, now + std::chrono::milliseconds(m->expires_ms - now_ms)});
  }
}

void message_store::expiry::on_timer(time_point now) {
  owner_.expire(*this, now);
}

void message_store::expire(expiry& e, time_point now) {
  const message_ptr m = e.msg;
  expiring_.erase(m->id);  // destroys e (disarmed: it has just fired)
  // Every loop holding the message fires its own timer; the first one counts it.
  if (!m->expired.exchange(true, std::memory_order_relaxed)) ++stats_.messages_expired;
  expire_now(m, now);
}

void message_store::expire_now(const message_ptr& m, time_point now) {
  sticky_.remove(m->id);
  const message_ptr notice = make_expired_notice(m->id, history_.newest_id());
  audience_.for_each_live_addressee(*m, [&](session& s) {
    if (!pacer_.reached(s, *m)) return;  // nothing on its page to take down
    ++stats_.expired_notices;            // not counted as delivered: that counts messages
    s.last_sent_ = now;
    s.conn_->deliver(notice);
  });
}

// Take-down (docs/protocol.md, "Promotions in force"): on one loop of the node, before every loop
// takes it down, false if it is already expired (its ttl passed, or another take-down came
// first); else it is marked expired and counted.
bool message_store::claim_take_down(const message_ptr& m) {
  if (m->expired.exchange(true, std::memory_order_relaxed)) return false;
  ++stats_.taken_down;
  return true;
}

void message_store::take_down(const message_ptr& m, time_point now) {
  m->expired.store(true, std::memory_order_relaxed);
  expiring_.erase(m->id);  // its ttl timer disarms itself
  expire_now(m, now);
}

message_ptr message_store::find(std::uint64_t id) const {
  if (id == 0) return nullptr;
  const auto span = history_.after(id - 1);
  if (span.begin == span.end || (*span.begin)->id != id) return nullptr;
  return *span.begin;
}

message_ptr message_store::find_held(std::uint64_t id) const {
  if (message_ptr m = find(id)) return m;
  if (message_ptr m = sticky_.find(id)) return m;
  return pacer_.find(id);
}

std::vector<message_ptr> message_store::retained() const {
  const auto span = history_.after(0);
  return {span.begin, span.end};
}

std::vector<message_ptr> message_store::newest(std::size_t n) const {
  const auto span = history_.after(0);
  const auto count =
      std::min<std::ptrdiff_t>(static_cast<std::ptrdiff_t>(n), span.end - span.begin);
  return {std::make_reverse_iterator(span.end), std::make_reverse_iterator(span.end - count)};
}

}  // namespace ringcast
