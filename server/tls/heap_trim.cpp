#include "tls/heap_trim.hpp"

#include <malloc.h>

#include <condition_variable>
#include <thread>

namespace ringcast {

bool trim_schedule::handshake_ended(clock::time_point now) {
  const std::lock_guard lock(mutex_);
  last_handshake_ = now;
  if (waiting_) return false;
  waiting_ = true;
  first_untrimmed_ = now;
  return true;
}

std::optional<trim_schedule::clock::duration> trim_schedule::wait_ended(clock::time_point now) {
  const std::lock_guard lock(mutex_);
  const auto quiet_at = last_handshake_ + quiet_;
  if (now < quiet_at && now < first_untrimmed_ + longest_wait_)
    return std::min(quiet_at, first_untrimmed_ + longest_wait_) - now;
  waiting_ = false;
  return std::nullopt;
}

namespace {

// Waits while the schedule says so, trims, and sleeps until the next wait begins.
class trim_thread {
 public:
  void handshake_ended() {
    if (!schedule_.handshake_ended(trim_schedule::clock::now())) return;
    const std::lock_guard lock(mutex_);
    armed_ = true;
    if (started_) return wake_.notify_one();
    started_ = true;
    std::thread([this] { run(); }).detach();
  }

 private:
  [[noreturn]] void run() {
    for (;;) {
      {
        std::unique_lock lock(mutex_);
        wake_.wait(lock, [this] { return armed_; });
        armed_ = false;
      }
      auto delay = schedule_.quiet();
      for (;;) {
        std::this_thread::sleep_for(delay);
        const auto again = schedule_.wait_ended(trim_schedule::clock::now());
        if (!again) break;
        delay = *again;
      }
      malloc_trim(0);
    }
  }

  trim_schedule schedule_{std::chrono::seconds(1), std::chrono::seconds(10)};
  std::mutex mutex_;
  std::condition_variable wake_;
  bool armed_ = false, started_ = false;
};

}  // namespace

void note_handshake_ended() {
  // Never destroyed: its thread runs until the process ends.
  static auto* const trimmer = new trim_thread;
  trimmer->handshake_ended();
}

}  // namespace ringcast
