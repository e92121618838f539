// The Pusher door's channels as the hub holds them (docs/pusher.md, "Presence channels",
// "Several nodes", "Webhooks"): how many connections are subscribed to each, and who the members
// of each presence channel are.
//
// A Pusher channel is the hub channel of the same name (both doors' sessions count), so its
// subscription_count is presence's count of the online sessions listening to it
// (core/presence.hpp), and its occupancy changes (channel_occupied / channel_vacated) come from
// there. Presence members are the door's own: a presence subscription names its member
// (channel_data's user_id and user_info, which is not the session's user), so the door tells this
// class of each (join_presence / leave_presence / leave_all). A user with several connections on
// a channel is one member: added with the first, removed with the last, with the first's
// user_info. The door subscribes the session to the hub channel before join_presence, so that a
// channel is occupied before its first member is added, and leaves its presence channels before
// its session goes offline (subscriber::detaching), so that a channel's last member_removed
// comes before channel_vacated, as Pusher orders its webhooks.
//
// Threads: every call from any loop. The member table is behind one mutex, held for a few
// hash-map updates; answers run on the caller's `origin`, never inside the call.
// Bounds: a member is held per (connection, presence channel) the door admitted, so the table is
// bounded by the door's bounds (connections, channels per connection, user_info of 1 KB).
#pragma once

#include <boost/asio/any_io_executor.hpp>
#include <boost/json/object.hpp>

#include <cstddef>
#include <functional>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "core/presence.hpp"
#include "pusher/pusher_api_answers.hpp"

namespace ringcast {

// A member of a presence channel: its user_id, and its user_info as JSON text ("null" if none).
struct pusher_member {
  std::string user_id;
  std::string user_info = "null";
  friend bool operator==(const pusher_member&, const pusher_member&) = default;
};

// The door's connections hear of members coming and going, to send
// pusher_internal:member_added / member_removed to the channel's other subscribers on this node
// (not to the member's own connections, as Pusher does: a connection compares the user_id it
// joined the channel as).
// Called from any thread, in the order of the changes, under the member table's lock: only record
// or post, never wait and never call pusher_channels back.
class pusher_member_events {
 public:
  virtual void member_added(const std::string& channel, const pusher_member& member) = 0;
  virtual void member_removed(const std::string& channel, const std::string& user_id) = 0;

 protected:
  ~pusher_member_events() = default;
};

// Where Pusher webhook events go (hooks/pusher_webhooks.hpp): one event, a JSON object's text
// (pusher/pusher_webhook.hpp). Any thread, possibly under a lock: it only queues.
class pusher_webhook_sink {
 public:
  virtual void push(std::string event_json) = 0;

 protected:
  ~pusher_webhook_sink() = default;
};

// A node's occupancy and members as the cluster must hear them (with --redis:
// redis/redis_pusher.hpp), and the cluster's answers. Alone there is none: a node's change is
// the cluster's.
struct pusher_node_state {
  std::vector<std::string> occupied;  // channels with an online session here
  std::vector<std::pair<std::string, pusher_member>> members;  // (channel, member) here
};
// What the cluster decided: a channel occupied or vacated, a member added or removed, for the
// whole cluster (each once, on one node).
struct pusher_cluster_change {
  enum class kind { occupied, vacated, member_added, member_removed } what;
  std::string channel;
  pusher_member member;  // member_added / member_removed (user_info: added only)
};

class pusher_cluster {
 public:
  virtual ~pusher_cluster() = default;
  // This node's changes, in order, from any thread under pusher_channels' or presence's lock:
  // they only queue. A channel's first / last online session here; a user's first / last
  // connection on a presence channel here.
  virtual void node_occupancy(const std::string& channel, bool occupied) = 0;
  virtual void node_member(const std::string& channel, const pusher_member& member,
                           bool joined) = 0;
  // The cluster's counts and members (done(nullopt): unreachable), on `origin`. A read asked
  // after a change of this node includes it.
  virtual void channel(const std::string& name, boost::asio::any_io_executor origin,
                       std::function<void(std::optional<pusher::channel_counts>)> done) = 0;
  virtual void channels(
      const std::string& prefix, boost::asio::any_io_executor origin,
      std::function<void(std::optional<std::vector<pusher::channel_counts>>)> done) = 0;
  virtual void members(const std::string& channel, boost::asio::any_io_executor origin,
                       std::function<void(std::optional<std::vector<pusher_member>>)> done) = 0;
  // Every change of this node told so far has been answered (a draining node waits for it, so
  // that the webhooks its last changes make are sent before it exits). Any thread.
  virtual bool settled() const = 0;
};

class pusher_channels final : private channel_occupancy_events {
 public:
  using members_done = std::function<void(std::optional<std::vector<pusher_member>>)>;

  // Watches `presence`'s occupancy (before any hub reports to it) until destroyed.
  explicit pusher_channels(presence_counts& presence);
  ~pusher_channels();
  pusher_channels(const pusher_channels&) = delete;
  pusher_channels& operator=(const pusher_channels&) = delete;

  // Before any client; null: nobody is told. Both outlive this.
  void set_member_events(pusher_member_events* door) { door_ = door; }
  void set_webhooks(pusher_webhook_sink* webhooks) { webhooks_ = webhooks; }
  // With --redis, before any client: counts, members and their changes are the cluster's.
  void set_cluster(pusher_cluster* cluster) { cluster_ = cluster; }

  // From the cluster (any thread). Changes this node made: their webhooks. Members added or
  // removed anywhere (every node hears each once): the door's connections here are told.
  void cluster_changed(const std::vector<pusher_cluster_change>& changes);
  void cluster_member(const pusher_cluster_change& change);
  // This node's occupancy and members, for the cluster to write again after losing them.
  pusher_node_state node_state() const;
  // Nothing of this node's is on its way to the cluster (alone: always).
  bool settled() const { return !cluster_ || cluster_->settled(); }

  // The door. Connection `socket_id` joined presence channel `channel` as `member`; done(the
  // channel's members, this one included, by user_id) for pusher_internal:subscription_succeeded.
  // A second join of the same connection to the same channel changes nothing.
  void join_presence(const std::string& socket_id, const std::string& channel, pusher_member member,
                     boost::asio::any_io_executor origin, members_done done);
  // It left the channel (unsubscribed); nothing if it was not on it.
  void leave_presence(const std::string& socket_id, const std::string& channel);
  // The connection ended: it leaves every presence channel it was on.
  void leave_all(const std::string& socket_id);
  // The client_event and cache_miss webhooks (nothing is sent without --pusher-webhook-url).
  void client_event(std::string_view channel, std::string_view event,
                    std::optional<std::string_view> data, std::string_view socket_id,
                    std::optional<std::string_view> user_id);
  void cache_miss(std::string_view channel);

  // The HTTP API. done(nullopt): the counts cannot be read now.
  // One channel: its subscription_count, and its user_count if it is a presence channel; a
  // channel nobody is on has both 0.
  void channel(const std::string& name, boost::asio::any_io_executor origin,
               std::function<void(std::optional<pusher::channel_counts>)> done) const;
  // The occupied channels whose name starts with `prefix`, by name.
  void channels(const std::string& prefix, boost::asio::any_io_executor origin,
                std::function<void(std::optional<std::vector<pusher::channel_counts>>)> done) const;
  // A presence channel's members, by user_id.
  void members(const std::string& channel, boost::asio::any_io_executor origin,
               members_done done) const;

 private:
  struct member_entry {
    std::string user_info;        // the first connection's
    std::size_t connections = 0;  // of this user on the channel
  };
  using member_table = std::unordered_map<std::string, member_entry>;  // by user_id

  void channel_occupied(const std::string& channel) override;
  void channel_vacated(const std::string& channel) override;

  // Under the lock.
  void leave_locked(const std::string& channel, const std::string& user_id);
  void occupancy_changed(const std::string& channel, bool occupied);
  void member_added_here(const std::string& channel, const pusher_member& member);
  void member_removed_here(const std::string& channel, const std::string& user_id);
  std::vector<pusher_member> members_locked(const std::string& channel) const;
  std::size_t user_count(const std::string& channel) const;  // takes the lock
  void webhook(const boost::json::object& event);

  presence_counts& presence_;
  pusher_member_events* door_ = nullptr;
  pusher_webhook_sink* webhooks_ = nullptr;
  pusher_cluster* cluster_ = nullptr;
  mutable std::mutex mutex_;
  std::unordered_map<std::string, member_table> channels_;  // presence channel -> members
  // socket id -> presence channel -> its user_id there (what leave_all must undo).
  std::unordered_map<std::string, std::unordered_map<std::string, std::string>> sockets_;
};

}  // namespace ringcast
