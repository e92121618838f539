// What a running node hands to the binary that replaces it on SIGUSR2 (docs/operations.md,
// "Upgrading"): plain data, no behaviour and no type of a higher layer, so that the codec
// (state_codec.hpp) can be read, tested and fuzzed alone. core fills it from its hubs and the
// schedule and builds them again from it (core/loop_handover.cpp, core/schedule_handover.cpp).
//
// Times on the steady clock are kept relative to the instant of capture (`rel_ns`: nanoseconds
// after it, negative for the past), so that a deadline comes due as long after the restore as it
// was ahead at the capture: nothing fires early, nothing fires twice. Wall-clock times (Unix ms)
// are kept as they are.
#pragma once

#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <vector>

#include "upgrade/expiry_record.hpp"
#include "upgrade/message_record.hpp"
#include "upgrade/paced_record.hpp"
#include "upgrade/promotion_record.hpp"
#include "upgrade/session_record.hpp"

namespace ringcast::upgrade {

// The format this binary writes and reads. A change of meaning or layout of any field bumps it;
// a binary refuses state of any other format (`--version` prints it).
inline constexpr std::uint32_t state_format = 4;
// 1  the first
// 2  a session's fields in the order of session_record.hpp, `live` and its timer after them
// 3  a scheduled promotion's slot and its timer before its record (promotion_record.hpp)
// 4  a message's Pusher event name, excluded socket id and sender after `expired`

using rel_ns = std::int64_t;
// A steady time that never comes (a session without token expiry).
inline constexpr rel_ns never = std::numeric_limits<rel_ns>::max();

// A published message, once for the node however many loops hold it: its record
// (message_record.hpp) over the audience's wire number (core/message.hpp's `audience`), its
// spread in milliseconds and its reach as plain numbers.
using message_state = message_record<std::uint8_t, std::int64_t, plain>;
inline constexpr std::uint8_t max_audience = 3;

// A message's ttl on one loop: its record (expiry_record.hpp) over the message's id.
using expiry_state = expiry_record<std::uint64_t, rel_ns>;

// A paced message on one loop (core/pacing.hpp): its record (paced_record.hpp) over the message's
// id and its walk's two halves.
using paced_state = paced_record<std::uint64_t, rel_ns, ring_position>;

// A session (user, sid), connected or waiting out its TTL: its record (session_record.hpp), and
// what capture reads off the hub around it.
struct session_state {
  static constexpr const char* plural = "sessions";
  session_record<rel_ns, std::uint8_t> record;  // the transport: ws, sse, poll
  bool live = false;     // it had a connection (or held poll), which the new binary adopts
  rel_ns timer_due = 0;  // its node in the loop's wheel

  bool operator==(const session_state&) const = default;
};
inline constexpr std::uint8_t max_transport = 2;

// One event loop's hub. Its history, sticky set and paced log name messages by id.
struct loop_state {
  static constexpr const char* plural = "loops";
  std::uint64_t history_floor = 0;     // highest id no longer (or never) retained
  std::vector<std::uint64_t> history;  // oldest first
  std::vector<std::uint64_t> sticky;   // in force, by id
  std::vector<expiry_state> expiring;
  rel_ns paced_walked_to = 0;
  std::vector<paced_state> paced;  // oldest first
  std::vector<session_state> sessions;

  bool operator==(const loop_state&) const = default;
};

// The node's schedule (core/schedule.hpp): every slot's generation, so that an id issued before
// the upgrade means the same promotion (or none) after it, and the promotions waiting.
struct promotion_state {
  static constexpr const char* plural = "scheduled promotions";
  std::uint32_t slot = 0;  // its generation is generations[slot]
  rel_ns due = 0;          // its node in the loop's wheel
  promotion_record record;

  bool operator==(const promotion_state&) const = default;
};
struct schedule_state {
  std::vector<std::uint32_t> generations;  // one per slot ever handed out
  std::vector<promotion_state> waiting;

  bool operator==(const schedule_state&) const = default;
};

struct sticky_quota_entry {
  static constexpr const char* plural = "sticky quota entries";
  std::uint64_t id = 0;
  std::int64_t expires_ms = 0;

  bool operator==(const sticky_quota_entry&) const = default;
};

struct handover_state {
  std::uint64_t last_id = 0;  // the id sequencer
  std::uint64_t published = 0;
  std::vector<sticky_quota_entry> sticky_quota;
  std::vector<message_state> messages;  // every message a loop holds, by id
  std::vector<loop_state> loops;
  schedule_state schedule;

  bool operator==(const handover_state&) const = default;
};

}  // namespace ringcast::upgrade
