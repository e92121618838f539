// Fields added to the records of the handover state (server/upgrade/*_record.hpp) in a scratch
// build of the codec and of the message's capture and restore: state_added_field_test.cpp is
// compiled with this header forced in front (-include).
#pragma once

#include <cstdint>
#include <optional>
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

#define RINGCAST_TEST_EXTRA_EXPIRY_FIELDS \
  Message added_about{};                  \
  std::vector<std::uint64_t> added_ids;

#define RINGCAST_TEST_EXTRA_PACED_FIELDS \
  std::uint32_t added_turns = 0;         \
  Time added_since{};                    \
  Position added_mark{};

#define RINGCAST_TEST_EXTRA_PROMOTION_FIELDS std::optional<std::string> added_note;
