// The messages of a handover to a new binary (docs/operations.md, "Upgrading"): every loop holds
// the same immutable message objects, so the state keeps each once, by id, with its reach, and
// the hubs name them by id (hub::capture, hub::restore).
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <unordered_map>
#include <vector>

#include "core/message.hpp"
#include "core/outbound_queue.hpp"
#include "core/pacing.hpp"
#include "ringcast/wheel/timing_wheel.hpp"
#include "upgrade/handover_state.hpp"
#include "upgrade/process_handover.hpp"

namespace ringcast {

using handover_messages = std::map<std::uint64_t, message_ptr>;

std::vector<upgrade::message_state> capture_messages(const handover_messages& messages);
// One message object per id, shared by every loop restored from the state, its reach as it was.
handover_messages restore_messages(const std::vector<upgrade::message_state>& messages);

// The messages queued to moving streams (stream_connection::capture_loop), each once, by object
// (an `expired` notice has the id of the message it is about), in the order first met: a
// stream's queued frames name them by their place here.
struct queued_messages {
  std::vector<message_ptr> list;
  std::unordered_map<const message*, std::uint32_t> index;
  std::uint32_t add(const message_ptr& m);
};

// The old process: every loop's table as one (process_handover::messages), the streams'
// references renumbered into it (`streams[i]` were captured with `loops[i]`). A message that the
// node's state carries as the same object (`node`) is written there only.
void gather_queued_messages(const std::vector<queued_messages>& loops,
                            std::vector<std::vector<moved_stream>>& streams,
                            const handover_messages& node, process_handover& out);
// The new process: the table's messages, from the node's restored state or framed again from
// their bytes; null where the node's state was not restored.
std::vector<message_ptr> restore_queued_messages(const std::vector<moved_message>& table,
                                                 const handover_messages& node);
// A moved stream's queue: its partly written frame, then its queued frames, each message shared;
// none if a message it names is missing (null in `table`).
std::optional<std::vector<outbound>> queue_of(moved_stream& s,
                                              const std::vector<message_ptr>& table);

// Steady times relative to the instant of capture, and back (saturating: a time the clock cannot
// hold is the furthest it can).
upgrade::rel_ns relative_to(timing_wheel::time_point t, timing_wheel::time_point now);
timing_wheel::time_point absolute_from(upgrade::rel_ns t, timing_wheel::time_point now);

// What a record in memory holds as the state holds it otherwise, for upgrade::carry (capture:
// to_state; restore: from_state), by type and never by field: a steady time relative to the
// capture, a message by its id (kept once for the node in `kept`), a position on the pacing ring
// by its two halves.
struct to_state {
  timing_wheel::time_point now;
  handover_messages& kept;

  upgrade::rel_ns operator()(timing_wheel::time_point t) const { return relative_to(t, now); }
  std::uint64_t operator()(const message_ptr& m) const {
    kept.emplace(m->id, m);
    return m->id;
  }
  upgrade::ring_position operator()(pacing::u128 p) const {
    return {static_cast<std::uint64_t>(p), static_cast<std::uint8_t>(p >> 64)};
  }
};
struct from_state {
  timing_wheel::time_point now;
  const handover_messages& messages;  // the codec checked that every id named is one of them

  timing_wheel::time_point operator()(upgrade::rel_ns t) const { return absolute_from(t, now); }
  message_ptr operator()(std::uint64_t id) const { return messages.at(id); }
  pacing::u128 operator()(const upgrade::ring_position& p) const {
    return (pacing::u128{p.hi} << 64) | p.lo;
  }
};

}  // namespace ringcast
