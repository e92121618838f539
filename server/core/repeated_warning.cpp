#include "repeated_warning.hpp"

#include "log.hpp"

namespace ringcast {

repeated_warning::repeated_warning(std::chrono::milliseconds every,
                                   std::function<clock::time_point()> now)
    : every_(every), now_(std::move(now)) {}

bool repeated_warning::warn(const std::string& text) {
  const auto now = now_();
  if (text == last_ && now - last_at_ < every_) {
    ++left_out_;
    return false;
  }
  if (text == last_ && left_out_ > 0) {
    log_warn("{} (and {} times more in the last {} s)", text, left_out_,
             std::chrono::duration_cast<std::chrono::seconds>(now - last_at_).count());
  } else {
    log_warn("{}", text);
  }
  last_ = text;
  last_at_ = now;
  left_out_ = 0;
  return true;
}

}  // namespace ringcast
