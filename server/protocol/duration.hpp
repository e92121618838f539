#pragma once

#include <chrono>
#include <string>
#include <string_view>

#include "protocol/parsed.hpp"

namespace ringcast {

// "25" (seconds), "25s", "500ms", "2m", "1h". Whole numbers only, no sign, no spaces;
// values that would overflow are refused.
parsed<std::chrono::milliseconds> parse_duration(std::string_view text);

// The shortest exact spelling of `d` in the syntax above ("25s", "500ms", "0").
std::string format_duration(std::chrono::milliseconds d);

}  // namespace ringcast
