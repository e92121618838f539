// Who is online on this node (GET /admin/presence, docs/protocol.md): counted as sessions go
// online and offline and change channels (session_events), so a query reads a counter and never
// walks the sessions. Every loop's hub reports here, so it is shared between threads: one mutex,
// held for a few hash-map updates per connect, disconnect or (un)subscribe.
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include <boost/unordered/unordered_flat_map.hpp>

#include "core/session_events.hpp"
#include "core/string_hash.hpp"
#include "protocol/presence_query.hpp"

namespace ringcast {

struct channel_presence {
  std::size_t users = 0;     // distinct users with an online session listening to the channel
  std::size_t sessions = 0;  // online sessions listening to it
};

// What GET /admin/presence answers (one node's counts, or every node's summed through Redis).
struct presence_figures {
  std::size_t users = 0;                                      // ?channel=: distinct users
  std::size_t sessions = 0;                                   // ?channel=, ?user=: online sessions
  std::vector<std::pair<std::string, channel_presence>> top;  // ?top=
};

// Told when a channel gets its first online session on this node and when it loses its last
// (the Pusher door's channel_occupied / channel_vacated, core/pusher_channels.hpp). Called under
// presence's lock, in the order the changes were counted: it must only record, never wait.
class channel_occupancy_events {
 public:
  virtual void channel_occupied(const std::string& channel) = 0;
  virtual void channel_vacated(const std::string& channel) = 0;

 protected:
  ~channel_occupancy_events() = default;
};

class presence_counts final : public session_events {
 public:
  // Before any hub reports (null: nobody is told).
  void watch_occupancy(channel_occupancy_events* watcher) { occupancy_ = watcher; }
  // The channels whose name starts with `prefix` and that have an online session here, with
  // their counts, by name (the Pusher HTTP API's GET channels; walks the channels, not sessions).
  std::vector<std::pair<std::string, channel_presence>> channels_with_prefix(
      std::string_view prefix) const;
  channel_presence channel(std::string_view name) const;
  std::size_t user_sessions(std::string_view user) const;  // online sessions of the user
  // The `n` channels with most online sessions, most first (ties by name): the admin page's list.
  // This one walks the channels (not the sessions); it is asked every few seconds at most.
  std::vector<std::pair<std::string, channel_presence>> top_channels(std::size_t n) const;
  // What GET /admin/presence answers for this node alone.
  presence_figures figures(const presence_query& q) const;

  // Every count, for writing them elsewhere at once (Redis after an outage), and the number of
  // changes they include. changes_seen() is the number of the calling thread's latest change:
  // an observer called after this one for the same event can tell whether a copy includes it.
  struct copy {
    std::uint64_t changes = 0;
    std::vector<std::pair<std::string, std::size_t>> users;
    std::vector<std::pair<std::string, std::vector<std::pair<std::string, std::size_t>>>> channels;
  };
  copy copy_all() const;
  static std::uint64_t changes_seen();

  void on_connect(const session& s, bool resumed) override;
  void on_disconnect(const session& s, std::string_view reason) override;
  void on_subscribe(const session& s, const std::vector<std::string>& channels) override;
  void on_unsubscribe(const session& s, const std::vector<std::string>& channels) override;

 private:
  struct channel_count {
    std::unordered_map<std::string, std::size_t> users;  // user -> online sessions in it
    std::size_t sessions = 0;
  };
  void join(const std::string& user, const std::vector<std::string>& channels);
  void leave(const std::string& user, const std::vector<std::string>& channels);

  void counted();  // under the lock: one more change

  mutable std::mutex mutex_;
  std::uint64_t changes_ = 0;
  std::unordered_map<std::string, channel_count> channels_;
  // user -> online sessions; open addressing: a new user's lookup reads one group of metadata
  boost::unordered_flat_map<std::string, std::size_t, string_hash, std::equal_to<>> users_;
  channel_occupancy_events* occupancy_ = nullptr;
};

}  // namespace ringcast
