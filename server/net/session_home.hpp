// Where a connect's session lives (connection_context::home_of): its loop, and the hold on its
// user's slot that keeps it there until the session exists and counts itself (home_slots.hpp).
#pragma once

#include "core/home_slots.hpp"

namespace ringcast {

class connection_context;

struct session_home {
  connection_context& loop;
  home_slots::ticket held;
};

}  // namespace ringcast
