// The hub's part of the handover to a new binary (docs/operations.md, "Upgrading"): what one loop
// holds, as plain state (upgrade/handover_state.hpp) and back. Steady times are kept relative to
// the capture, so that the restored hub's timers come due as far after the restore as they were
// ahead at the capture: none fires early, none twice (a timer that was due fires once, at the
// restored loop's next tick).
#include <algorithm>

#include "hub.hpp"
#include "record_walk.hpp"

namespace ringcast {

// A field added to one of these states fails the build here until capture and restore carry it
// (a session's own fields are in its record, which they carry whole).
static_assert(boost::pfr::tuple_size_v<upgrade::session_state> == 3 &&
              boost::pfr::tuple_size_v<upgrade::loop_state> == 7 &&
              boost::pfr::tuple_size_v<upgrade::expiry_state> == 2 &&
              boost::pfr::tuple_size_v<upgrade::paced_state> == 4);

upgrade::loop_state hub::capture(time_point now, handover_messages& messages) const {
  auto rel = [now](time_point t) { return relative_to(t, now); };
  auto keep = [&](const message_ptr& m) {
    messages.emplace(m->id, m);
    return m->id;
  };
  upgrade::loop_state out;
  const auto span = history_.after(0);
  out.history_floor = history_.floor_id();
  for (auto it = span.begin; it != span.end; ++it)
    out.history.push_back(keep(*it));
  for (const auto& m : sticky_.in_force())
    out.sticky.push_back(keep(m));
  for (const auto& [id, e] : expiring_)
    out.expiring.push_back({keep(e->m_), rel(timers_.wheel().due_time(*e))});
  std::sort(out.expiring.begin(), out.expiring.end(),
            [](const auto& a, const auto& b) { return a.id < b.id; });
  out.paced_walked_to = rel(paced_.walked_to());
  for (const auto& p : paced_.messages()) {
    out.paced.push_back({.id = keep(p.msg),
                         .start = rel(p.start),
                         .walked_lo = static_cast<std::uint64_t>(p.walked),
                         .walked_hi = static_cast<std::uint8_t>(p.walked >> 64)});
  }
  // A user's idle sessions first, oldest idle first, then its live ones: restored in this order
  // into the idle list, a live session whose connection is not adopted is the newest idle.
  for (const auto& [user, lists] : by_user_) {
    for (const auto* list : {&lists.idle, &lists.live}) {
      for (const session& s : *list) {
        upgrade::session_state st;
        upgrade::carry(static_cast<const session::record&>(s), st.record, rel);
        st.live = s.conn_ != nullptr;
        st.timer_due = rel(s.armed() ? timers_.wheel().due_time(s) : next_deadline(s));
        out.sessions.push_back(std::move(st));
      }
    }
  }
  return out;
}

void hub::restore(const upgrade::loop_state& state, const handover_messages& messages,
                  time_point now) {
  auto at = [now](upgrade::rel_ns t) { return absolute_from(t, now); };
  // The codec checked that every id named here is a message of the state.
  auto msg = [&](std::uint64_t id) { return messages.at(id); };

  std::vector<message_ptr> retained;
  retained.reserve(state.history.size());
  for (const auto id : state.history)
    retained.push_back(msg(id));
  history_.restore(state.history_floor, retained);
  for (const auto id : state.sticky)
    sticky_.add(msg(id));
  for (const auto& e : state.expiring)
    expire_at(msg(e.id), at(e.due));

  std::deque<pacing::paced_message> paced;
  for (const auto& p : state.paced) {
    const message_ptr m = msg(p.id);
    paced.push_back({.msg = m,
                     .start = at(p.start),
                     .spread = std::chrono::duration_cast<pacing::duration>(m->spread),
                     .turn = pacing::turn_of(m->id),
                     .walked = (pacing::u128{p.walked_hi} << 64) | p.walked_lo});
  }
  paced_.restore(std::move(paced), at(state.paced_walked_to));
  // The first tick after the restore walks: early is harmless (a walk hands over only the turns
  // that came), and the old loop's timer was never more than a tick ahead.
  if (paced_.any_in_flight()) pacing_timer_.arm_at(now);

  for (const auto& st : state.sessions) {
    const std::string key = session_key(st.record.user_, st.record.sid_);
    auto [slot, fresh] = sessions_.try_emplace(key);
    if (!fresh) continue;  // a hub restores into nothing: the codec refuses a key twice
    slot->second =
        std::make_unique<session>(*this, st.record.user_, st.record.sid_, pacing::place_of(key));
    session& s = *slot->second;
    upgrade::carry(st.record, static_cast<session::record&>(s), at);
    for (const auto& c : s.channels_)
      by_channel_[c].insert(&s);
    // A live one whose connection does not come loses it at end_adoption, before the wheel
    // advances: its TTL and paced turns count from then.
    s.adopting_ = st.live;
    // Not in the state: a restored session is not taken for one whose client never came back,
    // and a first connect's cut backlog goes on as a plain resume (docs/protocol.md, "Long-poll").
    s.came_back_ = true;
    by_user_[s.user()].idle.push_back(s);
    join_idle(s);
    budget_->take();
    timers_.arm(s, at(st.timer_due));
  }
  // Longest idle first; a live one waiting for its connection leaves it (adopt) or becomes the
  // newest idle (end_adoption) before any connect can displace it.
  idle_.sort([](const session& a, const session& b) { return a.detached_at_ < b.detached_at_; });
}

session* hub::adopt(std::string_view user, std::string_view sid, subscriber& conn) {
  const auto it = sessions_.find(session_key(user, sid));
  if (it == sessions_.end() || !it->second->adopting_ || conn.kind() != it->second->transport_)
    return nullptr;
  session& s = *it->second;
  s.adopting_ = false;
  s.conn_ = &conn;
  user_list_live(s);
  s.attached_index_ = attached_.size();
  attached_.push_back(&s);
  pacing_index_.insert(s);
  switch (s.transport_) {
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
  return &s;  // its node stays armed as it was restored
}

void hub::end_adoption(time_point now) {
  std::vector<session*> lost;
  for (auto& [key, s] : sessions_) {
    if (s->adopting_) lost.push_back(s.get());
  }
  for (session* s : lost) {
    s->adopting_ = false;
    s->detached_at_ = now;
    idle_.erase(idle_.iterator_to(*s));  // the newest idle now
    idle_.push_back(*s);
    s->paced_until_ = paced_.walked_to();
    // As detach does: a long-poll between two polls stays online until its TTL.
    if (s->transport_ != transport::poll) go_offline(*s, "closed");
    timers_.arm(*s, next_deadline(*s));
    if (on_detached_) on_detached_(*s);
  }
}

void hub::tell_online(session_events& o) const {
  for (const auto& [key, s] : sessions_) {
    if (s->online_) o.on_connect(*s, true);
  }
}

}  // namespace ringcast
