#include "protocol/utf8_check.hpp"

namespace ringcast::utf8 {
namespace {

// A state says what the next byte of a character must be.
enum state : std::uint8_t {
  between = accept,  // between characters
  tail1,             // one more 80-BF
  tail2,             // two more 80-BF
  tail3,             // three more 80-BF
  after_e0,          // A0-BF, then one more (no overlong 3-byte form)
  after_ed,          // 80-9F, then one more (no surrogates)
  after_f0,          // 90-BF, then two more (no overlong 4-byte form)
  after_f4,          // 80-8F, then two more (nothing past U+10FFFF)
  failed,
};
static_assert(failed == reject);

state lead(std::uint8_t b) {
  if (b < 0x80) return between;
  if (b >= 0xc2 && b <= 0xdf) return tail1;
  if (b == 0xe0) return after_e0;
  if (b == 0xed) return after_ed;
  if (b >= 0xe1 && b <= 0xef) return tail2;
  if (b == 0xf0) return after_f0;
  if (b >= 0xf1 && b <= 0xf3) return tail3;
  if (b == 0xf4) return after_f4;
  return failed;
}

state step(std::uint8_t s, std::uint8_t b) {
  const auto in = [b](int lo, int hi) { return b >= lo && b <= hi; };
  switch (s) {
    case between:
      return lead(b);
    case tail1:
      return in(0x80, 0xbf) ? between : failed;
    case tail2:
      return in(0x80, 0xbf) ? tail1 : failed;
    case tail3:
      return in(0x80, 0xbf) ? tail2 : failed;
    case after_e0:
      return in(0xa0, 0xbf) ? tail1 : failed;
    case after_ed:
      return in(0x80, 0x9f) ? tail1 : failed;
    case after_f0:
      return in(0x90, 0xbf) ? tail2 : failed;
    case after_f4:
      return in(0x80, 0x8f) ? tail2 : failed;
    default:
      return failed;
  }
}

}  // namespace

std::uint8_t run(std::uint8_t s, std::string_view bytes) {
  for (const char c : bytes) {
    s = step(s, static_cast<std::uint8_t>(c));
    if (s == failed) break;
  }
  return s;
}

}  // namespace ringcast::utf8
