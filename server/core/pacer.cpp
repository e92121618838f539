#include "core/pacer.hpp"

#include <algorithm>
#include <functional>
#include <limits>

#include "core/audience_index.hpp"

namespace ringcast {

void pacer::publish(const message_ptr& m, time_point now) {
  log_.add(m, now);
  walk(now);  // the sessions whose offset is 0 get it now
}

// An expired message (its ttl passed within the window) reaches nobody whose turn is later.
// A sticky one reaches every live session it addresses at its turn, however new the session
// (docs/protocol.md, "Promotions in force").
bool pacer::paced_for(const session& s, const message& m) const {
  return (m.id > s.start_id_ || m.sticky) && audience_index::addressed_to(s, m) && !m.is_expired();
}

// A sticky message went to every session that connected while it was in force.
bool pacer::reached(const session& s, const message& m) const {
  if (m.id <= s.start_id_ && !m.sticky) return false;
  return turn_came(s, m);
}

bool pacer::turn_came(const session& s, const message& m) const {
  if (m.spread.count() == 0) return true;
  const pacing::paced_message* p = log_.find(m.id);
  return !p || p->due_for(s.place_) <= log_.walked_to();
}

// Walks every paced message in flight up to `now`, in two steps: first the turns that came are
// collected (the index is not touched while it is walked), then each session gets its turns of
// this tick together, in id order; a held long-poll answers them in one reply. With one message
// walking (the usual case) every session has one turn: no sort, no copy of the message pointer
// (its count is shared by the loops: one atomic add a walk, not one a turn).
void pacer::walk(time_point now) {
  turns_.clear();
  const pacing::paced_message* only = nullptr;  // the message with turns, while there is one
  bool several = false;
  log_.walk(now, [&](pacing::u128 first, pacing::u128 end, const pacing::paced_message& p) {
    several = several || (only && only != &p);
    only = &p;
    index_.visit_range(first, end, [&](session& s) {
      // A connection that does not want the message (subscriber::wants) is not counted at its turn.
      if (paced_for(s, *p.msg) && (!s.conn_ || s.conn_->wants(*p.msg)))
        turns_.emplace_back(&s, &p.msg);
    });
  });
  if (several) {
    std::stable_sort(turns_.begin(), turns_.end(),
                     [](const auto& a, const auto& b) { return std::less<>{}(a.first, b.first); });
  }
  std::uint64_t sent = 0;
  for (std::size_t i = 0; i < turns_.size();) {
    session* s = turns_[i].first;
    std::size_t j = i + 1;
    while (several && j < turns_.size() && turns_[j].first == s)
      ++j;
    if (s->conn_) {
      s->last_sent_ = now;
      sent += j - i;
      if (several) {
        for (std::size_t k = i; k < j; ++k)
          (*turns_[k].second)->delivered.fetch_add(1, std::memory_order_relaxed);
      }
      if (j - i == 1) {
        s->conn_->deliver_many({turns_[i].second, 1});
      } else {
        batch_.clear();
        for (std::size_t k = i; k < j; ++k)
          batch_.push_back(*turns_[k].second);
        s->conn_->deliver_many(batch_);
      }
    }
    i = j;
  }
  if (!several && sent > 0) only->msg->delivered.fetch_add(sent, std::memory_order_relaxed);
  stats_.delivered += sent;
  stats_.paced_delivered += sent;
  turns_.clear();
  batch_.clear();
  // A session away for longer than its TTL is gone, and with it any claim on a settled message.
  log_.forget_settled_before(now - cfg_.session_ttl);
  if (log_.any_in_flight()) timer_.arm_at(now + cfg_.tick);
}

// What a session that resumes after `since` is sent before live messages, in id order:
//  - paced messages at or below `since` whose turn came while it was away (it resumes from the
//    highest id it received, so those never reached it);
//  - paced messages after `since` that history no longer holds, while the log still has them;
//  - history after `since`, as for any resume, without paced messages whose turn is still to
//    come: the walk delivers those at their turn.
std::vector<message_ptr> pacer::resume_backlog(const session& s, std::uint64_t since,
                                               history::resume_span span, bool new_here,
                                               const history& h) const {
  std::vector<message_ptr> out;
  const time_point walked = log_.walked_to();
  const time_point left = new_here ? left_at_estimate(s, since, h) : s.paced_until_;
  const std::uint64_t oldest_retained =
      span.begin != span.end ? (*span.begin)->id : std::numeric_limits<std::uint64_t>::max();
  for (const auto& p : log_.messages()) {
    if (!paced_for(s, *p.msg)) continue;
    const time_point due = p.due_for(s.place_);
    if (due > walked) continue;
    if (p.msg->id <= since ? due > left : p.msg->id < oldest_retained) out.push_back(p.msg);
  }
  for (auto it = span.begin; it != span.end; ++it) {
    const message& m = **it;
    // An expired message is skipped, but it is no gap: the client missed nothing it should see.
    if (!audience_index::addressed_to(s, m) || m.is_expired()) continue;
    if (m.spread.count() > 0) {
      const auto* p = log_.find(m.id);
      if (p && p->due_for(s.place_) > walked) continue;
    }
    out.push_back(*it);
  }
  return out;
}

// A session new to this loop (another node had it, or it expired) that resumes after `since`:
// its client was connected when message `since` reached it, so turns before that are not owed.
// That time is the message's turn if it was paced, else its publish time here (mapped from its
// timestamp through any paced message of the log). Unknown: nothing is owed.
pacer::time_point pacer::left_at_estimate(const session& s, std::uint64_t since,
                                          const history& h) const {
  if (const auto* p = log_.find(since)) return p->due_for(s.place_);
  if (since == 0 || log_.messages().empty()) return log_.walked_to();
  const auto span = h.after(since - 1);
  if (span.begin == span.end || (*span.begin)->id != since) return log_.walked_to();
  const auto& any = log_.messages().back();
  return any.start + std::chrono::milliseconds((*span.begin)->ts_ms - any.msg->ts_ms);
}

}  // namespace ringcast
