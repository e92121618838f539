// The messages of a handover to a new binary (docs/operations.md, "Upgrading"): every loop holds
// the same immutable message objects, so the state keeps each once, by id, with its reach, and
// the hubs name them by id (hub::capture, hub::restore).
#pragma once

#include <cstdint>
#include <map>
#include <vector>

#include "handover_state.hpp"
#include "message.hpp"
#include "ringcast/wheel/timing_wheel.hpp"

namespace ringcast {

using handover_messages = std::map<std::uint64_t, message_ptr>;

std::vector<upgrade::message_state> capture_messages(const handover_messages& messages);
// One message object per id, shared by every loop restored from the state, its reach as it was.
handover_messages restore_messages(const std::vector<upgrade::message_state>& messages);

// Steady times relative to the instant of capture, and back (saturating: a time the clock cannot
// hold is the furthest it can).
upgrade::rel_ns relative_to(timing_wheel::time_point t, timing_wheel::time_point now);
timing_wheel::time_point absolute_from(upgrade::rel_ns t, timing_wheel::time_point now);

}  // namespace ringcast
