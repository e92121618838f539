// The events of one event loop on their way to the backend: a bounded queue, sent in batches,
// one batch in flight at a time, and a batch that fails kept and retried from the loop's timing
// wheel with back-off (the failback of Dubbo's FailbackRegistry) until the backend accepts it.
//
//   idle      -> a batch goes out when --hook-batch events wait, or when the oldest has waited
//                --hook-flush (the outbox's one wheel node is that flush deadline)
//   sending   -> 2xx: the batch leaves the queue; the next goes out at once if one is ready.
//                Anything else, or no answer within --hook-timeout (the node is that deadline):
//                back to the queue's head, in order, and
//   backing_off -> the node is the retry time (retry_backoff); then the head of the queue, rebuilt
//                up to --hook-batch events, is sent again.
// Beyond --hook-queue events the oldest is dropped (and counted), in flight or not: an event
// dropped from a batch in flight may still arrive. Nothing here waits: push() only queues, so a
// dead backend costs memory up to the bound and nothing else.
//
// No sockets: a hook_sender does the POST, and time comes from the loop's timers, so the whole
// schedule is unit-tested on a simulated clock (tests/server/hooks/hooks_test.cpp).
#pragma once

#include <chrono>
#include <deque>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "core/loop_timers.hpp"
#include "hooks/retry_backoff.hpp"

namespace ringcast {

class hook_sender {
 public:
  // POSTs `body`; done(true) for a 2xx answer, done(false) for anything else. `done` runs later
  // on the same loop, never inside post(), and not at all after abort().
  virtual void post(std::string body, std::function<void(bool accepted)> done) = 0;
  virtual void abort() = 0;  // gives up the POST in flight, if any

 protected:
  ~hook_sender() = default;
};

// Events kept elsewhere until the next batch is built (the coalesced channel changes of
// hook_events.hpp), so that a change undone before then is never sent.
class hook_pending {
 public:
  // Appends the pending events to `out`, and forgets them.
  virtual void take_pending(std::vector<std::string>& out) = 0;

 protected:
  ~hook_pending() = default;
};

struct hook_counters {
  std::uint64_t sent = 0;     // events the backend accepted
  std::uint64_t batches = 0;  // POSTs it accepted
  std::uint64_t retried = 0;  // POSTs that repeated a failed one
  std::uint64_t failed = 0;   // POSTs answered non-2xx or not in time
  std::uint64_t dropped = 0;  // events dropped to keep the queue bound
  std::uint64_t queued = 0;   // events waiting, the batch in flight included
  bool backend_up = true;     // the last POST was accepted (true before the first)
};

class hook_outbox final : private loop_timer {
 public:
  struct limits {
    std::size_t batch = 100;
    std::chrono::milliseconds flush{250};
    std::chrono::milliseconds timeout{2'000};
    std::size_t queue = 100'000;
  };
  // `timers`: the loop's, holding the outbox's node and telling the time.
  hook_outbox(loop_timers& timers, hook_sender& sender, limits lim, retry_backoff backoff);
  ~hook_outbox();

  // Queues one event (a JSON object). Never waits, never sends inside the call's caller's work
  // more than starting a POST.
  void push(std::string event_json);
  // Drain: from now on a batch goes out as soon as the previous one is answered, without
  // waiting for --hook-flush or the back-off.
  void flush_all();
  // Where pending events come from (null: none). The source must call pending_added() when it
  // begins to hold some: a batch is then due within --hook-flush, as for a queued event.
  void set_pending_source(hook_pending* source) { pending_source_ = source; }
  void pending_added();
  bool empty() const { return queue_.empty() && !pending_since_; }
  hook_counters counters() const;
  const std::deque<std::string>& queue() const { return queue_; }

 private:
  enum class state { idle, sending, backing_off };
  void on_timer(time_point now) override;
  void send(time_point now);
  void on_answer(bool accepted);
  void after_success(time_point now);
  void enqueue(std::string event_json, time_point now);  // bounded: the oldest may be dropped
  void collect_pending(time_point now);
  // When the oldest waiting event (queued or pending) came; none if nothing waits.
  std::optional<time_point> oldest() const;

  hook_sender& sender_;
  limits limits_;
  retry_backoff backoff_;
  std::deque<std::string> queue_;
  std::deque<time_point> queued_at_;  // beside queue_: when each event was pushed
  std::size_t in_flight_ = 0;         // events at the head of queue_ in the POST under way
  state state_ = state::idle;
  bool retrying_ = false;  // the next POST repeats a failed one
  bool flushing_ = false;  // draining: no flush wait, no back-off
  hook_counters counters_;
  std::shared_ptr<int> alive_ = std::make_shared<int>(0);  // answers after destruction are dropped
  hook_pending* pending_source_ = nullptr;
  std::optional<time_point> pending_since_;  // the source holds events since then
};

}  // namespace ringcast
