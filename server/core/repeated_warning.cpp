#include "core/repeated_warning.hpp"

namespace ringcast {

std::optional<std::string> repeated_warning::count(clock::time_point now) {
  std::lock_guard lock(mutex_);
  ++since_;
  if (logged_ && now - *logged_ < period_) return std::nullopt;
  std::string suffix;
  if (logged_ && since_ > 1) {
    const double seconds = std::chrono::duration<double>(now - *logged_).count();
    suffix = fmt::format(" ({} times in the last {:.1f} s)", since_, seconds);
  }
  logged_ = now;
  since_ = 0;
  return suffix;
}

}  // namespace ringcast
