#include "handover_messages.hpp"

#include <limits>

#include "subscriber.hpp"

namespace ringcast {

// The state keeps enums as numbers: these are its meaning (a change bumps upgrade::state_format).
static_assert(static_cast<int>(audience::broadcast) == 0 &&
              static_cast<int>(audience::channel) == 1 && static_cast<int>(audience::user) == 2 &&
              static_cast<int>(audience::users) == 3 && upgrade::max_audience == 3);
static_assert(static_cast<int>(transport::ws) == 0 && static_cast<int>(transport::sse) == 1 &&
              static_cast<int>(transport::poll) == 2 && upgrade::max_transport == 2);

std::vector<upgrade::message_state> capture_messages(const handover_messages& messages) {
  std::vector<upgrade::message_state> out;
  out.reserve(messages.size());
  for (const auto& [id, m] : messages) {
    out.push_back({.id = m->id,
                   .ts_ms = m->ts_ms,
                   .audience = static_cast<std::uint8_t>(m->to),
                   .target = m->target,
                   .expires_ms = m->expires_ms,
                   .spread_ms = m->spread.count(),
                   .sticky = m->sticky,
                   .json = m->json,
                   .recipients = m->recipients.load(std::memory_order_relaxed),
                   .delivered = m->delivered.load(std::memory_order_relaxed),
                   .acked = m->acked.load(std::memory_order_relaxed),
                   .expired = m->expired.load(std::memory_order_relaxed)});
  }
  return out;
}

handover_messages restore_messages(const std::vector<upgrade::message_state>& messages) {
  handover_messages out;
  for (const auto& s : messages) {
    message_ptr m =
        message_from_envelope(s.id, s.ts_ms, {static_cast<audience>(s.audience), s.target}, s.json,
                              s.expires_ms, std::chrono::milliseconds(s.spread_ms), s.sticky);
    m->recipients.store(s.recipients, std::memory_order_relaxed);
    m->delivered.store(s.delivered, std::memory_order_relaxed);
    m->acked.store(s.acked, std::memory_order_relaxed);
    m->expired.store(s.expired, std::memory_order_relaxed);
    out.emplace_hint(out.end(), s.id, std::move(m));
  }
  return out;
}

upgrade::rel_ns relative_to(timing_wheel::time_point t, timing_wheel::time_point now) {
  if (t == timing_wheel::time_point::max()) return upgrade::never;
  return std::chrono::duration_cast<std::chrono::nanoseconds>(t - now).count();
}

timing_wheel::time_point absolute_from(upgrade::rel_ns t, timing_wheel::time_point now) {
  using limits = std::numeric_limits<std::int64_t>;
  const std::int64_t base =
      std::chrono::duration_cast<std::chrono::nanoseconds>(now.time_since_epoch()).count();
  if (t == upgrade::never || (t > 0 && base > limits::max() - t))
    return timing_wheel::time_point::max();
  if (t < 0 && base < limits::min() - t) return timing_wheel::time_point::min();
  return timing_wheel::time_point(
      std::chrono::duration_cast<timing_wheel::duration>(std::chrono::nanoseconds(base + t)));
}

}  // namespace ringcast
