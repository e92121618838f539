// What a connect is sent before live messages (docs/protocol.md, "Promotions in force", "Rewind"
// and "Long-poll"): a first connect's sticky messages in force and what it rewinds, the rest of a
// first connect's cut reply, and the bound on one long-poll reply.
#include <algorithm>

#include "core/audience_index.hpp"
#include "core/envelope.hpp"
#include "core/message_store.hpp"
#include "core/pacer.hpp"

namespace ringcast {
namespace {

bool id_less(const message_ptr& a, const message_ptr& b) {
  return a->id < b->id;
}

}  // namespace

// Rewind and the sticky set both skip what is expired or not addressed to `s`, and leave a paced
// message whose turn is still to come to the walk, exactly as a resume does.
std::vector<message_ptr> message_store::first_connect_backlog(session& s,
                                                              const client_params& params,
                                                              std::uint64_t& history_after) const {
  std::vector<message_ptr> out;
  history_after = history_.newest_id();
  auto due_now = [&](const message& m) {
    return audience_index::addressed_to(s, m) && !m.is_expired() && pacer_.turn_came(s, m);
  };
  if (params.rewind_count || params.rewind_after_ms) {
    const auto span = history_.after(0);
    auto first = span.end;  // the oldest message rewound
    std::size_t taken = 0;
    for (auto it = span.end; it != span.begin;) {
      --it;
      const message& m = **it;
      if (params.rewind_after_ms && m.ts_ms < *params.rewind_after_ms) break;
      if (!audience_index::addressed_to(s, m) || m.is_expired()) continue;
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
std::vector<message_ptr> message_store::first_backlog_rest(const session& s, std::uint64_t since,
                                                           std::size_t& owed, bool& gap) const {
  const std::uint64_t from = std::max(since, *s.first_backlog_after_);
  const auto span = history_.after(from);
  gap = span.gap;
  std::vector<message_ptr> out = pacer_.resume_backlog(s, from, span, false, history_);
  owed = 0;
  while (owed < out.size() && out[owed]->id <= from)
    ++owed;
  const auto owed_count = static_cast<std::ptrdiff_t>(owed);
  for (const auto& m : sticky_.in_force()) {
    if (m->id <= since || !audience_index::addressed_to(s, *m) || m->is_expired() ||
        !pacer_.turn_came(s, *m))
      continue;
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

// At most --max-poll-batch messages, and none added once the body passed max_poll_reply_bytes
// (so at most that plus one message), whether the connect resumes or not. The paced messages
// owed from before `since` come first and are never cut: the session's next poll would not find
// them again (their turn is behind it); their number is that of the paced publishes still in the
// log. The rest is in id order, so the next poll's `since` (the last id kept) finds what is left.
bool message_store::bound_poll_batch(std::vector<message_ptr>& backlog, std::size_t owed,
                                     std::uint64_t since, std::uint64_t& last_id) const {
  std::size_t keep = 0, bytes = 0;
  for (; keep < backlog.size(); ++keep) {
    if (keep >= owed && (keep >= cfg_.max_poll_batch || bytes > max_poll_reply_bytes)) break;
    bytes += backlog[keep]->json.size() + messages_separator.size();
  }
  if (keep == backlog.size()) return false;
  backlog.resize(keep);
  last_id = since;
  for (std::size_t i = owed; i < keep; ++i)
    last_id = std::max(last_id, backlog[i]->id);
  return true;
}

}  // namespace ringcast
