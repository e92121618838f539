// One event loop's sessions, their timers and the fan-out of published messages.
//
// No networking here: connections reach the hub through `subscriber`, time is passed in, and the
// nodes live in the loop's timer service (loop_timers.hpp), so the whole session life cycle is
// unit-tested with a simulated clock (tests/server/hub_test.cpp). The hub counts into the loop's
// `loop_stats`; it has no timer or counter API of its own.
// Every timeout of docs/protocol.md, "Timeouts and keep-alive" except the handshake is this hub's
// session node:
//   detached session      -> session TTL
//   held long-poll        -> poll timeout
//   WebSocket / SSE       -> the earliest of heartbeat, idle (WebSocket only), max connection age
// and, for a connection admitted with a client token that has an `exp`, that expiry
// (close/expired). Client activity only records a time; when the node comes due and nothing is due
// yet, the node is re-armed for the new deadline (a lazy move, as Netty's IdleStateHandler does).
#pragma once

#include <chrono>
#include <functional>
#include <memory>
#include <random>
#include <string>
#include <string_view>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include <boost/intrusive/list.hpp>

#include "client_params.hpp"
#include "config.hpp"
#include "handover_messages.hpp"
#include "history.hpp"
#include "loop_stats.hpp"
#include "loop_timers.hpp"
#include "pacing.hpp"
#include "ring_index.hpp"
#include "session.hpp"
#include "session_budget.hpp"
#include "session_events.hpp"
#include "sticky.hpp"

namespace ringcast {

class hub {
 public:
  using time_point = timing_wheel::time_point;

  // `timers`: the loop's timer service, which holds the hub's nodes; `stats`: the loop's
  // counters. `floor_id`: ids at or below it were issued before this run (see history).
  hub(const config& cfg, loop_timers& timers, loop_stats& stats, std::uint64_t floor_id);
  ~hub();

  struct attach_result {
    session* s = nullptr;
    bool resumed = false;  // the session existed: its node was moved, not allocated
    bool gap = false;
    std::uint64_t last_id = 0;
    std::vector<message_ptr> backlog;  // retained messages after `since` addressed to it
    // A long-poll's backlog is cut to one reply (--max-poll-batch, max_poll_reply_bytes): more
    // are owed, and last_id is then the last of the backlog's (the client's next `since`).
    bool more = false;
  };
  // Finds or creates the session, replaces its live connection if any, attaches `conn`.
  // `known_elsewhere`: another node held the session (multi-node), so it counts as resumed.
  attach_result attach(const client_params& params, subscriber& conn, time_point now,
                       bool known_elsewhere = false);
  std::string hello_for(const attach_result& r) const;

  // Before a connect of (user, sid), whether it may have its session: one that exists may;
  // a new one of a user already holding --max-sessions-per-user first drops the user's session
  // that lost its connection longest ago (as its TTL would), and is refused `over_user` if all
  // of them are live; at --max-sessions it drops this loop's session (of any user) that lost
  // its connection longest ago, or, if every one here is live, has another loop drop its own
  // (displace_elsewhere_with); it is refused `over_total` only if every session of the node is.
  enum class room { ok, over_total, over_user };
  room make_room(std::string_view user, std::string_view sid);
  // The node's count of sessions against --max-sessions, shared by its loops (by default the
  // hub counts its own against the limit).
  void share_budget(session_budget& b) { budget_ = &b; }
  // How make_room asks another loop of the node to drop its longest-idle session, when the node
  // is full and every session of this loop is live (set by the node before its loops run).
  void displace_elsewhere_with(std::function<void()> ask) { displace_elsewhere_ = std::move(ask); }
  // Drops the session of any user that has had no connection the longest; false if none.
  bool displace_longest_idle();

  // `conn` went away or was answered (long-poll): the session starts its TTL.
  void detach(session& s, const subscriber& conn, time_point now);
  // Ends the session's live connection with `why` (the subscriber sends the notice and closes).
  void end_connection(session& s, ending why, time_point now);

  void activity(session& s, time_point now) { s.last_activity_ = now; }
  // The client's {"type":"ack","id":N}: recorded, and counted in the message's reach if that
  // message was sent to this session (was_sent); an ack of another message in history is refused
  // (counted in stats().acks_refused) and changes nothing.
  void acknowledge(session& s, std::uint64_t id);
  // Whether `m` was handed to a connection of `s`: addressed to it (its user, a channel it had
  // joined before `m`, a broadcast), after the session or the connection that got it started,
  // at or below the highest id it was sent, and for a paced `m`, once its turn came.
  bool was_sent(const session& s, const message& m) const;
  // Adds or removes channels; false if the session would exceed the channel limit.
  bool subscribe(session& s, const std::vector<std::string>& channels);
  // False if one of these is outside the channels the connection was granted (client_params.hpp).
  bool may_subscribe(const session& s, const std::vector<std::string>& channels) const;
  void unsubscribe(session& s, const std::vector<std::string>& channels);

  // Appends to history and delivers to every live session it is addressed to. Returns how many.
  // A message with expires_ms gets a timer: when it fires the message is marked expired (no
  // resume returns it again) and the live sessions it addresses get the `expired` notice.
  std::size_t publish(const message_ptr& m, time_point now);
  // The message with this id if it is still in history, else null (for its reach).
  message_ptr find(std::uint64_t id) const;
  // Take-down (hub_sticky.cpp; docs/protocol.md, "Promotions in force"). The message with this id
  // if this loop still holds it (history, the sticky set or the paced log), else null.
  message_ptr find_held(std::uint64_t id) const;
  // On one loop of the node, before every loop takes it down: false if it is already expired
  // (its ttl passed, or another take-down came first); else marks it expired and counts it.
  bool claim_take_down(const message_ptr& m);
  // Expires `m` on this loop at once: its ttl timer is cancelled, it leaves the sticky set, and
  // the live sessions it was sent to get the `expired` notice.
  void take_down(const message_ptr& m, time_point now);
  // Every message in history, oldest first (with --redis, for writing their reach).
  std::vector<message_ptr> retained() const;
  // The `n` newest messages in history (fewer if it holds fewer), newest first.
  std::vector<message_ptr> newest(std::size_t n) const;
  // Ends the user's live connections with close/kicked and drops the sessions. Returns how many
  // live connections were closed.
  std::size_t kick(std::string_view user, time_point now);
  // Every live connection gets reconnect/shutdown with retry_ms spread over the drain window.
  void drain(time_point now);
  // Another node took the session over: its connection here gets close/replaced, and it is dropped.
  void evict(std::string_view key, time_point now);
  // The history a node starts with in a cluster (oldest first); only before any message arrived.
  // `now_ms` (Unix ms) tells which of them are already expired; the others get their timers.
  void seed_history(const std::vector<message_ptr>& retained, time_point now, std::int64_t now_ms);
  // Sticky messages in force that the cluster's history no longer holds (after seed_history):
  // they join the sticky set, with their expiry.
  void seed_in_force(const std::vector<message_ptr>& in_force, time_point now, std::int64_t now_ms);
  // Called when a session loses its last connection (the multi-node record then starts its TTL).
  void on_detached(std::function<void(const session&)> hook) { on_detached_ = std::move(hook); }
  // Adds an observer of sessions going online and offline and of their channels; it must outlive
  // the hub or be removed by its destructor.
  void observe(session_events& o) { observers_.push_back(&o); }
  void unobserve(session_events& o) { std::erase(observers_, &o); }

  // The handover to a new binary on SIGUSR2 (hub_handover.cpp; docs/operations.md, "Upgrading").
  // capture: this loop's sessions, history, sticky set, expiries and paced log, steady times
  // relative to `now`; the messages it names are added to `messages`. restore: into a hub that
  // holds nothing yet, before its loop runs; every timer as far ahead of `now` as it was, observers
  // not told (nothing changed for them; tell_online feeds a new one). A session that was live
  // waits for the new binary's connection (adopt); end_adoption then ends the wait of those whose
  // connection did not come (as if it had closed then). Both before the loop next advances.
  upgrade::loop_state capture(time_point now, handover_messages& messages) const;
  void restore(const upgrade::loop_state& state, const handover_messages& messages, time_point now);
  // Null unless (user, sid) was restored live and is still waiting for its connection.
  session* adopt(std::string_view user, std::string_view sid, subscriber& conn);
  void end_adoption(time_point now);
  void tell_online(session_events& o) const;

  std::uint64_t newest_id() const { return history_.newest_id(); }
  std::size_t session_count() const { return sessions_.size(); }
  std::size_t connected_count() const { return attached_.size(); }
  std::size_t paced_in_flight() const { return paced_.in_flight(); }
  std::size_t sticky_in_force() const { return sticky_.size(); }
  const config& settings() const { return cfg_; }

 private:
  friend class session;
  void on_session_timer(session& s, time_point now);
  time_point next_deadline(const session& s) const;
  void detach_now(session& s, time_point now);
  void deliver(session& s, const message_ptr& m, time_point now);
  bool addressed_to(const session& s, const message& m) const;
  template <class Visit>
  void for_each_live_addressee(const message& m, Visit&& visit);

  // A message's ttl on this loop's wheel.
  class expiry final : public loop_timer {
   public:
    expiry(hub& owner, message_ptr m)
        : loop_timer(owner.timers_), owner_(owner), m_(std::move(m)) {}
    void on_timer(time_point now) override;

   private:
    friend class hub;
    hub& owner_;
    message_ptr m_;
  };
  void expire_at(const message_ptr& m, time_point due);
  void expire(expiry& e, time_point now);
  void expire_now(const message_ptr& m, time_point now);
  static bool is_expired(const message& m);
  // `joined_after`: the id after which messages of the channels new to `s` reach it.
  void set_channels(session& s, std::vector<std::string> channels, std::uint64_t joined_after);
  void drop(session& s, std::string_view reason);
  // Moves the session between its user's live and idle lists as its connection comes and goes.
  void user_list_live(session& s);
  void user_list_idle(session& s);
  // Drops the user's oldest idle session if the user holds its limit; false if all are live.
  bool displace_for_new_session(std::string_view user);
  // In and out of idle_, counted in the node's budget.
  void join_idle(session& s);
  void leave_idle(session& s);
  // How long `s`, without a connection, is kept: --session-ttl, or --first-poll-ttl for a
  // session whose one connection was a long-poll answered at once (its client never came back).
  std::chrono::milliseconds detached_ttl(const session& s) const;
  // hub_events.cpp: the session's online state and what its observers are told.
  void go_online(session& s, bool resumed);
  void go_offline(session& s, std::string_view reason);
  void channels_changed(const session& s, const std::vector<std::string>& before);
  std::uint32_t retry_ms_for(ending why);
  // Paced delivery (hub_pacing.cpp): a message with a spread reaches each session at its turn.
  void publish_paced(const message_ptr& m, time_point now);
  void walk_pacing(time_point now);
  bool paced_for(const session& s, const message& m) const;
  // Whether `m` may have reached `s`, for its expiry notice: `s` was there before it (or
  // resumed), and a paced m's turn came.
  bool reached(const session& s, const message& m) const;
  std::vector<message_ptr> resume_backlog(const session& s, std::uint64_t since,
                                          history::resume_span span, bool new_here) const;
  time_point left_at_estimate(const session& s, std::uint64_t since) const;
  // Whether `s`'s turn for `m` has come (always, for a message that is not paced).
  bool turn_came(const session& s, const message& m) const;
  // hub_sticky.cpp: what a connect without `since` gets first: the sticky messages in force and
  // what it rewinds, addressed to it, in id order. `history_after`: history's messages after
  // this id are part of it (where its rewind starts; without one, the newest id).
  std::vector<message_ptr> first_connect_backlog(session& s, const client_params& params,
                                                 std::uint64_t& history_after);
  // The rest of a first connect's backlog whose long-poll reply was cut (`more`), for a connect
  // of the same session with `since`, in id order after the paced messages owed from before it
  // (their number in `owed`); `gap` as a resume from the backlog's history part says it.
  std::vector<message_ptr> first_backlog_rest(const session& s, std::uint64_t since,
                                              std::size_t& owed, bool& gap) const;
  // Cuts a long-poll's backlog to one reply after its first `owed` messages, which are never cut;
  // true if messages were left for the next poll (last_id is then the last id it carries).
  bool bound_poll_batch(std::vector<message_ptr>& backlog, std::size_t owed, std::uint64_t since,
                        std::uint64_t& last_id) const;

  class pacing_timer final : public loop_timer {
   public:
    explicit pacing_timer(hub& h) : loop_timer(h.timers_), hub_(h) {}
    void on_timer(time_point now) override { hub_.walk_pacing(now); }

   private:
    hub& hub_;
  };
  // Live sessions by their place on the pacing ring; a paced message walks it (core/pacing.hpp).
  using pacing_index = pacing::ring_index<session, &session::place_, &session::pacing_link_>;

  const config& cfg_;
  loop_timers& timers_;
  history history_;
  loop_stats& stats_;
  std::function<void(const session&)> on_detached_;
  std::function<void()> displace_elsewhere_;
  std::vector<session_events*> observers_;
  std::minstd_rand rng_;

  std::unordered_map<std::string, std::unique_ptr<session>> sessions_;  // key "user/sid"
  // A user's sessions: those with a live connection, and the others oldest idle first (the order
  // they lost their connection in). Intrusive: no allocation, O(1) in and out.
  using user_list = boost::intrusive::list<
      session, boost::intrusive::member_hook<session, boost::intrusive::list_member_hook<>,
                                             &session::user_link_>>;
  struct user_sessions {
    user_list live, idle;
    std::size_t size() const { return live.size() + idle.size(); }
  };
  std::unordered_map<std::string, user_sessions> by_user_;
  // Every session without a connection, of any user, in the order they lost it (intrusive too).
  using idle_list = boost::intrusive::list<
      session, boost::intrusive::member_hook<session, boost::intrusive::list_member_hook<>,
                                             &session::idle_link_>>;
  idle_list idle_;
  session_budget own_budget_;
  session_budget* budget_ = &own_budget_;
  std::unordered_map<std::string, std::unordered_set<session*>> by_channel_;
  std::vector<session*> attached_;  // sessions with a live connection, for broadcasts
  std::unordered_map<std::uint64_t, std::unique_ptr<expiry>> expiring_;  // by message id
  sticky_set sticky_;  // the sticky messages in force on this loop

  pacing::paced_log paced_;
  pacing_index pacing_index_;  // after sessions_: unlinked before they are destroyed
  pacing_timer pacing_timer_{*this};
  // Reused by every walk: the (session, message) turns that came in this tick, and the messages
  // of one session when it has several.
  std::vector<std::pair<session*, const message_ptr*>> turns_;
  std::vector<message_ptr> batch_;
};

}  // namespace ringcast
