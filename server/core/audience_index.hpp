// Who a message is addressed to on one loop: the channels sessions listen to, the index of sessions
// with a live connection (for broadcasts), and, through the session table's lists of each user's
// sessions, a user's live sessions. A publish walks exactly the sessions it addresses; nothing is
// copied per recipient (the walk is a template: the visitor is inlined into the publish).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "core/message.hpp"
#include "core/session.hpp"
#include "core/user_sessions.hpp"
#include "protocol/client_params.hpp"

namespace ringcast {

class session_observers;

class audience_index {
 public:
  audience_index(sessions_by_user& users, session_observers& observers)
      : users_(users), observers_(observers) {}

  // Whether `m` is addressed to `s` (its user, a channel it listens to, a broadcast).
  static bool addressed_to(const session& s, const message& m);
  // Calls visit(session&) for every session with a live connection that `m` addresses. `visit`
  // may detach the session it is given (a long-poll answering, a slow consumer closing).
  template <class Visit>
  void for_each_live_addressee(const message& m, Visit&& visit);

  // Calls visit(session&) for every session with a live connection listening to `channel`.
  // `visit` must not change who listens (collect first to end connections).
  template <class Visit>
  void for_each_live_listener(const std::string& channel, Visit&& visit) const {
    if (auto it = by_channel_.find(channel); it != by_channel_.end()) {
      for (session* s : it->second)
        if (s->conn_) visit(*s);
    }
  }

  // Adds or removes channels; false if the session would exceed `limit` channels (ringcast's
  // per-session limit; the Pusher door has its own). Channels new to `s` reach it from messages
  // after `newest_id`.
  bool subscribe(session& s, const std::vector<std::string>& channels, std::uint64_t newest_id,
                 std::size_t limit = max_channels_per_client);
  // False if one of these is outside the channels the connection was granted (client_params.hpp).
  static bool may_subscribe(const session& s, const std::vector<std::string>& channels);
  void unsubscribe(session& s, const std::vector<std::string>& channels, std::uint64_t newest_id);
  // `joined_after`: the id after which messages of the channels new to `s` reach it. Observers
  // of an online session are told what changed.
  void set_channels(session& s, std::vector<std::string> channels, std::uint64_t joined_after);

  // In and out of the live index as `s` gains and loses its connection (session_table::go_live).
  void join_live(session& s);
  void leave_live(session& s);
  std::size_t live_count() const { return live_.size(); }
  // The live session added last (the drain ends them one by one), null if none.
  session* last_live() const { return live_.empty() ? nullptr : live_.back(); }

 private:
  friend class hub;          // restore (core/loop_handover.cpp) rebuilds the channel index
  sessions_by_user& users_;  // the session table's
  session_observers& observers_;
  std::unordered_map<std::string, std::unordered_set<session*>> by_channel_;
  std::vector<session*> live_;  // sessions with a live connection, for broadcasts

  // A broadcast visits thousands of sessions and their connections, each its own heap block long
  // gone from the cache: the two loads that missed (a session's connection, that connection's
  // vtable) were most of the publish loop's own time (docs/performance.md section 19). Fetched a
  // few recipients ahead, they arrive while the sends of the recipients before them run.
  static constexpr std::size_t prefetch_ahead = 4;
  static void prefetch_session(const session* s) {
    __builtin_prefetch(&s->conn_);
    __builtin_prefetch(&s->sent_up_to_, 1);  // hub::deliver writes it and last_sent_
  }
  static void prefetch_connection(const session* s) {
    const auto* start = reinterpret_cast<const char*>(s->conn_);
    if (!start) return;
    for (std::size_t at = 0; at < subscriber::delivery_bytes; at += 64)
      __builtin_prefetch(start + at);
  }
};

template <class Visit>
void audience_index::for_each_live_addressee(const message& m, Visit&& visit) {
  auto if_live = [&](session* s) {
    if (s->conn_) visit(*s);
  };
  auto each_of_user = [&](const std::string& user) {
    if (auto it = users_.find(user); it != users_.end()) {
      // A session visited may move to the idle list (a poll answered): step past it first.
      auto& live = it->second.live;
      for (auto i = live.begin(); i != live.end();)
        if_live(&*i++);
    }
  };
  switch (m.to) {
    case audience::broadcast:
      // Backwards: a subscriber that detaches while being visited swap-removes itself with an
      // element already visited.
      for (std::size_t i = live_.size(); i-- > 0;) {
        // Below i nothing moves while i is visited: a prefetch reads a session still live.
        if (i >= 2 * prefetch_ahead) prefetch_session(live_[i - 2 * prefetch_ahead]);
        if (i >= prefetch_ahead) prefetch_connection(live_[i - prefetch_ahead]);
        if_live(live_[i]);
      }
      break;
    case audience::channel:
      if (auto it = by_channel_.find(m.target); it != by_channel_.end()) {
        for (session* s : it->second)
          if_live(s);
      }
      break;
    case audience::user:
      each_of_user(m.target);
      break;
    case audience::users:
      for (const auto& user : m.users)
        each_of_user(user);
      break;
  }
}

}  // namespace ringcast
