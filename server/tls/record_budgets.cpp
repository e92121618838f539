#include "tls/record_budgets.hpp"

namespace ringcast {

bool key_update_budget::take(std::uint32_t now_seconds) {
  if (taken_ == 0 || now_seconds - window_start_ >= window_seconds) {
    window_start_ = now_seconds;
    taken_ = 0;
  }
  if (taken_ == per_window) return false;
  ++taken_;
  return true;
}

}  // namespace ringcast
