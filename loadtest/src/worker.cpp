#include "worker.hpp"

#include <sched.h>

#include <algorithm>
#include <cmath>

#include "poll_client.hpp"
#include "sse_client.hpp"
#include "ws_client.hpp"

namespace ringcast::load {

namespace asio = boost::asio;

worker::worker(asio::io_context& io, const options& opts, connector net, std::size_t begin,
               std::size_t end, source_slice sources, double rate)
    : ctx_{io, opts, std::move(net), {}, {}},
      rate_(rate),
      ramp_timer_(io),
      churn_timer_(io),
      yield_timer_(io) {
  const auto kinds = assign_transports(opts.mix, end);
  // Idle choice counts ws clients globally so that every worker agrees on who is idle.
  std::size_t ws_ordinal = static_cast<std::size_t>(
      std::count(kinds.begin(), kinds.begin() + static_cast<std::ptrdiff_t>(begin), transport::ws));
  for (std::size_t i = begin; i < end; ++i) {
    const auto& t = opts.targets[i % opts.targets.size()];
    client_identity id;
    id.index = i;
    id.kind = kinds[i];
    id.idle = kinds[i] == transport::ws && is_idle(ws_ordinal++, opts.idle_pct);
    id.source = sources.pick(i - begin);
    id.server = {asio::ip::make_address_v4(t.host), t.port};
    switch (id.kind) {
      case transport::ws:
        clients_.push_back(std::make_unique<ws_client>(ctx_, id));
        break;
      case transport::sse:
        clients_.push_back(std::make_unique<sse_client>(ctx_, id));
        break;
      case transport::poll:
        clients_.push_back(std::make_unique<poll_client>(ctx_, id));
        break;
    }
  }
  ctx_.result.clients = clients_.size();
  // On well before the first connect: the coordinator says go once every worker is up.
  if (opts.kernel_arrival) stamping_.emplace();
}

void worker::start() {
  ramp_start_ = std::chrono::steady_clock::now();
  // The coordinator starts publishing at its own start + warmup, a little before or after this
  // worker's; the margin keeps a connection made in between from expecting the first message.
  ctx_.publishing_from = ramp_start_ + ctx_.opts.warmup - std::chrono::milliseconds(200);
  ramp();
  if (ctx_.opts.churn_pct > 0) churn_tick();
  if (ctx_.opts.kernel_arrival) yield_cpu_when_publishing();
}

// The clients then read when the server leaves a core idle, as clients on other machines would
// not compete with it; their arrival times are the kernel's (stamped_stream.hpp), so reading late
// does not make a delivery late. The connects before are timed at normal priority.
void worker::yield_cpu_when_publishing() {
  yield_timer_.expires_at(ctx_.publishing_from);
  yield_timer_.async_wait([this](boost::system::error_code ec) {
    if (ec) return;
    const sched_param idle{};
    if (sched_setscheduler(0, SCHED_IDLE, &idle) != 0) ctx_.count_error("idle_priority");
  });
}

void worker::ramp() {
  const std::chrono::duration<double> elapsed = std::chrono::steady_clock::now() - ramp_start_;
  const auto due = std::min(clients_.size(), static_cast<std::size_t>(elapsed.count() * rate_) + 1);
  while (started_ < due)
    clients_[started_++]->start();
  if (started_ == clients_.size()) return;
  // Wake often enough for the rate but no more than every millisecond.
  const auto step = std::max(1.0, 1000.0 / rate_);
  ramp_timer_.expires_after(std::chrono::microseconds(static_cast<std::int64_t>(step * 1000)));
  ramp_timer_.async_wait([this](boost::system::error_code ec) {
    if (!ec) ramp();
  });
}

void worker::churn_tick() {
  churn_timer_.expires_after(std::chrono::seconds(1));
  churn_timer_.async_wait([this](boost::system::error_code ec) {
    if (ec) return;
    churn_owed_ += ctx_.opts.churn_pct / 100.0 * static_cast<double>(clients_.size());
    const auto n = static_cast<std::size_t>(std::floor(churn_owed_));
    churn_owed_ -= static_cast<double>(n);
    std::uniform_int_distribution<std::size_t> pick(0, clients_.size() - 1);
    for (std::size_t k = 0; k < n; ++k)
      clients_[pick(random_)]->churn();
    churn_tick();
  });
}

void worker::stop() {
  ramp_timer_.cancel();
  churn_timer_.cancel();
  yield_timer_.cancel();
  for (auto& c : clients_)
    c->stop();
}

std::uint64_t worker::connected() const {
  return ctx_.live.connected;
}

progress worker::take_progress() {
  auto p = ctx_.live;
  ctx_.live.interval_latency_us = {};
  return p;
}

client_result worker::finish(std::span<const std::uint64_t> published) {
  auto r = ctx_.result;
  for (const auto& c : clients_) {
    const auto n = c->state().ids().count(published);
    r.expected += n.expected;
    r.received += n.received;
    r.lost += n.lost;
    r.duplicates += c->state().ids().duplicates();
    c->add_wire(r);
  }
  return r;
}

}  // namespace ringcast::load
