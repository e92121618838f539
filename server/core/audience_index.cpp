#include "core/audience_index.hpp"

#include <algorithm>

#include "core/session_observers.hpp"
#include "protocol/client_params.hpp"

namespace ringcast {

bool audience_index::addressed_to(const session& s, const message& m) {
  switch (m.to) {
    case audience::broadcast:
      return true;
    case audience::user:
      return s.user() == m.target;
    case audience::users:
      return m.addressed_to_user(s.user());
    case audience::channel:
      return std::find(s.channels_.begin(), s.channels_.end(), m.target) != s.channels_.end();
  }
  return false;
}

bool audience_index::subscribe(session& s, const std::vector<std::string>& channels,
                               std::uint64_t newest_id, std::size_t limit) {
  std::vector<std::string> wanted = s.channels_;
  for (const auto& c : channels) {
    if (std::find(wanted.begin(), wanted.end(), c) == wanted.end()) wanted.push_back(c);
  }
  if (wanted.size() > limit) return false;
  set_channels(s, std::move(wanted), newest_id);
  return true;
}

bool audience_index::may_subscribe(const session& s, const std::vector<std::string>& channels) {
  return std::all_of(channels.begin(), channels.end(),
                     [&](const std::string& c) { return within_grant(s.allowed_channels_, c); });
}

void audience_index::unsubscribe(session& s, const std::vector<std::string>& channels,
                                 std::uint64_t newest_id) {
  std::vector<std::string> kept;
  for (const auto& c : s.channels_) {
    if (std::find(channels.begin(), channels.end(), c) == channels.end()) kept.push_back(c);
  }
  set_channels(s, std::move(kept), newest_id);
}

void audience_index::set_channels(session& s, std::vector<std::string> channels,
                                  std::uint64_t joined_after) {
  std::vector<std::uint64_t> joined(channels.size(), joined_after);
  for (std::size_t i = 0; i < channels.size(); ++i) {
    const auto kept = std::find(s.channels_.begin(), s.channels_.end(), channels[i]);
    if (kept != s.channels_.end())
      joined[i] = s.joined_after_[static_cast<std::size_t>(kept - s.channels_.begin())];
  }
  s.joined_after_ = std::move(joined);
  std::vector<std::string> before = std::move(s.channels_);
  s.channels_ = std::move(channels);
  for (const auto& c : before) {
    auto it = by_channel_.find(c);
    it->second.erase(&s);
    if (it->second.empty()) by_channel_.erase(it);
  }
  for (const auto& c : s.channels_)
    by_channel_[c].insert(&s);
  if (s.online_) observers_.channels_changed(s, before);
}

void audience_index::join_live(session& s) {
  s.attached_index_ = live_.size();
  live_.push_back(&s);
}

// Swap-remove; a broadcast walks live_ backwards so a removal during delivery is safe.
void audience_index::leave_live(session& s) {
  session* last = live_.back();
  live_[s.attached_index_] = last;
  last->attached_index_ = s.attached_index_;
  live_.pop_back();
}

}  // namespace ringcast
