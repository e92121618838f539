// One line per event worth knowing (start, listen address, generated token, drain), on stderr.
#pragma once

#include <fmt/format.h>

#include <string_view>

#include "config/config.hpp"

namespace ringcast {

void log_line(std::string_view level, std::string_view text);
// Lines below `lowest` are dropped from now on (any thread: --log-level, SIGHUP).
void set_log_level(log_level lowest);
bool logs_info();

template <class... Args>
void log_info(fmt::format_string<Args...> f, Args&&... args) {
  if (logs_info()) log_line("info", fmt::format(f, std::forward<Args>(args)...));
}
template <class... Args>
void log_warn(fmt::format_string<Args...> f, Args&&... args) {
  log_line("warn", fmt::format(f, std::forward<Args>(args)...));
}
// What stops the server (it exits 2 after it, like a bad flag).
template <class... Args>
void log_error(fmt::format_string<Args...> f, Args&&... args) {
  log_line("error", fmt::format(f, std::forward<Args>(args)...));
}

}  // namespace ringcast
