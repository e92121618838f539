#include "net/event_loop.hpp"

#include "net/http_connection.hpp"
#include "net/poll_connection.hpp"
#include "net/stream_connection.hpp"
#include "net/thread_heap.hpp"

namespace ringcast {

namespace {

// About 25,000 idle connections' worth of a loop's heap (thread_heap.hpp); address space only.
constexpr std::size_t loop_heap_reserve = 32 * 1024 * 1024;

}  // namespace

event_loop::event_loop(shared_by_loops& shared, const config& cfg, unsigned index,
                       const loop_clock& clock, time_point epoch, std::uint64_t floor_id)
    : node_(shared),
      index_(index),
      settings_(connection_settings::from(cfg)),
      timers_(clock, epoch, cfg.tick, cfg.wheel_slots, [this](time_point when) { wake_at(when); }),
      hub_(cfg, timers_, stats_, floor_id),
      work_(ctx_.get_executor()),
      timer_(ctx_) {}

event_loop::~event_loop() {
  if (hooks_) hub_.unobserve(hooks_->events());
}

void event_loop::start_hooks(const hook_settings& settings) {
  hooks_ = std::make_unique<loop_hooks>(ctx_, timers_, settings, index_);
  hub_.observe(hooks_->events());
}

void event_loop::start_connect_hook(const connect_hook_settings& settings) {
  gate_ = std::make_unique<connect_gate>(ctx_, timers_, settings);
}

void event_loop::start() {
  thread_ = std::thread([this] {
    reserve_thread_heap(loop_heap_reserve);
    ctx_.run();
  });
}

void event_loop::join() {
  work_.reset();
  if (thread_.joinable()) thread_.join();
}

void event_loop::drain_idle_connections() {
  http_connection::drain_idle(connections_);
}

void event_loop::begin_handover() {
  http_connection::begin_handover(connections_);
}

std::size_t event_loop::requests_in_flight() {
  return http_connection::requests_in_flight(connections_) +
         poll_connection::replies_in_flight(connections_);
}

void event_loop::end_handover() {
  http_connection::end_handover(connections_);
}

std::size_t event_loop::capture_http(std::vector<moved_http>& out) {
  http_connection::capture_loop(connections_, out);
  return poll_connection::capture_loop(connections_, out);
}

std::size_t event_loop::capture_streams(std::vector<moved_stream>& out, queued_messages& messages) {
  return stream_connection::capture_loop(connections_, out, messages);
}

void event_loop::wake_at(time_point when) {
  timer_.expires_at(when);  // cancels the wait for a later instant
  timer_.async_wait([this](boost::system::error_code ec) {
    if (!ec) on_wake();
  });
}

void event_loop::on_wake() {
  const time_point next = timers_.advance();
  if (next != time_point::max()) wake_at(next);
}

}  // namespace ringcast
