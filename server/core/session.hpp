// A client session (user, sid): outlives its connections, lives in its loop's timing wheel.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/intrusive/list_hook.hpp>

#include "loop_timers.hpp"
#include "ring_index.hpp"
#include "subscriber.hpp"

namespace ringcast {

// Session (user, sid) as one string, for maps and Redis: "user/sid". Neither part can contain
// '/' (docs/protocol.md, "Sessions": identifiers are [A-Za-z0-9_.:@-]).
inline std::string session_key(std::string_view user, std::string_view sid) {
  std::string key;
  key.reserve(user.size() + 1 + sid.size());
  key.append(user).append(1, '/').append(sid);
  return key;
}
struct session_name {
  std::string_view user, sid;
};
inline std::optional<session_name> split_session_key(std::string_view key) {
  const auto slash = key.find('/');
  if (slash == std::string_view::npos) return std::nullopt;
  return session_name{key.substr(0, slash), key.substr(slash + 1)};
}

class session_table;

class session final : public timed {
 public:
  session(session_table& owner, std::string user, std::string sid, std::uint64_t place)
      : table_(owner), user_(std::move(user)), sid_(std::move(sid)), place_(place) {}
  void on_timer(time_point now) override;

  const std::string& user() const { return user_; }
  const std::string& sid() const { return sid_; }
  std::string key() const { return session_key(user_, sid_); }
  // The transport of its current (or last) connection, and the channels it listens to.
  transport kind() const { return transport_; }
  const std::vector<std::string>& channels() const { return channels_; }
  bool online() const { return online_; }  // see session_events.hpp

 private:
  // The hub and its parts (hub.hpp) keep a session's state; nothing else writes it.
  friend class hub;
  friend class session_table;
  friend class audience_index;
  friend class pacer;
  friend class message_store;
  friend class session_observers;
  friend struct user_sessions;
  session_table& table_;
  std::string user_;
  std::string sid_;
  std::vector<std::string> channels_;
  // Granted to the current connection (its client token, the connect hook): grant_channels().
  std::optional<std::vector<std::string>> allowed_channels_;  // none: any channel
  time_point token_expires_ = time_point::max();              // the connection gets close/expired
  subscriber* conn_ = nullptr;           // the live connection or held poll, if any
  transport transport_ = transport::ws;  // conn_'s, kept here: conn_ may be mid-destruction
  std::size_t attached_index_ = 0;       // position in audience_index::live_ while conn_ is set
  std::uint64_t acked_id_ = 0;           // the last id the client acknowledged
  std::uint64_t paced_acked_id_ = 0;     // the last paced id acknowledged (hub::acknowledge)
  // What was sent, for hub::was_sent (acks count only for those): the highest id handed to its
  // connections, the id at or below which a connection started without being sent anything, and
  // for each of channels_ (same index) the newest id when it was joined.
  std::uint64_t sent_up_to_ = 0;
  std::uint64_t ack_floor_ = 0;
  std::vector<std::uint64_t> joined_after_;
  time_point attached_at_{};    // when conn_ was set
  time_point last_activity_{};  // last client frame or pong (WebSocket)
  time_point last_sent_{};      // last server write (heartbeats are due after it)
  time_point detached_at_{};    // when the last connection ended
  bool online_ = false;         // see session_events.hpp
  bool adopting_ = false;  // restored live, its connection not yet adopted (session_table::adopt)
  // Paced delivery (core/pacing.hpp): its place on the ring, its link in the pacer's index of live
  // sessions by place, the id it started after (paced messages at or below it are not its
  // business), and how far the paced walk had got when its last connection ended.
  std::uint64_t place_;
  pacing::ring_link<session> pacing_link_;
  std::uint64_t start_id_ = 0;
  time_point paced_until_{};
  // Its link in its user's list of live or of idle sessions (session_table::user_sessions), so that
  // adding, dropping and finding the user's oldest idle session cost the same whatever the user
  // holds.
  boost::intrusive::list_member_hook<> user_link_;
  // Its link in the table's list of every session without a connection, longest idle first: the
  // one a new session displaces when --max-sessions is reached
  // (session_table::displace_longest_idle).
  boost::intrusive::list_member_hook<> idle_link_;
  // It had a second connection (it resumed here or came from another node). Until then, a
  // session whose one connection was a long-poll lives --first-poll-ttl once it has none.
  bool came_back_ = false;
  // A first connect's long-poll reply was cut (`more`): the rest of that backlog is owed to the
  // next connect with `since` (message_store::first_backlog_rest): the sticky messages in force
  // after `since`, and history after the later of `since` and this id (where the backlog's history
  // part started: its rewind, or the newest id at the first connect).
  std::optional<std::uint64_t> first_backlog_after_;
};

}  // namespace ringcast
