// The observers of one loop's sessions (session_events.hpp: event hooks, presence) and the one
// place that tells them: a session's online state, and what changed in its channels while online.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "core/session_events.hpp"

namespace ringcast {

class session;

class session_observers {
 public:
  // `o` must outlive the hub or be removed by its destructor.
  void observe(session_events& o) { observers_.push_back(&o); }
  void unobserve(session_events& o) { std::erase(observers_, &o); }

  void go_online(session& s, bool resumed);
  // Nothing if `s` is already offline.
  void go_offline(session& s, std::string_view reason);
  // `s`'s channels were `before`; observers are told only what was added and removed.
  void channels_changed(const session& s, const std::vector<std::string>& before);

 private:
  std::vector<session_events*> observers_;
};

}  // namespace ringcast
