// parse_duration (every timeout flag) against a reference reading of the grammar, and
// format_duration: parse(format(d)) == d for the value parsed and for any 64-bit count taken from
// the input's first bytes, with the canonical spelling stable.
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <limits>
#include <optional>
#include <string_view>

#include "fuzz_check.hpp"
#include "protocol/duration.hpp"

namespace {

using std::chrono::milliseconds;

struct reading {
  bool well_formed = false;
  std::optional<std::int64_t> ms;  // set when well formed and within 64 bits
};

reading reference(std::string_view text) {
  std::size_t digits = 0;
  while (digits < text.size() && text[digits] >= '0' && text[digits] <= '9')
    ++digits;
  const std::string_view suffix = text.substr(digits);
  std::int64_t scale = 0;
  if (suffix.empty() || suffix == "s") scale = 1'000;
  if (suffix == "ms") scale = 1;
  if (suffix == "m") scale = 60'000;
  if (suffix == "h") scale = 3'600'000;
  if (digits == 0 || scale == 0) return {};

  constexpr auto max = std::numeric_limits<std::int64_t>::max();
  __int128 value = 0;
  for (std::size_t i = 0; i < digits; ++i) {
    value = value * 10 + (text[i] - '0');
    if (value > max) return {true, std::nullopt};
  }
  value *= scale;
  if (value > max) return {true, std::nullopt};
  return {true, static_cast<std::int64_t>(value)};
}

void check_round_trip(milliseconds d) {
  const std::string spelling = ringcast::format_duration(d);
  const auto back = ringcast::parse_duration(spelling);
  FUZZ_CHECK(back && *back.value == d);
  FUZZ_CHECK(spelling == "0" || spelling.front() != '0');
  FUZZ_CHECK(ringcast::format_duration(*back.value) == spelling);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto parsed = ringcast::parse_duration(text);
  const reading expected = reference(text);
  FUZZ_CHECK(parsed.value.has_value() == expected.ms.has_value());
  if (parsed) {
    FUZZ_CHECK(parsed.value->count() == *expected.ms);
    check_round_trip(*parsed.value);
  } else {
    FUZZ_CHECK(parsed.error.starts_with(expected.well_formed ? "duration too large"
                                                             : "expected a duration"));
  }

  if (size >= sizeof(std::int64_t)) {
    std::uint64_t bits = 0;
    std::memcpy(&bits, data, sizeof bits);
    check_round_trip(milliseconds{static_cast<std::int64_t>(bits >> 1)});  // any count >= 0
  }
  return 0;
}
