#include "hook_outbox.hpp"

#include <algorithm>

namespace ringcast {

hook_outbox::hook_outbox(hub& timers, hook_sender& sender, limits lim, retry_backoff backoff,
                         clock_fn now)
    : timers_(timers), sender_(sender), limits_(lim), backoff_(backoff), now_(std::move(now)) {}

hook_outbox::~hook_outbox() {
  timers_.disarm(*this);
  if (state_ == state::sending) sender_.abort();
}

hook_counters hook_outbox::counters() const {
  hook_counters c = counters_;
  c.queued = queue_.size();
  return c;
}

void hook_outbox::push(std::string event_json) {
  const time_point now = now_();
  queue_.push_back(std::move(event_json));
  queued_at_.push_back(now);
  if (queue_.size() > limits_.queue) {
    queue_.pop_front();
    queued_at_.pop_front();
    ++counters_.dropped;
    if (in_flight_ > 0) --in_flight_;
  }
  if (state_ != state::idle) return;
  if (flushing_ || queue_.size() >= limits_.batch) {
    send(now);
  } else if (!armed()) {
    timers_.arm(*this, queued_at_.front() + limits_.flush);
  }
}

void hook_outbox::flush_all() {
  flushing_ = true;
  if (state_ == state::sending || queue_.empty()) return;
  send(now_());
}

void hook_outbox::send(time_point now) {
  in_flight_ = std::min(limits_.batch, queue_.size());
  std::string body = R"({"events":[)";
  for (std::size_t i = 0; i < in_flight_; ++i) {
    if (i > 0) body += ',';
    body += queue_[i];
  }
  body += "]}";
  if (retrying_) ++counters_.retried;
  state_ = state::sending;
  timers_.arm(*this, now + limits_.timeout);
  sender_.post(std::move(body), [this, alive = std::weak_ptr<int>(alive_)](bool accepted) {
    if (!alive.expired()) on_answer(accepted);
  });
}

void hook_outbox::on_answer(bool accepted) {
  if (state_ != state::sending) return;  // timed out before the answer came
  const time_point now = now_();
  if (accepted) return after_success(now);
  ++counters_.failed;
  counters_.backend_up = false;
  in_flight_ = 0;
  retrying_ = true;
  state_ = state::backing_off;
  timers_.arm(*this, flushing_ ? now : now + backoff_.next());
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
  timers_.disarm(*this);
  if (queue_.empty()) return;
  const time_point due = queued_at_.front() + limits_.flush;
  if (flushing_ || queue_.size() >= limits_.batch || due <= now) {
    send(now);
  } else {
    timers_.arm(*this, due);
  }
}

void hook_outbox::on_timer(time_point now) {
  switch (state_) {
    case state::idle:  // the flush deadline
      if (!queue_.empty()) send(now);
      return;
    case state::sending:  // no answer in time: a failure like any other
      sender_.abort();
      on_answer(false);
      return;
    case state::backing_off:
      if (!queue_.empty()) {
        send(now);
      } else {
        state_ = state::idle;  // everything in the failed batch was dropped meanwhile
        retrying_ = false;
      }
      return;
  }
}

}  // namespace ringcast
