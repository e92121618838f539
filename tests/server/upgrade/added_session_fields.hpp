// Fields added to a session's record (server/upgrade/session_record.hpp) in a scratch build of the
// codec: state_added_field_test.cpp is compiled with this header forced in front (-include).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#define RINGCAST_TEST_EXTRA_SESSION_FIELDS \
  std::uint64_t added_count_ = 0;          \
  Time added_at_{};                        \
  std::vector<std::string> added_names_;
