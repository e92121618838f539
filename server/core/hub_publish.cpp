// The hub's fan-out: a published message to the live sessions it addresses; when its ttl passes,
// the `expired` notice to the same sessions; and the reach counters (docs/protocol.md, "Reach").
#include <algorithm>
#include <iterator>

#include "hub.hpp"

namespace ringcast {

bool hub::addressed_to(const session& s, const message& m) const {
  switch (m.to) {
    case audience::broadcast:
      return true;
    case audience::user:
      return s.user() == m.target;
    case audience::users:
      return m.addressed_to_user(s.user());
    case audience::channel:
      return std::find(s.channels_.begin(), s.channels_.end(), m.target) != s.channels_.end();
  }
  return false;
}

// Calls visit(session&) for every session with a live connection that `m` addresses. `visit` may
// detach the session it is given (a long-poll answering, a slow consumer closing).
template <class Visit>
void hub::for_each_live_addressee(const message& m, Visit&& visit) {
  auto if_live = [&](session* s) {
    if (s->conn_) visit(*s);
  };
  auto each_of_user = [&](const std::string& user) {
    if (auto it = by_user_.find(user); it != by_user_.end()) {
      // A session visited may move to the idle list (a poll answered): step past it first.
      auto& live = it->second.live;
      for (auto i = live.begin(); i != live.end();)
        if_live(&*i++);
    }
  };
  switch (m.to) {
    case audience::broadcast:
      // Backwards: a subscriber that detaches while being visited swap-removes itself with an
      // element already visited.
      for (std::size_t i = attached_.size(); i-- > 0;)
        if_live(attached_[i]);
      break;
    case audience::channel:
      if (auto it = by_channel_.find(m.target); it != by_channel_.end()) {
        for (session* s : it->second)
          if_live(s);
      }
      break;
    case audience::user:
      each_of_user(m.target);
      break;
    case audience::users:
      for (const auto& user : m.users)
        each_of_user(user);
      break;
  }
}

void hub::deliver(session& s, const message_ptr& m, time_point now) {
  s.last_sent_ = now;
  s.sent_up_to_ = std::max(s.sent_up_to_, m->id);
  ++stats_.delivered;
  s.conn_->deliver(m);
}

std::size_t hub::publish(const message_ptr& m, time_point now) {
  history_.append(m);
  if (m->sticky && !is_expired(*m)) sticky_.add(m);
  std::size_t recipients = 0;
  if (m->spread.count() > 0) {  // each at its turn (hub_pacing.cpp), counted as delivered then
    for_each_live_addressee(*m, [&](session&) { ++recipients; });
    m->recipients.fetch_add(recipients, std::memory_order_relaxed);
    publish_paced(m, now);
  } else {
    for_each_live_addressee(*m, [&](session& s) {
      ++recipients;
      deliver(s, m, now);
    });
    m->recipients.fetch_add(recipients, std::memory_order_relaxed);
    m->delivered.fetch_add(recipients, std::memory_order_relaxed);
  }
  // The ttl runs on this loop's wheel from when the message reached the loop: ts_ms and
  // expires_ms are wall-clock times, the wheel's are steady.
  if (m->expires_ms != 0) expire_at(m, now + std::chrono::milliseconds(m->expires_ms - m->ts_ms));
  return recipients;
}

void hub::expire_at(const message_ptr& m, time_point due) {
  auto [it, fresh] = expiring_.try_emplace(m->id, nullptr);
  if (!fresh) return;
  it->second = std::make_unique<expiry>(*this, m);
  it->second->arm_at(due);
}

void hub::seed_history(const std::vector<message_ptr>& retained, time_point now,
                       std::int64_t now_ms) {
  history_.seed(retained);
  for (const auto& m : retained) {
    if (m->expires_ms != 0 && m->expires_ms <= now_ms)
      m->expired.store(true, std::memory_order_relaxed);  // nobody here received it: no notice
    else if (m->expires_ms != 0)
      expire_at(m, now + std::chrono::milliseconds(m->expires_ms - now_ms));
    if (m->sticky && !is_expired(*m)) sticky_.add(m);
  }
}

void hub::expiry::on_timer(time_point now) {
  owner_.expire(*this, now);
}

void hub::expire(expiry& e, time_point now) {
  const message_ptr m = e.m_;
  expiring_.erase(m->id);  // destroys e (disarmed: it has just fired)
  // Every loop holding the message fires its own timer; the first one counts it.
  if (!m->expired.exchange(true, std::memory_order_relaxed)) ++stats_.messages_expired;
  expire_now(m, now);
}

// `m` is marked expired: it leaves the sticky set, and the sessions that have it are told.
void hub::expire_now(const message_ptr& m, time_point now) {
  sticky_.remove(m->id);
  const message_ptr notice = make_expired_notice(m->id, history_.newest_id());
  for_each_live_addressee(*m, [&](session& s) {
    if (!reached(s, *m)) return;  // nothing on its page to take down
    ++stats_.expired_notices;     // not counted as delivered: that counts messages
    s.last_sent_ = now;
    s.conn_->deliver(notice);
  });
}

bool hub::is_expired(const message& m) {
  return m.expired.load(std::memory_order_relaxed);
}

// Without a record per message sent: a session's stream is, after the last point where it started
// afresh (ack_floor_) and up to what it was last handed (sent_up_to_), every message addressed to
// it, channel messages from when it joined the channel. So the check costs 16 bytes and 8 per
// channel a session, whatever is published; a list of sent ids would grow with every message (a
// bounded one would forget what a slow reader has not acked yet). It reads the present channels
// (an ack after leaving a channel is refused). Paced messages go by their turn (reached), as their
// expiry notices do: one whose turn came while the session was away, and that it never got
// because it came back without `since`, is the one case counted that was not sent. A sticky
// message goes to every session it addresses that connects while it is in force (hub_sticky.cpp),
// so it needs only to have been handed; a rewind lowers the floor to the oldest message rewound.
bool hub::was_sent(const session& s, const message& m) const {
  if (!reached(s, m) || !addressed_to(s, m)) return false;
  if (m.sticky) return m.spread.count() > 0 || m.id <= s.sent_up_to_;
  if (m.to == audience::channel) {
    const auto it = std::find(s.channels_.begin(), s.channels_.end(), m.target);
    if (m.id <= s.joined_after_[static_cast<std::size_t>(it - s.channels_.begin())]) return false;
  }
  if (m.spread.count() > 0) return true;
  return m.id > s.ack_floor_ && m.id <= s.sent_up_to_;
}

void hub::acknowledge(session& s, std::uint64_t id) {
  const message_ptr m = find(id);
  if (m && !was_sent(s, *m)) {
    ++stats_.acks_refused;
    return;
  }
  const bool paced = m && m->spread.count() > 0;
  if (id > s.acked_id_) {
    s.acked_id_ = id;  // acks are cumulative; a repeat counts once
    if (paced) s.paced_acked_id_ = id;
  } else if (paced && id > s.paced_acked_id_) {
    // A paced message reaches a session at its turn, maybe after higher ids the client has
    // already acked, so its ack names an older id: it counts once, by the same rule among paced
    // acks alone.
    s.paced_acked_id_ = id;
  } else {
    return;
  }
  if (m) {
    m->acked.fetch_add(1, std::memory_order_relaxed);
    ++stats_.acked;
  }
}

message_ptr hub::find(std::uint64_t id) const {
  if (id == 0) return nullptr;
  const auto span = history_.after(id - 1);
  if (span.begin == span.end || (*span.begin)->id != id) return nullptr;
  return *span.begin;
}

std::vector<message_ptr> hub::retained() const {
  const auto span = history_.after(0);
  return {span.begin, span.end};
}

std::vector<message_ptr> hub::newest(std::size_t n) const {
  const auto span = history_.after(0);
  const auto count =
      std::min<std::ptrdiff_t>(static_cast<std::ptrdiff_t>(n), span.end - span.begin);
  return {std::make_reverse_iterator(span.end), std::make_reverse_iterator(span.end - count)};
}

}  // namespace ringcast
