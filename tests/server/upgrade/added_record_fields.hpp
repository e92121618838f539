// Fields added to the records of the handover state (server/upgrade/*_record.hpp) in a scratch
// build of the codec and of the message's capture and restore: state_added_field_test.cpp is
// compiled with this header forced in front (-include).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#define RINGCAST_TEST_EXTRA_SESSION_FIELDS \
  std::uint64_t added_count_ = 0;          \
  Time added_at_{};                        \
  std::vector<std::string> added_names_;

#define RINGCAST_TEST_EXTRA_MESSAGE_FIELDS \
  std::string added_label;                 \
  Millis added_wait{};                     \
  mutable Shared<std::uint64_t> added_count{0};
