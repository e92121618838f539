#include "core/pusher_channels.hpp"

#include <boost/asio/post.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>

#include "pusher/pusher_webhook.hpp"

namespace ringcast {

namespace asio = boost::asio;

pusher_channels::pusher_channels(presence_counts& presence) : presence_(presence) {
  presence_.watch_occupancy(this);
}

pusher_channels::~pusher_channels() {
  presence_.watch_occupancy(nullptr);
}

// Callers build the event only when there are webhooks to send it to.
void pusher_channels::webhook(const boost::json::object& event) {
  webhooks_->push(boost::json::serialize(event));
}

// Under presence's lock, in the order presence counted the changes (then the member table's:
// never the other way round).
void pusher_channels::channel_occupied(const std::string& channel) {
  std::lock_guard lock(mutex_);
  occupancy_changed(channel, true);
}

void pusher_channels::channel_vacated(const std::string& channel) {
  std::lock_guard lock(mutex_);
  occupancy_changed(channel, false);
}

void pusher_channels::occupancy_changed(const std::string& channel, bool occupied) {
  if (cluster_) return cluster_->node_occupancy(channel, occupied);
  if (!webhooks_) return;
  webhook(occupied ? pusher::channel_occupied_event(channel)
                   : pusher::channel_vacated_event(channel));
}

// Under the member table's lock: the user's first connection on the channel here.
void pusher_channels::member_added_here(const std::string& channel, const pusher_member& member) {
  if (cluster_) return cluster_->node_member(channel, member, true);
  if (door_) door_->member_added(channel, member);
  if (webhooks_) webhook(pusher::member_added_event(channel, member.user_id));
}

void pusher_channels::member_removed_here(const std::string& channel, const std::string& user_id) {
  if (cluster_) return cluster_->node_member(channel, {user_id, "null"}, false);
  if (door_) door_->member_removed(channel, user_id);
  if (webhooks_) webhook(pusher::member_removed_event(channel, user_id));
}

void pusher_channels::cluster_changed(const std::vector<pusher_cluster_change>& changes) {
  if (!webhooks_) return;
  using k = pusher_cluster_change::kind;
  for (const auto& c : changes) {
    switch (c.what) {
      case k::occupied:
        webhook(pusher::channel_occupied_event(c.channel));
        break;
      case k::vacated:
        webhook(pusher::channel_vacated_event(c.channel));
        break;
      case k::member_added:
        webhook(pusher::member_added_event(c.channel, c.member.user_id));
        break;
      case k::member_removed:
        webhook(pusher::member_removed_event(c.channel, c.member.user_id));
        break;
    }
  }
}

void pusher_channels::cluster_member(const pusher_cluster_change& change) {
  if (!door_) return;
  if (change.what == pusher_cluster_change::kind::member_added) {
    door_->member_added(change.channel, change.member);
  } else if (change.what == pusher_cluster_change::kind::member_removed) {
    door_->member_removed(change.channel, change.member.user_id);
  }
}

pusher_node_state pusher_channels::node_state() const {
  pusher_node_state state;
  for (auto& [name, figures] : presence_.channels_with_prefix(""))
    state.occupied.push_back(std::move(name));
  std::lock_guard lock(mutex_);
  for (const auto& [channel, members] : channels_)
    for (const auto& [user_id, entry] : members)
      state.members.push_back({channel, {user_id, entry.user_info}});
  return state;
}

void pusher_channels::join_presence(const std::string& socket_id, const std::string& channel,
                                    pusher_member member, asio::any_io_executor origin,
                                    members_done done) {
  std::vector<pusher_member> now;
  {
    std::lock_guard lock(mutex_);
    auto& joined = sockets_[socket_id];
    if (joined.try_emplace(channel, member.user_id).second) {
      auto& entry = channels_[channel][member.user_id];
      if (++entry.connections == 1) {
        entry.user_info = member.user_info;
        member_added_here(channel, member);
      }
    }
    if (cluster_) {
      cluster_->members(channel, std::move(origin), std::move(done));
      return;
    }
    now = members_locked(channel);
  }
  asio::post(origin,
             [now = std::move(now), done = std::move(done)]() mutable { done(std::move(now)); });
}

void pusher_channels::leave_locked(const std::string& channel, const std::string& user_id) {
  const auto c = channels_.find(channel);
  if (c == channels_.end()) return;
  const auto m = c->second.find(user_id);
  if (m == c->second.end() || --m->second.connections > 0) return;
  c->second.erase(m);
  if (c->second.empty()) channels_.erase(c);
  member_removed_here(channel, user_id);
}

void pusher_channels::leave_presence(const std::string& socket_id, const std::string& channel) {
  std::lock_guard lock(mutex_);
  const auto s = sockets_.find(socket_id);
  if (s == sockets_.end()) return;
  const auto joined = s->second.find(channel);
  if (joined == s->second.end()) return;
  leave_locked(channel, joined->second);
  s->second.erase(joined);
  if (s->second.empty()) sockets_.erase(s);
}

void pusher_channels::leave_all(const std::string& socket_id) {
  std::lock_guard lock(mutex_);
  const auto s = sockets_.find(socket_id);
  if (s == sockets_.end()) return;
  for (const auto& [channel, user_id] : s->second)
    leave_locked(channel, user_id);
  sockets_.erase(s);
}

void pusher_channels::client_event(std::string_view channel, std::string_view event,
                                   std::optional<std::string_view> data, std::string_view socket_id,
                                   std::optional<std::string_view> user_id) {
  if (webhooks_) webhook(pusher::client_event_event(channel, event, data, socket_id, user_id));
}

void pusher_channels::cache_miss(std::string_view channel) {
  if (webhooks_) webhook(pusher::cache_miss_event(channel));
}

std::vector<pusher_member> pusher_channels::members_locked(const std::string& channel) const {
  std::vector<pusher_member> out;
  const auto c = channels_.find(channel);
  if (c == channels_.end()) return out;
  out.reserve(c->second.size());
  for (const auto& [user_id, entry] : c->second)
    out.push_back({user_id, entry.user_info});
  std::sort(out.begin(), out.end(),
            [](const auto& a, const auto& b) { return a.user_id < b.user_id; });
  return out;
}

std::size_t pusher_channels::user_count(const std::string& channel) const {
  std::lock_guard lock(mutex_);
  const auto c = channels_.find(channel);
  return c == channels_.end() ? 0 : c->second.size();
}

void pusher_channels::channel(
    const std::string& name, asio::any_io_executor origin,
    std::function<void(std::optional<pusher::channel_counts>)> done) const {
  if (cluster_) return cluster_->channel(name, std::move(origin), std::move(done));
  pusher::channel_counts counts{name, presence_.channel(name).sessions, user_count(name)};
  asio::post(origin, [counts = std::move(counts), done = std::move(done)]() mutable {
    done(std::move(counts));
  });
}

void pusher_channels::channels(
    const std::string& prefix, asio::any_io_executor origin,
    std::function<void(std::optional<std::vector<pusher::channel_counts>>)> done) const {
  if (cluster_) return cluster_->channels(prefix, std::move(origin), std::move(done));
  std::vector<pusher::channel_counts> out;
  for (auto& [name, figures] : presence_.channels_with_prefix(prefix)) {
    const std::size_t users = user_count(name);
    out.push_back({std::move(name), figures.sessions, users});
  }
  asio::post(origin,
             [out = std::move(out), done = std::move(done)]() mutable { done(std::move(out)); });
}

void pusher_channels::members(const std::string& channel, asio::any_io_executor origin,
                              members_done done) const {
  if (cluster_) return cluster_->members(channel, std::move(origin), std::move(done));
  std::vector<pusher_member> now;
  {
    std::lock_guard lock(mutex_);
    now = members_locked(channel);
  }
  asio::post(origin,
             [now = std::move(now), done = std::move(done)]() mutable { done(std::move(now)); });
}

}  // namespace ringcast
