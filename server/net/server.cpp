#include "server.hpp"

#include <boost/asio/post.hpp>
#include <boost/asio/signal_set.hpp>

#include <algorithm>

#include "listener.hpp"
#include "log.hpp"
#include "loop_gather.hpp"
#include "tls_context.hpp"

namespace ringcast {

namespace asio = boost::asio;

namespace {

// Ids continue across restarts: a run starts from the Unix time in microseconds, so an id from
// an earlier run is always below this run's floor and a resume from it reports a gap.
std::uint64_t first_floor_id(const loop_clock& clock) {
  return static_cast<std::uint64_t>(clock.unix_us());
}

}  // namespace

server::server(config cfg, node_credentials credentials)
    : cfg_(std::move(cfg)),
      credentials_(std::move(credentials)),
      connections_(cfg_.max_connections),
      addresses_({cfg_.max_connections_per_ip, cfg_.connect_rate_per_ip, cfg_.ipv6_prefix}),
      sessions_(cfg_.session_limit()),
      last_id_(first_floor_id(clock_)) {
  const auto epoch = clock_.now();
  for (unsigned i = 0; i < cfg_.threads; ++i) {
    loops_.push_back(std::make_unique<event_loop>(*this, cfg_, i, clock_, epoch, last_id_));
    loops_.back()->sessions().share_budget(sessions_);
    loops_.back()->sessions().displace_elsewhere_with([this, i] { displace_idle_session(i, 1); });
  }
  backplane_ = make_backplane();
  promotions_ = std::make_unique<promotions>(home(), *backplane_);
  start_presence();
  if (cfg_.hook_url) start_hooks();
  if (cfg_.connect_hook) start_connect_hook();
}

// Connections still pending in the loops hold connection slots (counted here) and the listener
// and the backplane live on loop 0: take them down before the loops, the loops before the rest.
server::~server() {
  listener_.reset();
  stop_presence();
  promotions_.reset();
  backplane_.reset();
  drain_timer_.reset();
  loops_.clear();
}

// Asks the loops after `from`, in turn and each on its own thread, to drop its longest-idle
// session, until one had one: `from`'s sessions are all live and the node is full (hub::make_room).
void server::displace_idle_session(unsigned from, std::size_t asked) {
  if (asked >= loops_.size()) return;
  const unsigned next = (from + 1) % static_cast<unsigned>(loops_.size());
  asio::post(loops_[next]->io(), [this, next, asked] {
    if (!loops_[next]->sessions().displace_longest_idle()) displace_idle_session(next, asked + 1);
  });
}

connection_context& server::home_loop(std::string_view user, std::string_view sid) {
  return loop_for(user, sid);
}

// By the user alone: all of a user's sessions live in one hub, which bounds them
// (--max-sessions-per-user) without asking the other loops.
event_loop& server::loop_for(std::string_view user, std::string_view) {
  return *loops_[std::hash<std::string_view>{}(user) % loops_.size()];
}

void server::publish(const publish_request& req, boost::asio::any_io_executor origin,
                     std::function<void(std::optional<publish_receipt>)> done) {
  if (req.sticky) {
    // Refused before it gets an id (with --redis: as far as this node has read the stream).
    std::lock_guard lock(sequencer_);
    if (!sticky_quota_.has_room(clock_.unix_ms())) {
      ++sticky_refused_;
      asio::post(origin, [done = std::move(done)] {
        done(publish_receipt{.id = 0, .recipients = 0, .too_many = true});
      });
      return;
    }
  }
  backplane_->publish(
      req, std::move(origin), [done = std::move(done)](std::optional<backplane::published> p) {
        done(p ? std::optional<publish_receipt>({p->id, p->recipients}) : std::nullopt);
      });
}

void server::kick(std::string user, boost::asio::any_io_executor origin,
                  std::function<void(std::size_t)> done) {
  backplane_->announce_kick(user);
  for_each_loop<std::size_t>(
      loops_,
      [user = std::move(user)](event_loop& loop) { return loop.sessions().kick(user, loop.now()); },
      std::move(origin), summed(std::move(done)));
}

void server::snapshot(boost::asio::any_io_executor origin,
                      std::function<void(server_snapshot)> done) {
  server_snapshot base;
  {
    std::lock_guard lock(sequencer_);
    base.published = published_;
    base.last_id = last_id_;
    base.sticky_refused = sticky_refused_;
  }
  base.tick = cfg_.tick;
  base.address = listener_ ? listener_->address() : std::string{};
  const backplane::status shared = backplane_->state();
  base.node_id = shared.node_id;
  base.scheduled = promotions_->waiting();
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
  for_each_loop<loop_snapshot>(
      loops_,
      [](event_loop& loop) {
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
        return s;
      },
      std::move(origin),
      [base, done = std::move(done)](std::vector<loop_snapshot> loops) mutable {
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
  // SIGHUP, which would otherwise end the process, re-reads the certificate (renewals).
  asio::signal_set hangup(loops_[0]->io(), SIGHUP);
  std::function<void()> await_hangup = [&] {
    hangup.async_wait([&](boost::system::error_code ec, int) {
      if (ec) return;
      reload_tls();
      await_hangup();
    });
  };
  await_hangup();
  asio::post(home().io(), [this] { backplane_->start(); });
  std::vector<connection_context*> loops;
  for (auto& loop : loops_)
    loops.push_back(loop.get());
  listener_ = std::make_unique<listener>(std::move(loops), connections_);
  if (!open_listener()) return 2;  // like every other start-up error
  asio::signal_set upgrades(loops_[0]->io(), SIGUSR2);
  std::function<void()> await_upgrade = [&] {
    upgrades.async_wait([&](boost::system::error_code ec, int) {
      if (ec) return;
      on_upgrade_signal();
      await_upgrade();
    });
  };
  await_upgrade();
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

std::shared_ptr<const tls_context> server::tls() const {
  std::lock_guard lock(tls_mutex_);
  return credentials_.tls;
}

void server::reload_tls() {
  if (!tls()) {
    // With --config, main.cpp's reload of the settings says what SIGHUP did.
    if (cfg_.config_file.empty()) log_info("SIGHUP: nothing to reload (no --tls-cert or --config)");
    return;
  }
  auto fresh = tls_context::for_server(cfg_.tls_cert_file, cfg_.tls_key_file);
  if (!fresh) {
    log_warn("SIGHUP: keeping the current certificate: {}", fresh.error);
    return;
  }
  {
    std::lock_guard lock(tls_mutex_);
    credentials_.tls = std::make_shared<const tls_context>(std::move(*fresh.value));
  }
  log_info("SIGHUP: certificate reloaded from {}", cfg_.tls_cert_file);
}

void server::claim_session(const std::string& user, const std::string& sid,
                           connection_context& origin, std::function<void(bool)> done) {
  backplane_->claim_session(session_key(user, sid), origin.io().get_executor(), std::move(done));
}

void server::apply_live(const config& settings) {
  set_log_level(settings.log);
  {
    std::lock_guard lock(upgrade_.mutex);
    upgrade_.binary = settings.upgrade_binary;
  }
  connections_.set_max(settings.max_connections);
  addresses_.configure(
      {settings.max_connections_per_ip, settings.connect_rate_per_ip, settings.ipv6_prefix});
  for (auto& loop : loops_)
    asio::post(loop->io(), [l = loop.get(), settings] { l->apply_live(settings); });
}

}  // namespace ringcast
