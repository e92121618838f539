// A client session (user, sid): outlives its connections, lives in its loop's timing wheel.
#pragma once

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <boost/intrusive/list_hook.hpp>

#include "core/loop_timers.hpp"
#include "core/ring_index.hpp"
#include "core/subscriber.hpp"
#include "upgrade/session_record.hpp"

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

// Its fields that an upgrade carries over are its record (upgrade/session_record.hpp): one place
// declares them for the session, the handover state, capture, restore and the codec.
class session final : public timed, private upgrade::session_record<timed::time_point, transport> {
 public:
  using record = upgrade::session_record<time_point, transport>;
  session(session_table& owner, std::string user, std::string sid, std::uint64_t place)
      : table_(owner), place_(place) {
    user_ = std::move(user);
    sid_ = std::move(sid);
    token_expires_ = time_point::max();
  }
  void on_timer(time_point now) override;

  const std::string& user() const { return user_; }
  const std::string& sid() const { return sid_; }
  std::string key() const { return session_key(user_, sid_); }
  // The transport of its current (or last) connection, and the channels it listens to.
  transport kind() const { return transport_; }
  const std::vector<std::string>& channels() const { return channels_; }
  // What its current connection was admitted with (a client token's grant and `exp`, the connect
  // hook's): none / the latest time when nothing limits it.
  const std::optional<std::vector<std::string>>& allowed_channels() const {
    return allowed_channels_;
  }
  time_point token_expires() const { return token_expires_; }
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
  // Ordered so that the fields of 4 bytes and less share one 8-byte slot: a session is kept for
  // every client, and 16 bytes more would cost it a larger heap block (docs/performance.md,
  // "What an idle connection holds").
  session_table& table_;
  subscriber* conn_ = nullptr;  // the live connection or held poll, if any
  // Paced delivery (core/pacing.hpp): its place on the ring and its link in the pacer's index of
  // live sessions by place.
  std::uint64_t place_;
  pacing::ring_link<session> pacing_link_;
  // Its link in its user's list of live or of idle sessions (session_table::user_sessions), so that
  // adding, dropping and finding the user's oldest idle session cost the same whatever the user
  // holds.
  boost::intrusive::list_member_hook<> user_link_;
  // Its link in the table's list of every session without a connection, longest idle first: the
  // one a new session displaces when --max-sessions is reached
  // (session_table::displace_longest_idle).
  boost::intrusive::list_member_hook<> idle_link_;
  // A first connect's long-poll reply was cut (`more`): the rest of that backlog is owed to the
  // next connect with `since` (message_store::first_backlog_rest): the sticky messages in force
  // after `since`, and history after the later of `since` and this id (where the backlog's history
  // part started: its rewind, or the newest id at the first connect).
  std::optional<std::uint64_t> first_backlog_after_;
  std::uint32_t attached_index_ = 0;  // position in audience_index::live_ while conn_ is set
  bool adopting_ = false;  // restored live, its connection not yet adopted (session_table::adopt)
  // It had a second connection (it resumed here or came from another node). Until then, a
  // session whose one connection was a long-poll lives --first-poll-ttl once it has none.
  bool came_back_ = false;
  bool counted_home_ = false;  // it counts in its user's home slot (session_table::count_home)
};

}  // namespace ringcast
