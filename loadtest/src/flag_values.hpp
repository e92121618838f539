// The pieces of a flag's value that parse_flags (flags.cpp) and the value parsers
// (flag_values.cpp) share: each throws flag_error naming the flag, so that the tool stops before
// any client starts.
#pragma once

#include <fmt/format.h>

#include <charconv>
#include <string_view>
#include <system_error>
#include <vector>

#include "flags.hpp"

namespace ringcast::load {

// `text` cut at each `sep` (an empty text is one empty part).
std::vector<std::string_view> split(std::string_view text, char sep);

// All of `text` as a T, or flag_error naming `what`.
template <class T>
T parse_whole(std::string_view text, std::string_view what) {
  T value{};
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || ec != std::errc{} || end != text.data() + text.size()) {
    throw flag_error(fmt::format("{}: '{}' is not a whole number in range", what, text));
  }
  return value;
}

// All of `text` as a finite number in [lo, hi], or flag_error naming `what`.
double parse_number(std::string_view text, std::string_view what, double lo, double hi);

}  // namespace ringcast::load
