// One event loop's sessions, their timers and the fan-out of published messages: a coordinator of
// its parts, each of which holds one kind of state and has tests of its own without the hub
// (tests/server/core/parts_fixture.hpp):
//   session_table   sessions, each user's, the idle ones, the budget, timers, kick/evict/drain
//   audience_index  channels and the live index: who a message is addressed to
//   message_store   history, the sticky set, expiry and take-down, seeding, a connect's backlog
//   pacer           paced delivery, each session at its turn
// The hub walks attach, detach, publish and acknowledge through them.
//
// No networking here: connections reach the hub through `subscriber`, time is passed in, and the
// nodes live in the loop's timer service (loop_timers.hpp), so the whole session life cycle is
// unit-tested with a simulated clock. The hub counts into the loop's `loop_stats`.
// Every timeout of docs/protocol.md, "Timeouts and keep-alive" except the handshake is a session's
// node (session_timers.cpp): detached -> session TTL; held long-poll -> poll timeout; WebSocket /
// SSE -> the earliest of heartbeat, idle (WebSocket only), max connection age, and a client
// token's `exp` (close/expired). Client activity only records a time; when the node comes due and
// nothing is due yet, it is re-armed for the new deadline (a lazy move, as Netty's
// IdleStateHandler does).
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "config/config.hpp"
#include "core/audience_index.hpp"
#include "core/handover_messages.hpp"
#include "core/loop_stats.hpp"
#include "core/loop_timers.hpp"
#include "core/message_store.hpp"
#include "core/pacer.hpp"
#include "core/session.hpp"
#include "core/session_budget.hpp"
#include "core/session_observers.hpp"
#include "core/session_table.hpp"
#include "protocol/client_params.hpp"

namespace ringcast {

class hub {
 public:
  using time_point = timing_wheel::time_point;

  // `timers`: the loop's timer service, which holds the hub's nodes; `stats`: the loop's
  // counters. `floor_id`: ids at or below it were issued before this run (see history).
  hub(const config& cfg, loop_timers& timers, loop_stats& stats, std::uint64_t floor_id);

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
  using room = session_table::room;
  room make_room(std::string_view user, std::string_view sid) {
    return table_.make_room(user, sid);
  }
  // The node's count of sessions against --max-sessions, shared by its loops (by default the
  // hub counts its own against the limit).
  void share_budget(session_budget& b) { table_.share_budget(b); }
  // Where the node's loops find each user's sessions (home_slots.hpp); this hub is loop `loop`.
  void share_homes(home_slots& homes, std::size_t loop) { table_.share_homes(homes, loop); }
  // How make_room asks another loop of the node to drop its longest-idle session, when the node
  // is full and every session of this loop is live (set by the node before its loops run).
  void displace_elsewhere_with(std::function<void()> ask) {
    table_.displace_elsewhere_with(std::move(ask));
  }
  // Drops the session of any user that has had no connection the longest; false if none.
  bool displace_longest_idle() { return table_.displace_longest_idle(); }

  // `conn` went away or was answered (long-poll): the session starts its TTL.
  void detach(session& s, const subscriber& conn, time_point now);
  // Ends the session's live connection with `why` (the subscriber sends the notice and closes).
  void end_connection(session& s, ending why, time_point now) {
    table_.end_connection(s, why, now);
  }

  void activity(session& s, time_point now) { s.last_activity_ = now; }
  // The client's {"type":"ack","id":N}: recorded, and counted in the message's reach if that
  // message was sent to this session (was_sent); an ack of another message in history is refused
  // (counted in stats().acks_refused) and changes nothing.
  void acknowledge(session& s, std::uint64_t id);
  // Whether `m` was handed to a connection of `s`: addressed to it (its user, a channel it had
  // joined before `m`, a broadcast), after the session or the connection that got it started,
  // at or below the highest id it was sent, and for a paced `m`, once its turn came.
  bool was_sent(const session& s, const message& m) const;
  // Adds or removes channels; false if the session would exceed `limit` channels.
  bool subscribe(session& s, const std::vector<std::string>& channels,
                 std::size_t limit = max_channels_per_client) {
    return audience_.subscribe(s, channels, store_.newest_id(), limit);
  }
  // Calls visit(subscriber&) for the live connection of every session listening to `channel`
  // (the Pusher door's member events and terminations); `visit` must not end any of them.
  template <class Visit>
  void for_each_listener(const std::string& channel, Visit&& visit) const {
    audience_.for_each_live_listener(channel, [&](session& s) { visit(*s.conn_); });
  }
  // False if one of these is outside the channels the connection was granted (client_params.hpp).
  bool may_subscribe(const session& s, const std::vector<std::string>& channels) const {
    return audience_index::may_subscribe(s, channels);
  }
  void unsubscribe(session& s, const std::vector<std::string>& channels) {
    audience_.unsubscribe(s, channels, store_.newest_id());
  }

  // Appends to history and delivers to every live session it is addressed to. Returns how many.
  // A message with expires_ms gets a timer: when it fires the message is marked expired (no
  // resume returns it again) and the live sessions it addresses get the `expired` notice.
  std::size_t publish(const message_ptr& m, time_point now);
  // The message with this id if it is still in history, else null (for its reach).
  message_ptr find(std::uint64_t id) const { return store_.find(id); }
  // Take-down (docs/protocol.md, "Promotions in force"). The message with this id if this loop
  // still holds it (history, the sticky set or the paced log), else null.
  message_ptr find_held(std::uint64_t id) const { return store_.find_held(id); }
  // On one loop of the node, before every loop takes it down: false if it is already expired
  // (its ttl passed, or another take-down came first); else marks it expired and counts it.
  bool claim_take_down(const message_ptr& m) { return store_.claim_take_down(m); }
  // Expires `m` on this loop at once: its ttl timer is cancelled, it leaves the sticky set, and
  // the live sessions it was sent to get the `expired` notice.
  void take_down(const message_ptr& m, time_point now) { store_.take_down(m, now); }
  // Every message in history, oldest first (with --redis, for writing their reach).
  std::vector<message_ptr> retained() const { return store_.retained(); }
  // The `n` newest messages in history (fewer if it holds fewer), newest first.
  std::vector<message_ptr> newest(std::size_t n) const { return store_.newest(n); }
  // Ends the user's live connections with close/kicked and drops the sessions. Returns how many
  // live connections were closed.
  std::size_t kick(std::string_view user, time_point now) { return table_.kick(user, now); }
  // Every live connection gets reconnect/shutdown with retry_ms spread over the drain window.
  void drain(time_point now) { table_.drain(now); }
  // Another node took the session over: its connection here gets close/replaced, and it is dropped.
  void evict(std::string_view key, time_point now) { table_.evict(key, now); }
  // The history a node starts with in a cluster (oldest first); only before any message arrived.
  // `now_ms` (Unix ms) tells which of them are already expired; the others get their timers.
  void seed_history(const std::vector<message_ptr>& retained, time_point now, std::int64_t now_ms) {
    store_.seed_history(retained, now, now_ms);
  }
  // Sticky messages in force that the cluster's history no longer holds (after seed_history):
  // they join the sticky set, with their expiry.
  void seed_in_force(const std::vector<message_ptr>& in_force, time_point now,
                     std::int64_t now_ms) {
    store_.seed_in_force(in_force, now, now_ms);
  }
  // Called when a session loses its last connection (the multi-node record then starts its TTL).
  void on_detached(std::function<void(const session&)> hook) {
    table_.on_detached(std::move(hook));
  }
  // Adds an observer of sessions going online and offline and of their channels; it must outlive
  // the hub or be removed by its destructor.
  void observe(session_events& o) { observers_.observe(o); }
  void unobserve(session_events& o) { observers_.unobserve(o); }

  // The handover to a new binary on SIGUSR2 (core/loop_handover.cpp; docs/operations.md,
  // "Upgrading"). capture: this loop's sessions, history, sticky set, expiries and paced log,
  // steady times relative to `now`; the messages it names are added to `messages`. restore: into
  // a hub that holds nothing yet, before its loop runs; every timer as far ahead of `now` as it
  // was, observers not told (nothing changed for them; tell_online feeds a new one). A session
  // that was live waits for the new binary's connection (adopt); end_adoption then ends the wait
  // of those whose connection did not come (as if it had closed then). Both before the loop next
  // advances.
  upgrade::loop_state capture(time_point now, handover_messages& messages) const;
  void restore(const upgrade::loop_state& state, const handover_messages& messages, time_point now);
  // Null unless (user, sid) was restored live and is still waiting for its connection.
  session* adopt(std::string_view user, std::string_view sid, subscriber& conn) {
    return table_.adopt(user, sid, conn);
  }
  void end_adoption(time_point now) { table_.end_adoption(now); }
  void tell_online(session_events& o) const { table_.tell_online(o); }

  std::uint64_t newest_id() const { return store_.newest_id(); }
  std::size_t session_count() const { return table_.size(); }
  std::size_t connected_count() const { return audience_.live_count(); }
  std::size_t paced_in_flight() const { return pacer_.in_flight(); }
  std::size_t sticky_in_force() const { return store_.sticky_in_force(); }
  // The sticky messages in force on this loop, by id (at most --max-sticky): what the Pusher door
  // sends a connection that subscribes to their channel.
  const std::vector<message_ptr>& sticky_messages() const { return store_.sticky_messages(); }
  const config& settings() const { return cfg_; }

 private:
  void deliver(session& s, const message_ptr& m, time_point now);

  const config& cfg_;
  loop_timers& timers_;
  loop_stats& stats_;
  session_observers observers_;
  // Each part is given those it reaches (by reference, made in this order; the table's are
  // made after it but only used once the hub is whole). Destroyed in reverse: the pacer's index
  // and the audience's sets before the sessions they point to.
  session_table table_;
  audience_index audience_;
  pacer pacer_;
  message_store store_;
};

}  // namespace ringcast
