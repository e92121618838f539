// The hub's channel subscriptions: what a session listens to, and the index a channel publish
// walks.
#include <algorithm>

#include "hub.hpp"

namespace ringcast {

bool hub::subscribe(session& s, const std::vector<std::string>& channels) {
  std::vector<std::string> wanted = s.channels_;
  for (const auto& c : channels) {
    if (std::find(wanted.begin(), wanted.end(), c) == wanted.end()) wanted.push_back(c);
  }
  if (wanted.size() > max_channels_per_client) return false;
  set_channels(s, std::move(wanted), history_.newest_id());
  return true;
}

bool hub::may_subscribe(const session& s, const std::vector<std::string>& channels) const {
  return std::all_of(channels.begin(), channels.end(),
                     [&](const std::string& c) { return within_grant(s.allowed_channels_, c); });
}

void hub::unsubscribe(session& s, const std::vector<std::string>& channels) {
  std::vector<std::string> kept;
  for (const auto& c : s.channels_) {
    if (std::find(channels.begin(), channels.end(), c) == channels.end()) kept.push_back(c);
  }
  set_channels(s, std::move(kept), history_.newest_id());
}

void hub::set_channels(session& s, std::vector<std::string> channels, std::uint64_t joined_after) {
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
  if (s.online_) channels_changed(s, before);
}

}  // namespace ringcast
