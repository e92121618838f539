#include "core/session_table.hpp"

#include <vector>

#include "core/audience_index.hpp"
#include "core/home_slots.hpp"
#include "core/message_store.hpp"
#include "core/pacer.hpp"
#include "core/pacing.hpp"
#include "core/session_observers.hpp"

namespace ringcast {

session_table::session_table(const config& cfg, loop_timers& timers, loop_stats& stats,
                             audience_index& audience, pacer& pacer, session_observers& observers,
                             const message_store& messages)
    : cfg_(cfg),
      timers_(timers),
      stats_(stats),
      audience_(audience),
      pacer_(pacer),
      observers_(observers),
      messages_(messages),
      rng_(std::random_device{}()),
      own_budget_(cfg.session_limit()) {}

session_table::~session_table() {
  for (auto& [user, list] : by_user_) {
    list.live.clear();
    list.idle.clear();
  }
  idle_.clear();
  for (const auto& s : sessions_)
    timers_.disarm(*s);  // sessions keep the bare node: the table disarms them
}

session* session_table::find(std::string_view user, std::string_view sid) const {
  const auto it = sessions_.find(session_name{user, sid});
  return it == sessions_.end() ? nullptr : it->get();
}

session& session_table::create(std::string_view user, std::string_view sid) {
  displace_for_new_session(user);
  if (budget_->full()) displace_longest_idle();
  auto owned = std::make_unique<session>(*this, std::string(user), std::string(sid),
                                         pacing::place_of(session_key(user, sid)));
  session& s = **sessions_.insert(std::move(owned)).first;
  by_user_[s.user()].idle.push_back(s);
  budget_->take();
  count_home(s);
  ++stats_.sessions_created;
  return s;
}

std::uint64_t& session_table::live_count(transport kind) {
  switch (kind) {
    case transport::sse:
      return stats_.sse;
    case transport::poll:
      return stats_.poll;
    case transport::ws:
      break;
  }
  return stats_.ws;
}

void session_table::go_live(session& s, subscriber& conn) {
  s.conn_ = &conn;
  user_list_live(s);
  s.transport_ = conn.kind();
  audience_.join_live(s);
  pacer_.join(s);
  ++live_count(s.transport_);
}

void session_table::detach_now(session& s, time_point now) {
  --live_count(s.transport_);
  s.conn_ = nullptr;
  user_list_idle(s);
  audience_.leave_live(s);
  pacer_.leave(s);  // turns after this come while it is away
  s.detached_at_ = now;
  timers_.arm(s, next_deadline(s));
  if (on_detached_) on_detached_(s);
}

void session_table::end_connection(session& s, ending why, time_point now) {
  subscriber* conn = s.conn_;
  if (!conn) return;
  conn->detaching();
  detach_now(s, now);
  // A poll answered `timeout` comes straight back; a replaced connection has its successor.
  const bool goes_on = why == ending::reconnect_timeout || why == ending::reconnect_replaced ||
                       why == ending::close_replaced;
  if (!goes_on) observers_.go_offline(s, reason_of(why));
  conn->end(make_ending(why, retry_ms_for(why), messages_.newest_id()));
}

std::size_t session_table::kick(std::string_view user, time_point now) {
  auto it = by_user_.find(user);
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

void session_table::drain(time_point now) {
  while (session* s = audience_.last_live())
    end_connection(*s, ending::reconnect_shutdown, now);
  for (const auto& s : sessions_)
    observers_.go_offline(*s, "shutdown");  // long-poll sessions between two polls
}

void session_table::evict(std::string_view key, time_point now) {
  const auto names = split_session_key(key);
  session* found = names ? find(names->user, names->sid) : nullptr;
  if (!found) return;
  session& s = *found;
  if (s.conn_) {
    ++stats_.replaced;
    end_connection(
        s, s.transport_ == transport::poll ? ending::reconnect_replaced : ending::close_replaced,
        now);
  }
  drop(s, "replaced");
}

void session_table::drop(session& s, std::string_view reason) {
  observers_.go_offline(s, reason);  // first: leaving every channel is part of going away
  timers_.disarm(s);
  audience_.set_channels(s, {}, 0);
  auto same_user = by_user_.find(s.user());
  auto& list = s.conn_ ? same_user->second.live : same_user->second.idle;
  list.erase(list.iterator_to(s));
  leave_idle(s);
  if (same_user->second.size() == 0) by_user_.erase(same_user);
  budget_->give_back();
  if (s.counted_home_) homes_->uncount_session(s.user());
  sessions_.erase(sessions_.find(session_name{s.user(), s.sid()}));  // destroys s
}

// A session gains its connection only while it has none (attach ends the one it replaces first).
void session_table::user_list_live(session& s) {
  auto& lists = by_user_.find(s.user())->second;
  lists.idle.erase(lists.idle.iterator_to(s));
  lists.live.push_back(s);
  leave_idle(s);  // (a new one never was idle)
}

void session_table::user_list_idle(session& s) {
  auto& lists = by_user_.find(s.user())->second;
  lists.live.erase(lists.live.iterator_to(s));
  lists.idle.push_back(s);
  join_idle(s);
}

void session_table::join_idle(session& s) {
  idle_.push_back(s);
  budget_->idle_in();
}

// A connect handed here by its user's slot holds the slot for this loop (client_start.cpp), so its
// session always counts. A Pusher session is made where it was accepted and is never looked for by
// its slot: where another loop holds the slot, it does not count.
bool session_table::count_home(session& s) {
  if (homes_) s.counted_home_ = homes_->count_session(s.user(), loop_);
  return s.counted_home_ || !homes_;
}

void session_table::leave_idle(session& s) {
  if (!s.idle_link_.is_linked()) return;
  idle_.erase(idle_.iterator_to(s));
  budget_->idle_out();
}

bool session_table::displace_for_new_session(std::string_view user) {
  auto it = by_user_.find(user);
  if (it == by_user_.end() || it->second.size() < cfg_.max_sessions_per_user) return true;
  if (it->second.idle.empty()) return false;
  ++stats_.displaced;
  drop(it->second.idle.front(), "session_ttl");  // gone as at its TTL
  return true;
}

// The table is full of sessions nobody may come back to (a client polling under many names, the
// tabs of shoppers who left): the one idle longest goes, so a newcomer is never locked out by them.
bool session_table::displace_longest_idle() {
  if (idle_.empty()) return false;
  ++stats_.displaced;
  drop(idle_.front(), "session_ttl");  // gone as at its TTL
  return true;
}

session_table::room session_table::make_room(std::string_view user, std::string_view sid) {
  if (find(user, sid)) return room::ok;
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
