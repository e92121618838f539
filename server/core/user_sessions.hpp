// Each user's sessions on one loop: those with a live connection, and the others oldest idle first
// (the order they lost their connection in). Intrusive lists through the sessions: no allocation,
// O(1) in and out. The session table keeps them; the audience index walks a user's live ones.
#pragma once

#include <cstddef>
#include <functional>
#include <string>

#include <boost/intrusive/list.hpp>
#include <boost/unordered/unordered_flat_map.hpp>

#include "core/session.hpp"
#include "core/string_hash.hpp"

namespace ringcast {

struct user_sessions {
  using list = boost::intrusive::list<
      session, boost::intrusive::member_hook<session, boost::intrusive::list_member_hook<>,
                                             &session::user_link_>>;
  list live, idle;
  std::size_t size() const { return live.size() + idle.size(); }
};
// Open addressing: the lookup of a new user reads one group of metadata, not a bucket and a
// chain of nodes (docs/performance.md §22).
using sessions_by_user =
    boost::unordered_flat_map<std::string, user_sessions, string_hash, std::equal_to<>>;

}  // namespace ringcast
