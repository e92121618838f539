#include "client.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace ringcast::load {

client::client(worker_context& ctx, client_identity id)
    : ctx_(ctx),
      id_(id),
      state_(ctx.result, ctx.live, ctx.opts.max_retry),
      retry_timer_(ctx.io),
      jitter_(static_cast<std::uint32_t>(id.index + 1)) {}

void client::start() {
  open();
}

void client::churn() {
  if (stopped_ || !connected_) return;
  ++ctx_.result.churned;
  lost_connection();
  open();
}

void client::stop() {
  stopped_ = true;
  retry_timer_.cancel();
  lost_connection();
}

std::string client::path(std::string_view endpoint) const {
  auto p = fmt::format("{}?user=load-{}&sid=s{}", endpoint, id_.index, id_.index);
  if (const auto since = state_.since()) p += fmt::format("&since={}", *since);
  if (!ctx_.opts.channel.empty()) p += fmt::format("&channels={}", ctx_.opts.channel);
  return p;
}

void client::connection_started() {
  connect_started_ = std::chrono::steady_clock::now();
  state_.connection_started(realtime_us());
}

void client::established() {
  if (connected_) return;
  connected_ = true;
  ++ctx_.live.connected;
  ++ctx_.result.connects;
  if (ever_connected_) ++ctx_.result.reconnects;
  ever_connected_ = true;
  const auto took = std::chrono::steady_clock::now() - connect_started_;
  ctx_.result.connect_us.record(static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(took).count()));
}

void client::upgraded() {
  const auto took = std::chrono::steady_clock::now() - connect_started_;
  ctx_.result.upgrade_us.record(static_cast<std::uint64_t>(
      std::chrono::duration_cast<std::chrono::microseconds>(took).count()));
}

reaction client::envelope(std::string_view text, std::int64_t arrived_us) {
  return state_.on_envelope(text, arrived_us);
}

void client::nchan_connected() {
  state_.nchan_connected(std::chrono::steady_clock::now() < ctx_.publishing_from);
  established();
}

void client::raw_message(std::string_view text, std::int64_t arrived_us) {
  state_.on_raw_message(text, arrived_us);
}

void client::react(const reaction& r) {
  switch (r.what) {
    case reaction::kind::keep:
      return;
    case reaction::kind::reconnect:
      lost_connection();
      reconnect_after(r.delay);
      return;
    case reaction::kind::give_up:
      lost_connection();
      stopped_ = true;
      return;
  }
}

void client::failed(const std::string& kind) {
  if (stopped_) return;
  ctx_.count_error(kind);
  lost_connection();
  // Jittered back-off so that a server restart is not answered by every client at once.
  std::uniform_int_distribution<int> spread(0, 500);
  reconnect_after(std::min(ctx_.opts.max_retry, std::chrono::milliseconds(1000 + spread(jitter_))));
}

void client::reconnect_after(std::chrono::milliseconds delay) {
  if (stopped_) return;
  retry_timer_.expires_after(delay);
  retry_timer_.async_wait([this](boost::system::error_code ec) {
    if (!ec && !stopped_) open();
  });
}

void client::lost_connection() {
  drop();
  if (connected_) --ctx_.live.connected;
  connected_ = false;
}

}  // namespace ringcast::load
