#include "core/hub.hpp"

#include <algorithm>

#include "core/envelope.hpp"

namespace ringcast {
namespace {

// Rounded up: a client told 0 for a 500 ms idle timeout would take it for "none".
std::uint32_t whole_seconds(std::chrono::milliseconds d) {
  return static_cast<std::uint32_t>(std::chrono::ceil<std::chrono::seconds>(d).count());
}

}  // namespace

hub::hub(const config& cfg, loop_timers& timers, loop_stats& stats, std::uint64_t floor_id)
    : cfg_(cfg),
      timers_(timers),
      stats_(stats),
      table_(cfg, timers, stats, audience_, pacer_, observers_, store_),
      audience_(table_.users(), observers_),
      pacer_(cfg, timers, stats),
      store_(cfg, timers, stats, floor_id, audience_, pacer_) {}

hub::attach_result hub::attach(const client_params& params, subscriber& conn, time_point now,
                               bool known_elsewhere) {
  attach_result r;
  session* found = table_.find(params.user, params.sid);
  if (found || known_elsewhere) {
    r.resumed = true;
    if (found) found->came_back_ = true;
    ++stats_.sessions_reused;
    if (found) ++stats_.moves_reconnect;
  }
  const bool new_here = !found;
  if (new_here) {
    found = &table_.create(params.user, params.sid);
    found->came_back_ = known_elsewhere;
    // Paced messages already published are not a new session's business unless it resumes.
    found->start_id_ = params.since ? 0 : store_.newest_id();
  }
  session& s = *found;
  r.s = &s;
  // What this connection is sent starts after `since`, or now (was_sent).
  const std::uint64_t starts_after = params.since.value_or(store_.newest_id());
  if (!params.since || starts_after > s.sent_up_to_)
    s.ack_floor_ = std::max(s.ack_floor_, starts_after);
  audience_.set_channels(s, params.channels, starts_after);
  s.allowed_channels_ = params.allowed_channels;
  s.token_expires_ = params.expires.value_or(time_point::max());

  if (s.conn_) {
    ++stats_.replaced;
    table_.end_connection(
        s, s.transport_ == transport::poll ? ending::reconnect_replaced : ending::close_replaced,
        now);
  }
  table_.go_live(s, conn);
  s.attached_at_ = s.last_activity_ = s.last_sent_ = now;

  r.last_id = store_.newest_id();
  std::size_t owed = 0;  // paced messages owed from before `since`: never cut from the reply
  if (params.since && s.first_backlog_after_) {
    r.backlog = store_.first_backlog_rest(s, *params.since, owed, r.gap);
  } else if (params.since) {
    const auto span = store_.messages().after(*params.since);
    r.gap = span.gap;
    r.backlog = pacer_.resume_backlog(s, *params.since, span, new_here, store_.messages());
    while (owed < r.backlog.size() && r.backlog[owed]->id <= *params.since)
      ++owed;
  } else {
    std::uint64_t history_after = 0;
    r.backlog = store_.first_connect_backlog(s, params, history_after);  // in force, and rewind
    s.first_backlog_after_ = history_after;
  }
  if (conn.kind() == transport::poll)
    r.more = store_.bound_poll_batch(r.backlog, owed, params.since.value_or(0), r.last_id);
  if (!r.more) s.first_backlog_after_.reset();  // the backlog is all sent (or was not cut)
  for (const auto& m : r.backlog) {
    if (conn.wants(*m)) m->delivered.fetch_add(1, std::memory_order_relaxed);
    s.sent_up_to_ = std::max(s.sent_up_to_, m->id);
  }
  // A reconnect moves the existing node: nothing is reallocated.
  timers_.arm(s, table_.next_deadline(s));
  if (!s.online_) observers_.go_online(s, r.resumed);
  return r;
}

std::string hub::hello_for(const attach_result& r) const {
  return hello_json({.user = r.s->user(),
                     .sid = r.s->sid(),
                     .resumed = r.resumed,
                     .last_id = r.last_id,
                     .gap = r.gap,
                     .heartbeat_s = whole_seconds(cfg_.heartbeat),
                     .idle_timeout_s = whole_seconds(cfg_.idle_timeout),
                     .session_ttl_s = whole_seconds(cfg_.session_ttl)});
}

void hub::detach(session& s, const subscriber& conn, time_point now) {
  if (s.conn_ != &conn) return;
  s.conn_->detaching();
  table_.detach_now(s, now);
  // A long-poll answered, or given up by its client, is followed by the next poll.
  if (s.transport_ != transport::poll) observers_.go_offline(s, "closed");
}

void hub::deliver(session& s, const message_ptr& m, time_point now) {
  s.last_sent_ = now;
  s.sent_up_to_ = std::max(s.sent_up_to_, m->id);
  ++stats_.delivered;
  s.conn_->deliver(m);
}

std::size_t hub::publish(const message_ptr& m, time_point now) {
  store_.keep(m, now);
  std::size_t recipients = 0;
  if (m->spread.count() > 0) {  // each at its turn (pacer), counted as delivered then
    audience_.for_each_live_addressee(*m, [&](session& s) {
      if (s.conn_->wants(*m)) ++recipients;
    });
    m->recipients.fetch_add(recipients, std::memory_order_relaxed);
    pacer_.publish(m, now);
  } else {
    audience_.for_each_live_addressee(*m, [&](session& s) {
      if (!s.conn_->wants(*m)) return;
      ++recipients;
      deliver(s, m, now);
    });
    m->recipients.fetch_add(recipients, std::memory_order_relaxed);
    m->delivered.fetch_add(recipients, std::memory_order_relaxed);
  }
  return recipients;
}

// Without a record per message sent: a session's stream is, after the last point where it started
// afresh (ack_floor_) and up to what it was last handed (sent_up_to_), every message addressed to
// it, channel messages from when it joined the channel. So the check costs 16 bytes and 8 per
// channel a session, whatever is published; a list of sent ids would grow with every message (a
// bounded one would forget what a slow reader has not acked yet). It reads the present channels
// (an ack after leaving a channel is refused). Paced messages go by their turn (reached), as their
// expiry notices do: one whose turn came while the session was away, and that it never got
// because it came back without `since`, is the one case counted that was not sent. A sticky
// message goes to every session it addresses that connects while it is in force, so it needs
// only to have been handed; a rewind lowers the floor to the oldest message rewound.
bool hub::was_sent(const session& s, const message& m) const {
  if (!pacer_.reached(s, m) || !audience_index::addressed_to(s, m)) return false;
  if (m.sticky) return m.spread.count() > 0 || m.id <= s.sent_up_to_;
  if (m.to == audience::channel) {
    const auto it = std::find(s.channels_.begin(), s.channels_.end(), m.target);
    if (m.id <= s.joined_after_[static_cast<std::size_t>(it - s.channels_.begin())]) return false;
  }
  if (m.spread.count() > 0) return true;
  return m.id > s.ack_floor_ && m.id <= s.sent_up_to_;
}

void hub::acknowledge(session& s, std::uint64_t id) {
  const message_ptr m = store_.find(id);
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

}  // namespace ringcast
