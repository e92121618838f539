#include "hooks/hook_outbox.hpp"

#include <algorithm>

namespace ringcast {

hook_outbox::hook_outbox(loop_timers& timers, hook_sender& sender, limits lim,
                         retry_backoff backoff)
    : loop_timer(timers), sender_(sender), limits_(lim), backoff_(backoff) {}

hook_outbox::~hook_outbox() {
  if (state_ == state::sending) sender_.abort();
}

hook_counters hook_outbox::counters() const {
  hook_counters c = counters_;
  c.queued = queue_.size();
  return c;
}

void hook_outbox::enqueue(std::string event_json, time_point now) {
  queue_.push_back(std::move(event_json));
  queued_at_.push_back(now);
  if (queue_.size() > limits_.queue) {
    queue_.pop_front();
    queued_at_.pop_front();
    ++counters_.dropped;
    if (in_flight_ > 0) --in_flight_;
  }
}

void hook_outbox::push(std::string event_json) {
  const time_point now = timers().now();
  enqueue(std::move(event_json), now);
  if (state_ != state::idle) return;
  if (flushing_ || queue_.size() >= limits_.batch) {
    send(now);
  } else if (!armed()) {
    arm_at(*oldest() + limits_.flush);
  }
}

void hook_outbox::pending_added() {
  const time_point now = timers().now();
  if (!pending_since_) pending_since_ = now;
  if (state_ != state::idle) return;
  if (flushing_) {
    send(now);
  } else if (!armed()) {
    arm_at(*oldest() + limits_.flush);
  }
}

std::optional<hook_outbox::time_point> hook_outbox::oldest() const {
  if (queue_.empty()) return pending_since_;
  if (!pending_since_) return queued_at_.front();
  return std::min(queued_at_.front(), *pending_since_);
}

// The pending events join the queue as the batch is built, behind whatever was queued before.
void hook_outbox::collect_pending(time_point now) {
  if (!pending_since_ || !pending_source_) return;
  std::vector<std::string> events;
  pending_source_->take_pending(events);
  pending_since_.reset();
  for (auto& e : events)
    enqueue(std::move(e), now);
}

void hook_outbox::flush_all() {
  flushing_ = true;
  if (state_ == state::sending || empty()) return;
  send(timers().now());
}

void hook_outbox::send(time_point now) {
  collect_pending(now);
  if (queue_.empty()) {  // what was pending came to nothing (every change undone)
    state_ = state::idle;
    retrying_ = false;
    disarm();
    return;
  }
  in_flight_ = std::min(limits_.batch, queue_.size());
  std::string body = R"({"events":[)";
  for (std::size_t i = 0; i < in_flight_; ++i) {
    if (i > 0) body += ',';
    body += queue_[i];
  }
  body += "]}";
  if (retrying_) ++counters_.retried;
  state_ = state::sending;
  arm_at(now + limits_.timeout);
  sender_.post(std::move(body), [this, alive = std::weak_ptr<int>(alive_)](bool accepted) {
    if (!alive.expired()) on_answer(accepted);
  });
}

void hook_outbox::on_answer(bool accepted) {
  if (state_ != state::sending) return;  // timed out before the answer came
  const time_point now = timers().now();
  if (accepted) return after_success(now);
  ++counters_.failed;
  counters_.backend_up = false;
  in_flight_ = 0;
  retrying_ = true;
  state_ = state::backing_off;
  arm_at(flushing_ ? now : now + backoff_.next());
}

void hook_outbox::after_success(time_point now) {
  queue_.erase(queue_.begin(), queue_.begin() + static_cast<std::ptrdiff_t>(in_flight_));
  queued_at_.erase(queued_at_.begin(),
                   queued_at_.begin() + static_cast<std::ptrdiff_t>(in_flight_));
  counters_.sent += in_flight_;
  ++counters_.batches;
  counters_.backend_up = true;
  in_flight_ = 0;
  retrying_ = false;
  backoff_.reset();
  state_ = state::idle;
  disarm();
  if (empty()) return;
  const time_point due = *oldest() + limits_.flush;
  if (flushing_ || queue_.size() >= limits_.batch || due <= now) {
    send(now);
  } else {
    arm_at(due);
  }
}

void hook_outbox::on_timer(time_point now) {
  switch (state_) {
    case state::idle:  // the flush deadline
      if (!empty()) send(now);
      return;
    case state::sending:  // no answer in time: a failure like any other
      sender_.abort();
      on_answer(false);
      return;
    case state::backing_off:
      if (!empty()) {
        send(now);
      } else {
        state_ = state::idle;  // everything in the failed batch was dropped meanwhile
        retrying_ = false;
      }
      return;
  }
}

}  // namespace ringcast
