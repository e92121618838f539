// Gives the heap that TLS handshakes leave behind back to the kernel (docs/performance.md, "TLS:
// what an idle connection holds"). A handshake allocates about 50 KB for a few milliseconds
// (OpenSSL's read and write record buffers, the handshake messages) between the long-lived
// objects of the connections made at the same time; after a burst of handshakes half of the heap
// can be free yet resident (at 5,000 connections made at 2,000/s on a busy machine: 31 KB of heap
// per connection, 16 KB of it in use). malloc_trim(0) returns the free pages: once handshakes
// have paused for a second, and every ten seconds while they go on.
#pragma once

#include <chrono>
#include <mutex>
#include <optional>

namespace ringcast {

// When to trim, on a clock given by the caller (tested on a simulated one). Thread-safe: every
// event loop reports its handshakes to the one schedule of the process.
class trim_schedule {
 public:
  using clock = std::chrono::steady_clock;

  trim_schedule(clock::duration quiet, clock::duration longest_wait)
      : quiet_(quiet), longest_wait_(longest_wait) {}

  // A handshake ended (either way) at `now`. True when the caller must start the wait (none is
  // running): it calls wait_ended() `quiet()` later.
  bool handshake_ended(clock::time_point now);
  // The wait ended at `now`: nullopt means trim now (the wait is over), else wait that long and
  // call again.
  std::optional<clock::duration> wait_ended(clock::time_point now);

  clock::duration quiet() const { return quiet_; }

 private:
  const clock::duration quiet_, longest_wait_;
  std::mutex mutex_;
  bool waiting_ = false;
  clock::time_point first_untrimmed_{}, last_handshake_{};
};

// The process's schedule (1 s quiet, 10 s at most), called when a handshake ends. The waits and
// the trim run on a thread of their own, started at the first handshake: a timer on an event
// loop would keep its io_context's run() from returning (a drain, an upgrade, the load tool's
// admin calls), and the trim would stall the loop (22 ms at its worst, measured).
void note_handshake_ended();

}  // namespace ringcast
