#include "core/log.hpp"

#include <fmt/chrono.h>

#include <atomic>
#include <chrono>
#include <cstdio>

namespace ringcast {
namespace {
std::atomic<log_level> lowest_level{log_level::info};
}  // namespace

void set_log_level(log_level lowest) {
  lowest_level.store(lowest, std::memory_order_relaxed);
}

bool logs_info() {
  return lowest_level.load(std::memory_order_relaxed) == log_level::info;
}

void log_line(std::string_view level, std::string_view text) {
  const auto now = std::chrono::floor<std::chrono::milliseconds>(std::chrono::system_clock::now());
  // One fwrite per line keeps lines whole when several threads log.
  const std::string line = fmt::format("{:%FT%TZ} {} {}\n", now, level, text);
  std::fwrite(line.data(), 1, line.size(), stderr);
}

}  // namespace ringcast
