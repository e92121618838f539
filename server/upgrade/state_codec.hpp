// The handover state as bytes (docs/operations.md, "Upgrading"):
//
//   "RCSTATE\0"  magic, 8 bytes
//   u32          format (handover_state.hpp's state_format)
//   u32          CRC-32 of the body
//   u64          body length: the body is exactly the rest of the bytes
//   body         sections, each: u32 tag, u64 length, that many bytes; every known section once,
//                in tag order
//
// Little-endian throughout (state_bytes.hpp). The reader refuses, with a message and never a
// crash or an allocation out of proportion to its input, anything it does not understand: another
// magic or format, a checksum that does not match, bytes missing or left over (in the whole or in
// a section), a count larger than the bytes could hold, a value out of its range (an enum, a
// flag), and references that do not hold (a loop naming a message the state lacks, ids out of
// order, a session key that is not one). So a binary can refuse state before the old one is gone.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "upgrade/handover_state.hpp"

namespace ringcast::upgrade {

inline constexpr std::string_view state_magic{"RCSTATE\0", 8};
inline constexpr std::size_t state_header_bytes = 8 + 4 + 4 + 8;

std::string write_state(const handover_state& state);

struct read_result {
  std::optional<handover_state> state;
  std::string error;  // why it was refused, when it was
};
read_result read_state(std::string_view bytes);

}  // namespace ringcast::upgrade
