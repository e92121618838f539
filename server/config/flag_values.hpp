// Reading one flag's text into a value: a whole number in a range, a duration, HOST:PORT, a
// directory. Each error is a flag_error naming the flag and echoing what was given.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

#include "config/config.hpp"

namespace ringcast {

std::uint64_t number_value(std::string_view flag, const std::string& text, std::uint64_t lo,
                           std::uint64_t hi);
config::ms duration_value(std::string_view flag, const std::string& text);
// "IPv4:PORT" or "[IPv6]:PORT"; host names are refused because the server binds, not resolves.
void read_listen(const std::string& text, config& cfg);
// A --web-root that cannot be listed would serve 404 for every page without a word: refuse it.
void check_web_root(const std::string& dir);

}  // namespace ringcast
