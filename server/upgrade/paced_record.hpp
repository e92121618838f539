// What of a paced message on one loop (core/pacing.hpp's paced_message) survives an upgrade,
// declared once: the paced message in memory is this record over the message, a steady time and
// a position on the ring as a 128-bit number (it inherits it), the handover state holds the same
// record over the message's id, a time relative to the capture and the position's two halves
// (handover_state.hpp), and capture, restore and the codec walk its fields (record_walk.hpp).
// A field added here is carried across an upgrade with no other line but a bump of state_format.
#pragma once

#include <cstdint>

namespace ringcast::upgrade {

// A position on the ring of 2^64 places, or 2^64 itself once a message has settled: `hi` is 0 or
// 1 (the codec refuses anything past the whole ring).
struct ring_position {
  std::uint64_t lo = 0;
  std::uint8_t hi = 0;

  bool operator==(const ring_position&) const = default;
};

template <class Message, class Time, class Position>
struct paced_record {
  static constexpr const char* plural = "paced messages";
  Message msg{};  // in the state, its id
  Time start{};   // when its window opened on this loop
  // How far its cursor has walked the ring: positions below it have had their turn.
  Position walked{};
#ifdef RINGCAST_TEST_EXTRA_PACED_FIELDS
  // tests/server/upgrade/state_added_field_test.cpp: fields added in a scratch build must cross.
  RINGCAST_TEST_EXTRA_PACED_FIELDS
#endif

  bool operator==(const paced_record&) const = default;
};

}  // namespace ringcast::upgrade
