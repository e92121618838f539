#include "core/presence.hpp"

#include <algorithm>

#include "core/session.hpp"

namespace ringcast {
namespace {

thread_local std::uint64_t last_change_here = 0;

}  // namespace

std::uint64_t presence_counts::changes_seen() {
  return last_change_here;
}

void presence_counts::counted() {
  last_change_here = ++changes_;
}

presence_counts::copy presence_counts::copy_all() const {
  std::lock_guard lock(mutex_);
  copy c;
  c.changes = changes_;
  c.users.assign(users_.begin(), users_.end());
  for (const auto& [name, count] : channels_)
    c.channels.emplace_back(name, std::vector<std::pair<std::string, std::size_t>>(
                                      count.users.begin(), count.users.end()));
  return c;
}

channel_presence presence_counts::channel(std::string_view name) const {
  std::lock_guard lock(mutex_);
  const auto it = channels_.find(std::string(name));
  if (it == channels_.end()) return {};
  return {it->second.users.size(), it->second.sessions};
}

std::size_t presence_counts::user_sessions(std::string_view user) const {
  std::lock_guard lock(mutex_);
  const auto it = users_.find(user);
  return it == users_.end() ? 0 : it->second;
}

presence_figures presence_counts::figures(const presence_query& q) const {
  presence_figures f;
  switch (q.what) {
    case presence_query::kind::channel: {
      const auto c = channel(q.name);
      f.users = c.users;
      f.sessions = c.sessions;
      break;
    }
    case presence_query::kind::user:
      f.sessions = user_sessions(q.name);
      break;
    case presence_query::kind::top:
      f.top = top_channels(q.top);
      break;
  }
  return f;
}

std::vector<std::pair<std::string, channel_presence>> presence_counts::top_channels(
    std::size_t n) const {
  std::vector<std::pair<std::string, channel_presence>> all;
  {
    std::lock_guard lock(mutex_);
    all.reserve(channels_.size());
    for (const auto& [name, c] : channels_)
      all.emplace_back(name, channel_presence{c.users.size(), c.sessions});
  }
  const auto more = [](const auto& a, const auto& b) {
    return a.second.sessions != b.second.sessions ? a.second.sessions > b.second.sessions
                                                  : a.first < b.first;
  };
  const auto keep = std::min(n, all.size());
  std::partial_sort(all.begin(), all.begin() + static_cast<std::ptrdiff_t>(keep), all.end(), more);
  all.resize(keep);
  return all;
}

std::vector<std::pair<std::string, channel_presence>> presence_counts::channels_with_prefix(
    std::string_view prefix) const {
  std::vector<std::pair<std::string, channel_presence>> out;
  {
    std::lock_guard lock(mutex_);
    for (const auto& [name, c] : channels_)
      if (name.starts_with(prefix))
        out.emplace_back(name, channel_presence{c.users.size(), c.sessions});
  }
  std::sort(out.begin(), out.end(), [](const auto& a, const auto& b) { return a.first < b.first; });
  return out;
}

void presence_counts::join(const std::string& user, const std::vector<std::string>& channels) {
  for (const auto& name : channels) {
    auto& c = channels_[name];
    ++c.users[user];
    if (++c.sessions == 1 && occupancy_) occupancy_->channel_occupied(name);
  }
}

void presence_counts::leave(const std::string& user, const std::vector<std::string>& channels) {
  for (const auto& name : channels) {
    const auto it = channels_.find(name);
    if (it == channels_.end()) continue;
    auto& c = it->second;
    if (const auto u = c.users.find(user); u != c.users.end() && --u->second == 0) c.users.erase(u);
    if (--c.sessions == 0) {
      channels_.erase(it);
      if (occupancy_) occupancy_->channel_vacated(name);
    }
  }
}

void presence_counts::on_connect(const session& s, bool) {
  std::lock_guard lock(mutex_);
  counted();
  ++users_[s.user()];
  join(s.user(), s.channels());
}

void presence_counts::on_disconnect(const session& s, std::string_view) {
  std::lock_guard lock(mutex_);
  counted();
  if (const auto it = users_.find(s.user()); it != users_.end() && --it->second == 0)
    users_.erase(it);
  leave(s.user(), s.channels());
}

void presence_counts::on_subscribe(const session& s, const std::vector<std::string>& channels) {
  std::lock_guard lock(mutex_);
  counted();
  join(s.user(), channels);
}

void presence_counts::on_unsubscribe(const session& s, const std::vector<std::string>& channels) {
  std::lock_guard lock(mutex_);
  counted();
  leave(s.user(), channels);
}

}  // namespace ringcast
