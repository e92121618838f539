// The session table's timers: when a session's node is due next, and what happens when it fires
// (docs/protocol.md, "Timeouts and keep-alive"); the retry a connection is ended with; and the
// adoption of the sessions an upgrade restored live.
#include <algorithm>
#include <vector>

#include "core/pacer.hpp"
#include "core/session_observers.hpp"
#include "core/session_table.hpp"

namespace ringcast {

void session::on_timer(time_point now) {
  table_.on_timer(*this, now);
}

std::uint32_t session_table::retry_ms_for(ending why) {
  const auto delay = static_cast<std::uint32_t>(cfg_.reconnect_delay.count());
  auto uniform = [this](std::uint32_t lo, std::uint32_t hi) {
    return std::uniform_int_distribution<std::uint32_t>(lo, hi)(rng_);
  };
  switch (why) {
    case ending::reconnect_timeout:
      return uniform(0, delay / 4);  // a poll comes straight back
    case ending::reconnect_shutdown:
      return uniform(0, static_cast<std::uint32_t>(cfg_.drain.count()));
    case ending::reconnect_replaced:
    case ending::reconnect_rebalance:
      return uniform(delay / 2, delay + delay / 2);
    default:
      return 0;
  }
}

// A long-poll answered at once (within a tick: it had a backlog or a gap) is followed at once by
// the next poll of a client that goes on: one that has not come back by --first-poll-ttl will not.
std::chrono::milliseconds session_table::detached_ttl(const session& s) const {
  const bool answered_at_once = s.transport_ == transport::poll && !s.came_back_ &&
                                s.detached_at_ - s.attached_at_ < cfg_.tick;
  return answered_at_once ? std::min(cfg_.first_poll_ttl, cfg_.session_ttl) : cfg_.session_ttl;
}

session_table::time_point session_table::next_deadline(const session& s) const {
  if (!s.conn_) return s.detached_at_ + detached_ttl(s);
  if (s.transport_ == transport::poll)
    return std::min(s.attached_at_ + cfg_.poll_timeout, s.token_expires_);
  time_point due = std::min(s.last_sent_ + cfg_.heartbeat, s.token_expires_);
  if (s.transport_ == transport::ws) due = std::min(due, s.last_activity_ + cfg_.idle_timeout);
  if (cfg_.max_connection_age.count() > 0) {
    due = std::min(due, s.attached_at_ + cfg_.max_connection_age);
  }
  return due;
}

void session_table::on_timer(session& s, time_point now) {
  if (!s.conn_) {
    if (now >= s.detached_at_ + detached_ttl(s)) {
      ++stats_.session_ttl;
      drop(s, "session_ttl");
    } else {
      timers_.arm(s, next_deadline(s));
    }
    return;
  }
  if (now >= s.token_expires_) {
    ++stats_.expired;
    end_connection(s, ending::close_expired, now);
    return;
  }
  const transport kind = s.transport_;
  if (kind == transport::poll) {
    ++stats_.poll_timeout;
    end_connection(s, ending::reconnect_timeout, now);
    return;
  }
  if (kind == transport::ws && now >= s.last_activity_ + cfg_.idle_timeout) {
    ++stats_.idle;
    end_connection(s, ending::close_idle, now);
    return;
  }
  if (cfg_.max_connection_age.count() > 0 && now >= s.attached_at_ + cfg_.max_connection_age) {
    ++stats_.max_age;
    end_connection(s, ending::reconnect_rebalance, now);
    return;
  }
  if (now >= s.last_sent_ + cfg_.heartbeat) {
    s.last_sent_ = now;
    s.conn_->heartbeat();
  } else {
    ++stats_.moves_activity;  // nothing due: activity or traffic pushed the deadline later
  }
  timers_.arm(s, next_deadline(s));
}

session* session_table::adopt(std::string_view user, std::string_view sid, subscriber& conn) {
  session* s = find(user, sid);
  if (!s || !s->adopting_ || conn.kind() != s->transport_) return nullptr;
  s->adopting_ = false;
  go_live(*s, conn);
  return s;  // its node stays armed as it was restored
}

void session_table::end_adoption(time_point now) {
  std::vector<session*> lost;
  for (const auto& s : sessions_) {
    if (s->adopting_) lost.push_back(s.get());
  }
  for (session* s : lost) {
    s->adopting_ = false;
    s->detached_at_ = now;
    idle_.erase(idle_.iterator_to(*s));  // the newest idle now
    idle_.push_back(*s);
    s->paced_until_ = pacer_.walked_to();
    // As detach does: a long-poll between two polls stays online until its TTL.
    if (s->transport_ != transport::poll) observers_.go_offline(*s, "closed");
    timers_.arm(*s, next_deadline(*s));
    if (on_detached_) on_detached_(*s);
  }
}

void session_table::tell_online(session_events& o) const {
  for (const auto& s : sessions_) {
    if (s->online_) o.on_connect(*s, true);
  }
}

}  // namespace ringcast
