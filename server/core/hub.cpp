#include "hub.hpp"

#include <algorithm>

namespace ringcast {
namespace {

// Rounded up: a client told 0 for a 500 ms idle timeout would take it for "none".
std::uint32_t whole_seconds(std::chrono::milliseconds d) {
  return static_cast<std::uint32_t>(std::chrono::ceil<std::chrono::seconds>(d).count());
}

}  // namespace

void session::on_timer(time_point now) {
  hub_.on_session_timer(*this, now);
}

hub::hub(const config& cfg, loop_timers& timers, loop_stats& stats, std::uint64_t floor_id)
    : cfg_(cfg),
      timers_(timers),
      history_(cfg.history, floor_id),
      stats_(stats),
      rng_(std::random_device{}()),
      own_budget_(cfg.session_limit()) {}

hub::~hub() {
  pacing_index_.clear();
  for (auto& [user, list] : by_user_) {
    list.live.clear();
    list.idle.clear();
  }
  idle_.clear();
  for (auto& [key, s] : sessions_)
    timers_.disarm(*s);  // sessions keep the bare node: the hub disarms them
}

hub::attach_result hub::attach(const client_params& params, subscriber& conn, time_point now,
                               bool known_elsewhere) {
  attach_result r;
  const std::string key = session_key(params.user, params.sid);
  auto& slot = sessions_[key];
  if (slot || known_elsewhere) {
    r.resumed = true;
    if (slot) slot->came_back_ = true;
    ++stats_.sessions_reused;
    if (slot) ++stats_.moves_reconnect;
  }
  const bool new_here = !slot;
  if (!slot) {
    // make_room said yes before (for a WebSocket, before its upgrade); if the user or the node
    // filled up meanwhile, the oldest idle session still makes way.
    displace_for_new_session(params.user);
    if (budget_->full()) displace_longest_idle();
    slot = std::make_unique<session>(*this, params.user, params.sid, pacing::place_of(key));
    slot->came_back_ = known_elsewhere;
    // Paced messages already published are not a new session's business unless it resumes.
    slot->start_id_ = params.since ? 0 : history_.newest_id();
    by_user_[params.user].idle.push_back(*slot);
    budget_->take();
    ++stats_.sessions_created;
  }
  session& s = *slot;
  r.s = &s;
  // What this connection is sent starts after `since`, or now (was_sent).
  const std::uint64_t starts_after = params.since.value_or(history_.newest_id());
  if (!params.since || starts_after > s.sent_up_to_)
    s.ack_floor_ = std::max(s.ack_floor_, starts_after);
  set_channels(s, params.channels, starts_after);
  s.allowed_channels_ = params.allowed_channels;
  s.token_expires_ = params.expires.value_or(time_point::max());

  if (s.conn_) {
    ++stats_.replaced;
    end_connection(
        s, s.transport_ == transport::poll ? ending::reconnect_replaced : ending::close_replaced,
        now);
  }
  s.conn_ = &conn;
  user_list_live(s);
  s.transport_ = conn.kind();
  s.attached_index_ = attached_.size();
  attached_.push_back(&s);
  pacing_index_.insert(s);
  s.attached_at_ = s.last_activity_ = s.last_sent_ = now;
  switch (conn.kind()) {
    case transport::ws:
      ++stats_.ws;
      break;
    case transport::sse:
      ++stats_.sse;
      break;
    case transport::poll:
      ++stats_.poll;
      break;
  }

  r.last_id = history_.newest_id();
  std::size_t owed = 0;  // paced messages owed from before `since`: never cut from the reply
  if (params.since && s.first_backlog_after_) {
    r.backlog = first_backlog_rest(s, *params.since, owed, r.gap);  // hub_sticky.cpp
  } else if (params.since) {
    const auto span = history_.after(*params.since);
    r.gap = span.gap;
    r.backlog = resume_backlog(s, *params.since, span, new_here);
    while (owed < r.backlog.size() && r.backlog[owed]->id <= *params.since)
      ++owed;
  } else {
    std::uint64_t history_after = 0;
    // In force, and rewind (hub_sticky.cpp).
    r.backlog = first_connect_backlog(s, params, history_after);
    s.first_backlog_after_ = history_after;
  }
  if (conn.kind() == transport::poll)
    r.more = bound_poll_batch(r.backlog, owed, params.since.value_or(0), r.last_id);
  if (!r.more) s.first_backlog_after_.reset();  // the backlog is all sent (or was not cut)
  for (const auto& m : r.backlog) {
    m->delivered.fetch_add(1, std::memory_order_relaxed);
    s.sent_up_to_ = std::max(s.sent_up_to_, m->id);
  }
  timers_.arm(s, next_deadline(s));  // a reconnect moves the existing node: nothing is reallocated
  if (!s.online_) go_online(s, r.resumed);
  return r;
}

// At most --max-poll-batch messages, and none added once the body passed max_poll_reply_bytes
// (so at most that plus one message), whether the connect resumes or not. The paced messages
// owed from before `since` come first and are never cut: the session's next poll would not find
// them again (their turn is behind it); their number is that of the paced publishes still in the
// log. The rest is in id order, so the next poll's `since` (the last id kept) finds what is left.
bool hub::bound_poll_batch(std::vector<message_ptr>& backlog, std::size_t owed, std::uint64_t since,
                           std::uint64_t& last_id) const {
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
  detach_now(s, now);
  // A long-poll answered, or given up by its client, is followed by the next poll.
  if (s.transport_ != transport::poll) go_offline(s, "closed");
}

void hub::detach_now(session& s, time_point now) {
  switch (s.transport_) {
    case transport::ws:
      --stats_.ws;
      break;
    case transport::sse:
      --stats_.sse;
      break;
    case transport::poll:
      --stats_.poll;
      break;
  }
  s.conn_ = nullptr;
  user_list_idle(s);
  // Swap-remove; publish() walks attached_ backwards so a removal during delivery is safe.
  session* last = attached_.back();
  attached_[s.attached_index_] = last;
  last->attached_index_ = s.attached_index_;
  attached_.pop_back();
  pacing_index_.erase(s);
  s.paced_until_ = paced_.walked_to();  // turns after this come while it is away
  s.detached_at_ = now;
  timers_.arm(s, next_deadline(s));
  if (on_detached_) on_detached_(s);
}

void hub::end_connection(session& s, ending why, time_point now) {
  subscriber* conn = s.conn_;
  if (!conn) return;
  detach_now(s, now);
  // A poll answered `timeout` comes straight back; a replaced connection has its successor.
  const bool goes_on = why == ending::reconnect_timeout || why == ending::reconnect_replaced ||
                       why == ending::close_replaced;
  if (!goes_on) go_offline(s, reason_of(why));
  conn->end(make_ending(why, retry_ms_for(why), history_.newest_id()));
}

std::size_t hub::kick(std::string_view user, time_point now) {
  auto it = by_user_.find(std::string(user));
  if (it == by_user_.end()) return 0;
  std::vector<session*> victims;  // drop() edits the lists
  for (auto* list : {&it->second.live, &it->second.idle})
    for (session& s : *list)
      victims.push_back(&s);
  std::size_t kicked = 0;
  for (session* s : victims) {
    if (s->conn_) {
      ++kicked;
      ++stats_.kicked;
      end_connection(*s, ending::close_kicked, now);
    }
    drop(*s, "kicked");
  }
  return kicked;
}

void hub::drain(time_point now) {
  while (!attached_.empty())
    end_connection(*attached_.back(), ending::reconnect_shutdown, now);
  for (auto& [key, s] : sessions_)
    go_offline(*s, "shutdown");  // long-poll sessions between two polls
}

void hub::evict(std::string_view key, time_point now) {
  auto it = sessions_.find(std::string(key));
  if (it == sessions_.end()) return;
  session& s = *it->second;
  if (s.conn_) {
    ++stats_.replaced;
    end_connection(
        s, s.transport_ == transport::poll ? ending::reconnect_replaced : ending::close_replaced,
        now);
  }
  drop(s, "replaced");
}

void hub::drop(session& s, std::string_view reason) {
  if (s.online_) go_offline(s, reason);  // first: leaving every channel is part of going away
  timers_.disarm(s);
  set_channels(s, {}, 0);
  auto same_user = by_user_.find(s.user());
  auto& list = s.conn_ ? same_user->second.live : same_user->second.idle;
  list.erase(list.iterator_to(s));
  leave_idle(s);
  if (same_user->second.size() == 0) by_user_.erase(same_user);
  budget_->give_back();
  sessions_.erase(s.key());  // destroys s
}

// A session gains its connection only while it has none (attach ends the one it replaces first).
void hub::user_list_live(session& s) {
  auto& lists = by_user_.find(s.user())->second;
  lists.idle.erase(lists.idle.iterator_to(s));
  lists.live.push_back(s);
  leave_idle(s);  // (a new one never was idle)
}

void hub::user_list_idle(session& s) {
  auto& lists = by_user_.find(s.user())->second;
  lists.live.erase(lists.live.iterator_to(s));
  lists.idle.push_back(s);
  join_idle(s);
}

void hub::join_idle(session& s) {
  idle_.push_back(s);
  budget_->idle_in();
}

void hub::leave_idle(session& s) {
  if (!s.idle_link_.is_linked()) return;
  idle_.erase(idle_.iterator_to(s));
  budget_->idle_out();
}

bool hub::displace_for_new_session(std::string_view user) {
  auto it = by_user_.find(std::string(user));
  if (it == by_user_.end() || it->second.size() < cfg_.max_sessions_per_user) return true;
  if (it->second.idle.empty()) return false;
  ++stats_.displaced;
  drop(it->second.idle.front(), "session_ttl");  // gone as at its TTL
  return true;
}

// The table is full of sessions nobody may come back to (a client polling under many names, the
// tabs of shoppers who left): the one idle longest goes, so a newcomer is never locked out by them.
bool hub::displace_longest_idle() {
  if (idle_.empty()) return false;
  ++stats_.displaced;
  drop(idle_.front(), "session_ttl");  // gone as at its TTL
  return true;
}

hub::room hub::make_room(std::string_view user, std::string_view sid) {
  if (sessions_.contains(session_key(user, sid))) return room::ok;
  if (!displace_for_new_session(user)) {
    ++stats_.sessions_refused_user;
    return room::over_user;
  }
  if (!budget_->full() || displace_longest_idle()) return room::ok;
  // Every session here is live, but another loop holds idle ones: one of them goes, a moment
  // after this session comes (the node holds one more than the limit until then).
  if (budget_->any_idle() && displace_elsewhere_) {
    displace_elsewhere_();
    return room::ok;
  }
  ++stats_.sessions_refused_total;
  return room::over_total;
}

}  // namespace ringcast
