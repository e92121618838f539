#include "protocol/duration.hpp"

#include <charconv>
#include <cstdint>
#include <limits>

#include <fmt/format.h>

namespace ringcast {
namespace {

struct unit {
  std::string_view suffix;
  std::int64_t ms;
};

// Longest unit first: format_duration picks the first that divides exactly, which gives the
// shortest spelling: a larger unit drops at least one digit and never lengthens the suffix.
constexpr unit units[] = {{"h", 3'600'000}, {"m", 60'000}, {"s", 1'000}, {"ms", 1}};

}  // namespace

parsed<std::chrono::milliseconds> parse_duration(std::string_view text) {
  auto fail = [&] {
    return parsed<std::chrono::milliseconds>::fail(
        fmt::format("expected a duration like 25, 25s, 500ms or 2m, got '{}'", text));
  };

  const auto digits_end = text.find_first_not_of("0123456789");
  const std::string_view digits = text.substr(0, digits_end);
  const std::string_view suffix =
      digits_end == std::string_view::npos ? std::string_view{} : text.substr(digits_end);
  if (digits.empty()) return fail();

  std::int64_t scale = 1'000;  // a plain number means seconds
  if (!suffix.empty()) {
    scale = 0;
    for (const auto& u : units)
      if (suffix == u.suffix) scale = u.ms;
    if (scale == 0) return fail();
  }

  std::int64_t count = 0;
  const auto [end, ec] = std::from_chars(digits.data(), digits.data() + digits.size(), count);
  if (ec == std::errc::result_out_of_range ||
      count > std::numeric_limits<std::int64_t>::max() / scale)
    return parsed<std::chrono::milliseconds>::fail(
        fmt::format("duration too large, got '{}'", text));
  if (ec != std::errc{} || end != digits.data() + digits.size()) return fail();
  return parsed<std::chrono::milliseconds>::ok(std::chrono::milliseconds{count * scale});
}

std::string format_duration(std::chrono::milliseconds d) {
  const std::int64_t count = d.count();
  if (count == 0) return "0";
  const unit* u = units;
  while (count % u->ms != 0)
    ++u;  // stops at the latest at "ms", which divides everything
  return fmt::format("{}{}", count / u->ms, u->suffix);
}

}  // namespace ringcast
