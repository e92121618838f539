// The frame opcodes of RFC 6455 (section 5.2) and the control frames' payload limit, shared by
// the writer of server frames (ws_codec.cpp) and the reader of client frames (ws_reader.cpp).
#pragma once

#include <cstddef>
#include <cstdint>

namespace ringcast::ws::opcode {

inline constexpr std::uint8_t continuation = 0x0;
inline constexpr std::uint8_t text = 0x1;
inline constexpr std::uint8_t binary = 0x2;
inline constexpr std::uint8_t close = 0x8;  // close and above: control frames
inline constexpr std::uint8_t ping = 0x9;
inline constexpr std::uint8_t pong = 0xa;

inline bool is_control(std::uint8_t op) {
  return op >= close;
}

// A control frame's payload is at most 125 bytes (section 5.5).
inline constexpr std::size_t max_control_payload = 125;

}  // namespace ringcast::ws::opcode
