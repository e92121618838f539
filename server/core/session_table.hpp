// One loop's sessions: the table by key, each user's live and idle sessions, every idle session in
// the order it lost its connection, the node's budget against --max-sessions and who is displaced
// to keep within it. The one place a session gains and loses its live connection (go_live,
// detach_now: the live index, the pacing ring and the per-transport counts follow it), and where
// it ends: its timers (session_timers.cpp: heartbeat, idle, poll timeout, max age, TTL), kick,
// evict, drain.
#pragma once

#include <boost/intrusive/list.hpp>
#include <boost/unordered/unordered_flat_set.hpp>
#include <chrono>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <string_view>

#include "config/config.hpp"
#include "core/loop_stats.hpp"
#include "core/loop_timers.hpp"
#include "core/session.hpp"
#include "core/session_budget.hpp"
#include "core/session_events.hpp"
#include "core/user_sessions.hpp"

namespace ringcast {

class audience_index;
class home_slots;
class message_store;
class pacer;
class session_observers;

class session_table {
 public:
  using time_point = timing_wheel::time_point;

  // The parts a session's life reaches: its channels and the live index, the pacing ring, its
  // observers, and the newest id (for the notice that ends a connection).
  session_table(const config& cfg, loop_timers& timers, loop_stats& stats, audience_index& audience,
                pacer& pacer, session_observers& observers, const message_store& messages);
  ~session_table();

  session* find(std::string_view user, std::string_view sid) const;
  // A new session of (user, sid), without a connection. make_room said yes before (for a
  // WebSocket, before its upgrade); if the user or the node filled up meanwhile, the oldest idle
  // session still makes way.
  session& create(std::string_view user, std::string_view sid);
  // Each user's sessions (the audience index walks a user's live ones).
  sessions_by_user& users() { return by_user_; }
  std::size_t size() const { return sessions_.size(); }

  // `s` (without a connection) gets `conn`: it joins the live index and the pacing ring, and is
  // counted by its transport. Its timer is the caller's.
  void go_live(session& s, subscriber& conn);
  // `s` loses its connection: the reverse of go_live; its TTL starts (its node is re-armed), and
  // the on_detached hook is told.
  void detach_now(session& s, time_point now);
  // Ends the session's live connection with `why` (the subscriber sends the notice and closes).
  void end_connection(session& s, ending why, time_point now);
  void on_detached(std::function<void(const session&)> hook) { on_detached_ = std::move(hook); }

  enum class room { ok, over_total, over_user };
  room make_room(std::string_view user, std::string_view sid);
  void share_budget(session_budget& b) { budget_ = &b; }
  // Each session counts in its user's home slot (home_slots.hpp) as a session of loop `loop`.
  void share_homes(home_slots& homes, std::size_t loop) {
    homes_ = &homes;
    loop_ = loop;
  }
  void displace_elsewhere_with(std::function<void()> ask) { displace_elsewhere_ = std::move(ask); }
  bool displace_longest_idle();

  std::size_t kick(std::string_view user, time_point now);
  void drain(time_point now);
  void evict(std::string_view key, time_point now);

  // The upgrade's adoption (hub.hpp, restore).
  session* adopt(std::string_view user, std::string_view sid, subscriber& conn);
  void end_adoption(time_point now);
  void tell_online(session_events& o) const;

  // session_timers.cpp: when the session's node is due next, and what happens when it fires.
  time_point next_deadline(const session& s) const;
  void on_timer(session& s, time_point now);

 private:
  friend class hub;  // capture and restore (core/loop_handover.cpp) walk the lists
  void drop(session& s, std::string_view reason);
  // The one count of live connections by transport (loop_stats ws, sse, poll).
  std::uint64_t& live_count(transport kind);
  // Moves the session between its user's live and idle lists as its connection comes and goes.
  void user_list_live(session& s);
  void user_list_idle(session& s);
  // Drops the user's oldest idle session if the user holds its limit; false if all are live.
  bool displace_for_new_session(std::string_view user);
  // In and out of idle_, counted in the node's budget.
  void join_idle(session& s);
  // Counts a new or restored session in its user's home slot; drop uncounts it. False if another
  // loop holds the slot.
  bool count_home(session& s);
  void leave_idle(session& s);
  // How long `s`, without a connection, is kept: --session-ttl, or --first-poll-ttl for a
  // session whose one connection was a long-poll answered at once (its client never came back).
  std::chrono::milliseconds detached_ttl(const session& s) const;
  std::uint32_t retry_ms_for(ending why);

  const config& cfg_;
  loop_timers& timers_;
  loop_stats& stats_;
  audience_index& audience_;
  pacer& pacer_;
  session_observers& observers_;
  const message_store& messages_;
  std::function<void(const session&)> on_detached_;
  std::function<void()> displace_elsewhere_;
  std::minstd_rand rng_;

  // Found by (user, sid) with no key string made: hashed and compared by the two names. Open
  // addressing: looking up a session that is not there (every new one) reads one group of
  // metadata, not a bucket and a chain of nodes (docs/performance.md §22).
  struct by_names {
    using is_transparent = void;
    static session_name names(session_name n) { return n; }
    static session_name names(const std::unique_ptr<session>& s) { return {s->user(), s->sid()}; }
    template <class N>
    std::size_t operator()(const N& n) const {
      const session_name both = names(n);
      std::size_t h = std::hash<std::string_view>{}(both.user);
      return h ^
             (std::hash<std::string_view>{}(both.sid) + 0x9e3779b97f4a7c15 + (h << 6) + (h >> 2));
    }
    template <class A, class B>
    bool operator()(const A& a, const B& b) const {
      const session_name x = names(a), y = names(b);
      return x.user == y.user && x.sid == y.sid;
    }
  };
  boost::unordered_flat_set<std::unique_ptr<session>, by_names, by_names> sessions_;
  sessions_by_user by_user_;  // live and idle, by user
  // Every session without a connection, of any user, in the order they lost it (intrusive too).
  using idle_list = boost::intrusive::list<
      session, boost::intrusive::member_hook<session, boost::intrusive::list_member_hook<>,
                                             &session::idle_link_>>;
  idle_list idle_;
  session_budget own_budget_;
  session_budget* budget_ = &own_budget_;
  home_slots* homes_ = nullptr;  // none: a hub alone (tests), or a node of one loop
  std::size_t loop_ = 0;
};

}  // namespace ringcast
