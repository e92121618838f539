// UTF-8 (RFC 3629) checked one byte at a time, so that text arriving in pieces (a WebSocket
// message over several frames and reads) is judged as it comes: a byte no valid text can continue
// with fails at once, as Beast's checker does ("fail fast").
#pragma once

#include <cstdint>
#include <string_view>

namespace ringcast::utf8 {

// Where a check stands: between characters (`accept`), in the middle of one (another value), or
// failed for good (`reject`).
inline constexpr std::uint8_t accept = 0;
inline constexpr std::uint8_t reject = 8;

// Goes on from `state` over `bytes`; `reject` as soon as they cannot be valid. Text is valid when
// a run from `accept` over all of it ends at `accept`.
std::uint8_t run(std::uint8_t state, std::string_view bytes);

inline bool valid(std::string_view text) {
  return run(accept, text) == accept;
}

}  // namespace ringcast::utf8
