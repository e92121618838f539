// What of a scheduled promotion (core/schedule.hpp's entry) survives an upgrade, declared once:
// the schedule's entry inherits this record, the handover state holds it beside the entry's slot
// and the time it is due on the wheel (handover_state.hpp), and capture, restore and the codec
// walk its fields (record_walk.hpp). A field added here is carried across an upgrade with no
// other line but a bump of state_format.
#pragma once

#include <cstdint>
#include <string>

namespace ringcast::upgrade {

struct promotion_record {
  std::int64_t at_ms = 0;    // when it is published, Unix ms (for listing and the wall clock)
  std::string request_json;  // the posted request; empty: the slot is free
#ifdef RINGCAST_TEST_EXTRA_PROMOTION_FIELDS
  // tests/server/upgrade/state_added_field_test.cpp: fields added in a scratch build must cross.
  RINGCAST_TEST_EXTRA_PROMOTION_FIELDS
#endif

  bool operator==(const promotion_record&) const = default;
};

}  // namespace ringcast::upgrade
