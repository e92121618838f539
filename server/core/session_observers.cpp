#include "core/session_observers.hpp"

#include <algorithm>

#include "core/session.hpp"

namespace ringcast {
namespace {

// The elements of `a` not in `b` (a session has at most max_channels_per_client channels).
std::vector<std::string> missing_from(const std::vector<std::string>& a,
                                      const std::vector<std::string>& b) {
  std::vector<std::string> out;
  for (const auto& c : a) {
    if (std::find(b.begin(), b.end(), c) == b.end()) out.push_back(c);
  }
  return out;
}

}  // namespace

void session_observers::go_online(session& s, bool resumed) {
  s.online_ = true;
  for (session_events* o : observers_)
    o->on_connect(s, resumed);
}

void session_observers::go_offline(session& s, std::string_view reason) {
  if (!s.online_) return;
  s.online_ = false;
  for (session_events* o : observers_)
    o->on_disconnect(s, reason);
}

void session_observers::channels_changed(const session& s, const std::vector<std::string>& before) {
  if (observers_.empty()) return;
  const auto added = missing_from(s.channels_, before);
  const auto removed = missing_from(before, s.channels_);
  for (session_events* o : observers_) {
    if (!removed.empty()) o->on_unsubscribe(s, removed);
    if (!added.empty()) o->on_subscribe(s, added);
  }
}

}  // namespace ringcast
