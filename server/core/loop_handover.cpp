// The hub's part of the handover to a new binary (docs/operations.md, "Upgrading"): what one loop
// holds, as plain state (upgrade/handover_state.hpp) and back. Sessions, ttls and paced messages
// hold their records (upgrade/*_record.hpp), carried whole (upgrade::carry, through to_state and
// from_state); the lists around them are this file's. Steady times are kept relative to the
// capture, so that the restored hub's timers come due as far after the restore as they were ahead
// at the capture: none fires early, none twice (a timer that was due fires once, at the restored
// loop's next tick).
#include <algorithm>

#include "core/hub.hpp"
#include "core/log.hpp"
#include "upgrade/record_walk.hpp"

namespace ringcast {

// A field added to one of these fails the build here until capture and restore carry it (the
// records in them they carry whole).
static_assert(boost::pfr::tuple_size_v<upgrade::session_state> == 3 &&
              boost::pfr::tuple_size_v<upgrade::loop_state> == 7);

upgrade::loop_state hub::capture(time_point now, handover_messages& messages) const {
  const to_state to{now, messages};
  upgrade::loop_state out;
  const auto span = store_.history_.after(0);
  out.history_floor = store_.history_.floor_id();
  for (auto it = span.begin; it != span.end; ++it)
    out.history.push_back(to(*it));
  for (const auto& m : store_.sticky_.in_force())
    out.sticky.push_back(to(m));
  for (const auto& [id, e] : store_.expiring_)
    upgrade::carry(static_cast<const message_store::expiry::record&>(*e),
                   out.expiring.emplace_back(), to);
  std::sort(out.expiring.begin(), out.expiring.end(),
            [](const auto& a, const auto& b) { return a.msg < b.msg; });
  out.paced_walked_to = to(pacer_.log_.walked_to());
  for (const auto& p : pacer_.log_.messages())
    upgrade::carry(static_cast<const pacing::paced_message::record&>(p), out.paced.emplace_back(),
                   to);
  // A user's idle sessions first, oldest idle first, then its live ones: restored in this order
  // into the idle list, a live session whose connection is not adopted is the newest idle.
  for (const auto& [user, lists] : table_.by_user_) {
    for (const auto* list : {&lists.idle, &lists.live}) {
      for (const session& s : *list) {
        upgrade::session_state& st = out.sessions.emplace_back();
        upgrade::carry(static_cast<const session::record&>(s), st.record, to);
        st.live = s.conn_ != nullptr;
        st.timer_due = to(s.armed() ? timers_.wheel().due_time(s) : table_.next_deadline(s));
      }
    }
  }
  return out;
}

void hub::restore(const upgrade::loop_state& state, const handover_messages& messages,
                  time_point now) {
  const from_state from{now, messages};

  std::vector<message_ptr> retained;
  retained.reserve(state.history.size());
  for (const auto id : state.history)
    retained.push_back(from(id));
  store_.history_.restore(state.history_floor, retained);
  for (const auto id : state.sticky)
    store_.sticky_.add(from(id));
  for (const auto& e : state.expiring) {
    message_store::expiry::record r;
    upgrade::carry(e, r, from);
    store_.expire_at(std::move(r));
  }

  std::deque<pacing::paced_message> paced;
  for (const auto& st : state.paced) {
    pacing::paced_message& p = paced.emplace_back();
    upgrade::carry(st, static_cast<pacing::paced_message::record&>(p), from);
    p.complete();
  }
  pacer_.log_.restore(std::move(paced), from(state.paced_walked_to));
  // The first tick after the restore walks: early is harmless (a walk hands over only the turns
  // that came), and the old loop's timer was never more than a tick ahead.
  if (pacer_.log_.any_in_flight()) pacer_.timer_.arm_at(now);

  for (const auto& st : state.sessions) {
    // A hub restores into nothing: the codec refuses a key twice.
    if (table_.find(st.record.user_, st.record.sid_)) continue;
    session& s = **table_.sessions_
                       .insert(std::make_unique<session>(
                           table_, st.record.user_, st.record.sid_,
                           pacing::place_of(session_key(st.record.user_, st.record.sid_))))
                       .first;
    upgrade::carry(st.record, static_cast<session::record&>(s), from);
    for (const auto& c : s.channels_)
      audience_.by_channel_[c].insert(&s);
    // A live one whose connection does not come loses it at end_adoption, before the wheel
    // advances: its TTL and paced turns count from then.
    s.adopting_ = st.live;
    // Not in the state: a restored session is not taken for one whose client never came back,
    // and a first connect's cut backlog goes on as a plain resume (docs/protocol.md, "Long-poll").
    s.came_back_ = true;
    table_.by_user_[s.user()].idle.push_back(s);
    table_.join_idle(s);
    table_.budget_->take();
    // The old process held the slot on this loop's index too (same slots, same hash, same loop
    // count: node::restore), so this only fails on a state no process of this version wrote.
    if (!table_.count_home(s))
      log_warn("upgrade: the session of {} is restored on loop {}, whose slot another loop holds",
               s.user(), table_.loop_);
    timers_.arm(s, from(st.timer_due));
  }
  // Longest idle first; a live one waiting for its connection leaves it (adopt) or becomes the
  // newest idle (end_adoption) before any connect can displace it.
  table_.idle_.sort(
      [](const session& a, const session& b) { return a.detached_at_ < b.detached_at_; });
}

}  // namespace ringcast
