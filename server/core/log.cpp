#include "log.hpp"

#include <fmt/chrono.h>

#include <chrono>
#include <cstdio>

namespace ringcast {

void log_line(std::string_view level, std::string_view text) {
  const auto now = std::chrono::floor<std::chrono::milliseconds>(std::chrono::system_clock::now());
  // One fwrite per line keeps lines whole when several threads log.
  const std::string line = fmt::format("{:%FT%TZ} {} {}\n", now, level, text);
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace ringcast
