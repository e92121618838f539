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

}  // namespace ringcast
