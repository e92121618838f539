// What a client that connects without `since` gets before live messages: the sticky messages in
// force and, with `rewind`, the recent ones; and the take-down of a message (docs/protocol.md,
// "Promotions in force" and "Rewind").
#include <algorithm>

#include "hub.hpp"

namespace ringcast {

namespace {

bool id_less(const message_ptr& a, const message_ptr& b) {
  return a->id < b->id;
}

}  // namespace

// Rewind and the sticky set both skip what is expired or not addressed to `s`, and leave a paced
// message whose turn is still to come to the walk, exactly as a resume does.
std::vector<message_ptr> hub::first_connect_backlog(session& s, const client_params& params,
                                                    std::uint64_t& history_after) {
  std::vector<message_ptr> out;
  history_after = history_.newest_id();
  auto due_now = [&](const message& m) {
    return addressed_to(s, m) && !is_expired(m) && turn_came(s, m);
  };
  if (params.rewind_count || params.rewind_after_ms) {
    const auto span = history_.after(0);
    auto first = span.end;  // the oldest message rewound
    std::size_t taken = 0;
    for (auto it = span.end; it != span.begin;) {
      --it;
      const message& m = **it;
      if (params.rewind_after_ms && m.ts_ms < *params.rewind_after_ms) break;
      if (!addressed_to(s, m) || is_expired(m)) continue;
      first = it;
      if (params.rewind_count && ++taken == *params.rewind_count) break;
    }
    if (first != span.end) {
      history_after = (*first)->id - 1;
      // Paced ones among them whose turn has not come reach it at their turn (paced_for).
      s.start_id_ = std::min(s.start_id_, (*first)->id - 1);
      // Everything addressed to it from there on is sent now or at its turn: its acks count.
      s.ack_floor_ = std::min(s.ack_floor_, (*first)->id - 1);
      for (auto& joined : s.joined_after_)
        joined = std::min(joined, (*first)->id - 1);
      for (auto it = first; it != span.end; ++it)
        if (due_now(**it)) out.push_back(*it);
    }
  }
  const auto rewound = static_cast<std::ptrdiff_t>(out.size());
  for (const auto& m : sticky_.in_force())
    if (due_now(*m)) out.push_back(m);
  if (rewound > 0 && out.size() > static_cast<std::size_t>(rewound)) {
    std::inplace_merge(out.begin(), out.begin() + rewound, out.end(), id_less);
    out.erase(
        std::unique(out.begin(), out.end(),
                    [](const message_ptr& a, const message_ptr& b) { return a->id == b->id; }),
        out.end());
  }
  return out;
}

// The backlog's history part after `since` is what a resume from the later of the two finds
// (with what was published since the first connect); its sticky part, the messages in force after
// `since` (those at or below it were sent). Both ask what the first connect asked (addressed to
// it, not expired, their turn come), now, and a message in both is sent once.
std::vector<message_ptr> hub::first_backlog_rest(const session& s, std::uint64_t since,
                                                 std::size_t& owed, bool& gap) const {
  const std::uint64_t from = std::max(since, *s.first_backlog_after_);
  const auto span = history_.after(from);
  gap = span.gap;
  std::vector<message_ptr> out = resume_backlog(s, from, span, false);
  owed = 0;
  while (owed < out.size() && out[owed]->id <= from)
    ++owed;
  const auto owed_count = static_cast<std::ptrdiff_t>(owed);
  for (const auto& m : sticky_.in_force()) {
    if (m->id <= since || !addressed_to(s, *m) || is_expired(*m) || !turn_came(s, *m)) continue;
    const auto owed_end = out.begin() + owed_count;  // (push_back moves the elements)
    if (std::find(out.begin(), owed_end, m) == owed_end) out.push_back(m);  // paced, owed: there
  }
  const auto rest = out.begin() + owed_count;
  std::sort(rest, out.end(), id_less);
  out.erase(std::unique(rest, out.end(),
                        [](const message_ptr& a, const message_ptr& b) { return a->id == b->id; }),
            out.end());
  return out;
}

void hub::seed_in_force(const std::vector<message_ptr>& in_force, time_point now,
                        std::int64_t now_ms) {
  for (const auto& m : in_force) {
    if (!m->sticky || (m->expires_ms != 0 && m->expires_ms <= now_ms) || find(m->id)) continue;
    sticky_.add(m);
    if (m->expires_ms != 0) expire_at(m, now + std::chrono::milliseconds(m->expires_ms - now_ms));
  }
}

message_ptr hub::find_held(std::uint64_t id) const {
  if (message_ptr m = find(id)) return m;
  if (message_ptr m = sticky_.find(id)) return m;
  const pacing::paced_message* p = paced_.find(id);
  return p ? p->msg : nullptr;
}

bool hub::claim_take_down(const message_ptr& m) {
  if (m->expired.exchange(true, std::memory_order_relaxed)) return false;
  ++stats_.taken_down;
  return true;
}

void hub::take_down(const message_ptr& m, time_point now) {
  m->expired.store(true, std::memory_order_relaxed);
  expiring_.erase(m->id);  // its ttl timer disarms itself
  expire_now(m, now);
}

}  // namespace ringcast
