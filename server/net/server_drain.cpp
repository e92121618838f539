// Draining on SIGTERM: stop accepting, tell every session to go, wait for the connections to
// end and the hook events to be delivered, never longer than --drain.
#include <boost/asio/post.hpp>

#include <algorithm>

#include "net/listener.hpp"
#include "net/server.hpp"

namespace ringcast {

namespace asio = boost::asio;

void server::begin_drain() {
  draining_.store(true, std::memory_order_relaxed);
  listener_->close();
  every_.invoke_on_all([](event_loop& l) {
    l.sessions().drain(l.now());
    l.drain_idle_connections();
    if (l.hooks()) l.hooks()->flush_all();
  });
  if (pusher_webhooks_) pusher_webhooks_->flush_all();  // on loop 0, where this runs
  drain_timer_ = std::make_unique<asio::steady_timer>(loops_[0]->io());
  watch_drain(clock_.now() + cfg_.drain);
}

// Connections end as soon as their reconnect/shutdown notice is written: stop when they have all
// gone and every hook event is delivered, and never later than the drain window.
void server::watch_drain(std::chrono::steady_clock::time_point deadline) {
  if (clock_.now() >= deadline) {
    drained_.set_value();
    return;
  }
  if (connections_.open() > 0) return watch_drain_later(deadline);
  // The last sessions' changes go through Redis first (with --redis), then to the webhooks.
  if (!pusher_channels_.settled()) return watch_drain_later(deadline);
  if (pusher_webhooks_ && !pusher_webhooks_->empty()) return watch_drain_later(deadline);
  if (!cfg_.hook_url) {
    drained_.set_value();
    return;
  }
  every_.map_reduce<char>(
      [](event_loop& loop) { return static_cast<char>(loop.hooks()->empty()); },
      loops_[0]->io().get_executor(),
      [this, deadline](std::vector<char> empty) {
        if (std::all_of(empty.begin(), empty.end(), [](char e) { return e != 0; })) {
          drained_.set_value();
        } else {
          watch_drain_later(deadline);
        }
      });
}

void server::watch_drain_later(std::chrono::steady_clock::time_point deadline) {
  drain_timer_->expires_after(std::chrono::milliseconds(20));
  drain_timer_->async_wait([this, deadline](boost::system::error_code) { watch_drain(deadline); });
}

}  // namespace ringcast
