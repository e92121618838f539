// A field of a type the handover state has no encoding for, added to a session's record: the
// build of the codec must fail (the ctest state_record_refuses_unencodable_field).
#pragma once

#include <map>

#define RINGCAST_TEST_EXTRA_SESSION_FIELDS std::map<int, int> added_map_;
