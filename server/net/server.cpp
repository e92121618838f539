// The process (server.hpp): its loops and the node on them, the listener, the signals.
#include "net/server.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>

#include <algorithm>

#include "core/log.hpp"
#include "net/listener.hpp"
#include "tls/tls_context.hpp"

namespace ringcast {

namespace asio = boost::asio;

namespace {

// Ids continue across restarts: a run starts from the Unix time in microseconds, so an id from
// an earlier run is always below this run's floor and a resume from it reports a gap.
std::uint64_t first_floor_id(const loop_clock& clock) {
  return static_cast<std::uint64_t>(clock.unix_us());
}

// Runs `f` each time a signal of `signals` arrives, until the set is cancelled or destroyed.
void each_time(asio::signal_set& signals, std::function<void()> f) {
  signals.async_wait([&signals, f = std::move(f)](boost::system::error_code ec, int) mutable {
    if (ec) return;
    f();
    each_time(signals, std::move(f));
  });
}

}  // namespace

server::server(config cfg, node_credentials credentials)
    : cfg_(std::move(cfg)),
      running_(cfg_),
      credentials_(std::move(credentials)),
      floor_id_(first_floor_id(clock_)),
      connections_(cfg_.max_connections),
      addresses_({cfg_.max_connections_per_ip, cfg_.connect_rate_per_ip, cfg_.ipv6_prefix}),
      sessions_(cfg_.session_limit()),
      homes_(cfg_.threads),
      loops_(make_loops()),
      every_([this] {
        std::vector<event_loop*> loops;
        for (auto& l : loops_)
          loops.push_back(l.get());
        return loops;
      }()),
      node_(make_node()) {
  if (cfg_.pusher()) {
    if (auto* cluster = node_->shared().share_pusher_channels(pusher_channels_))
      pusher_channels_.set_cluster(cluster);
    pusher_door_ = std::make_unique<pusher_door>(*pusher_app_, *node_, pusher_channels_);
    for (auto& loop : loops_)
      pusher_loops_.add_loop(*loop);
    pusher_channels_.set_member_events(&pusher_loops_);
    hear_other_nodes_pusher_terminates();
  }
  if (cfg_.hook_url) start_hooks();
  if (!cfg_.pusher_webhook_urls.empty()) start_pusher_webhooks();
  if (cfg_.connect_hook) start_connect_hook();
}

std::vector<std::unique_ptr<event_loop>> server::make_loops() {
  const auto epoch = clock_.now();
  std::vector<std::unique_ptr<event_loop>> loops;
  for (unsigned i = 0; i < cfg_.threads; ++i)
    loops.push_back(std::make_unique<event_loop>(*this, cfg_, i, clock_, epoch, floor_id_));
  return loops;
}

// Connections still pending in the loops hold connection slots (counted here) and the listener
// and the backplane live on loop 0: take them down before the loops, the loops before the rest.
server::~server() {
  listener_.reset();
  // The hubs' last sessions end with the loops: nobody is told any longer.
  pusher_channels_.set_cluster(nullptr);
  pusher_channels_.set_webhooks(nullptr);
  pusher_channels_.set_member_events(nullptr);
  node_.reset();
  drain_timer_.reset();
  pusher_webhooks_.reset();
  loops_.clear();
}

void server::snapshot(boost::asio::any_io_executor origin,
                      std::function<void(server_snapshot)> done) {
  server_snapshot base;
  const sequencer::figures ids = node_->figures();
  base.published = ids.published;
  base.last_id = ids.last_id;
  base.sticky_refused = ids.sticky_refused;
  base.tick = cfg_.tick;
  base.address = listener_ ? listener_->address() : std::string{};
  const backplane::status shared = node_->shared().state();
  base.node_id = shared.node_id;
  base.scheduled = node_->scheduled();
  base.open_connections = connections_.open();
  const auto addresses = addresses_.snapshot();
  base.refused_per_ip_connections = addresses.refused_connections;
  base.refused_per_ip_rate = addresses.refused_rate;
  base.client_addresses = addresses.addresses;
  base.clustered = shared.shared;
  base.hooks = cfg_.hook_url.has_value();
  base.connect_hook = cfg_.connect_hook.has_value();
  base.redis_up = shared.shared && shared.reachable;
  base.redis_reconnects = shared.reconnects;
  base.upgrades = upgrade_.count;
  base.upgrade_reconnects = upgrade_.reconnected;
  base.uptime = std::chrono::duration_cast<std::chrono::milliseconds>(clock_.now() - started_);
  every_.map_reduce<loop_snapshot>(
      [this](event_loop& loop) {
        loop.catch_up();
        const hub& h = loop.sessions();
        const timing_wheel& w = loop.timers().wheel();
        loop_snapshot s;
        s.stats = loop.stats();
        s.sessions = h.session_count();
        s.connected = h.connected_count();
        s.paced_in_flight = h.paced_in_flight();
        s.sticky_in_force = h.sticky_in_force();
        s.tick = w.current_tick();
        s.armed = w.size();
        s.wheel = w.stats();
        s.levels = w.level_count();
        auto l0 = w.occupancy(0), l1 = w.occupancy(1);
        s.level0.assign(l0.begin(), l0.end());
        s.level1.assign(l1.begin(), l1.end());
        if (loop.hooks()) s.hooks = loop.hooks()->counters();
        if (loop.connect_hook()) s.connect_hook = loop.connect_hook()->counters();
        if (pusher_webhooks_ && &loop == loops_[0].get())
          s.hooks_of_pusher = pusher_webhooks_->counters();
        return s;
      },
      std::move(origin),
      [base, done = std::move(done)](std::vector<loop_snapshot> loops) mutable {
        base.pusher_webhooks = loops[0].hooks_of_pusher;
        base.loops = std::move(loops);
        done(std::move(base));
      });
}

int server::run() {
  // Before anything can answer: a signal that arrives once /healthz works must drain, not kill.
  asio::signal_set signals(loops_[0]->io(), SIGINT, SIGTERM);
  signals.async_wait([this](boost::system::error_code ec, int signal) {
    if (ec) return;
    log_info("signal {}: draining for {} ms", signal, cfg_.drain.count());
    begin_drain();
  });
  // SIGHUP, which would otherwise end the process, reads the settings and the certificate again.
  asio::signal_set hangup(loops_[0]->io(), SIGHUP);
  each_time(hangup, [this] { reload(); });
  node_->start();
  std::vector<connection_context*> loops;
  for (auto& loop : loops_)
    loops.push_back(loop.get());
  listener_ = std::make_unique<listener>(std::move(loops), connections_);
  if (!open_listener()) return 2;  // like every other start-up error
  asio::signal_set upgrades(loops_[0]->io(), SIGUSR2);
  each_time(upgrades, [this] { on_upgrade_signal(); });
  for (auto& loop : loops_)
    loop->start();
  drained_.get_future().wait();
  if (upgrade_.worker.joinable()) upgrade_.worker.join();
  for (auto& loop : loops_)
    loop->stop();
  for (auto& loop : loops_)
    loop->join();
  log_info("drained, exiting");
  return 0;
}

}  // namespace ringcast
