// The hub's session timers: when a session's node is due next, and what happens when it fires
// (docs/protocol.md, "Timeouts and keep-alive").
#include "hub.hpp"

namespace ringcast {

std::uint32_t hub::retry_ms_for(ending why) {
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
std::chrono::milliseconds hub::detached_ttl(const session& s) const {
  const bool answered_at_once = s.transport_ == transport::poll && !s.came_back_ &&
                                s.detached_at_ - s.attached_at_ < cfg_.tick;
  return answered_at_once ? std::min(cfg_.first_poll_ttl, cfg_.session_ttl) : cfg_.session_ttl;
}

hub::time_point hub::next_deadline(const session& s) const {
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

void hub::on_session_timer(session& s, time_point now) {
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

}  // namespace ringcast
