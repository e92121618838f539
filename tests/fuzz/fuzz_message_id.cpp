// parse_message_id (the `since` parameter and the SSE Last-Event-ID header) against a reference:
// accepted exactly when the text is 1+ ASCII digits whose value fits in 64 bits, with that value.
#include <cstddef>
#include <cstdint>
#include <limits>
#include <optional>
#include <string>
#include <string_view>

#include "fuzz_check.hpp"
#include "protocol/client_params.hpp"

namespace {

std::optional<std::uint64_t> reference(std::string_view text) {
  if (text.empty()) return std::nullopt;
  constexpr auto max = std::numeric_limits<std::uint64_t>::max();
  std::uint64_t value = 0;
  for (const char c : text) {
    if (c < '0' || c > '9') return std::nullopt;
    const auto digit = static_cast<std::uint64_t>(c - '0');
    if (value > (max - digit) / 10) return std::nullopt;
    value = value * 10 + digit;
  }
  return value;
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text(reinterpret_cast<const char*>(data), size);
  const auto id = ringcast::parse_message_id(text);
  FUZZ_CHECK(id == reference(text));
  if (id) FUZZ_CHECK(ringcast::parse_message_id(std::to_string(*id)) == id);
  return 0;
}
