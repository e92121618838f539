// What of a message's ttl on one loop (core/message_store.hpp's expiry) survives an upgrade,
// declared once: the expiry in memory is this record over the message and a steady time (it
// inherits it), the handover state holds the same record over the message's id and a time
// relative to the capture (handover_state.hpp), and capture, restore and the codec walk its
// fields (record_walk.hpp). A field added here is carried across an upgrade with no other line but
// a bump of state_format.
#pragma once

namespace ringcast::upgrade {

template <class Message, class Time>
struct expiry_record {
  static constexpr const char* plural = "message expiries";
  Message msg{};  // in the state, its id
  Time due{};     // when its ttl passes on this loop (it is armed once, at this time)
#ifdef RINGCAST_TEST_EXTRA_EXPIRY_FIELDS
  // tests/server/upgrade/state_added_field_test.cpp: fields added in a scratch build must cross.
  RINGCAST_TEST_EXTRA_EXPIRY_FIELDS
#endif

  bool operator==(const expiry_record&) const = default;
};

}  // namespace ringcast::upgrade
