// What watches the sessions of every loop for the server: presence (GET /admin/presence: this
// node's counts, or with --redis every live node's summed in Redis) and the event hooks.
#include <boost/asio/post.hpp>

#include <random>

#include "log.hpp"
#include "redis_bus.hpp"
#include "redis_presence.hpp"
#include "server.hpp"

namespace ringcast {

namespace asio = boost::asio;

void server::start_presence() {
  for (auto& loop : loops_)
    loop->sessions().observe(presence_);
}

void server::start_redis_presence() {
  redis_presence_ =
      std::make_unique<redis_presence>(bus_loop().io(), *bus_, presence_, cfg_.session_ttl);
  for (auto& loop : loops_)
    loop->sessions().observe(*redis_presence_);
  asio::post(bus_loop().io(), [this] { redis_presence_->start(); });
}

void server::start_hooks() {
  std::random_device random;
  hook_settings_.url = *cfg_.hook_url;
  hook_settings_.secret = cfg_.hook_secret;
  hook_settings_.limits = {.batch = cfg_.hook_batch,
                           .flush = cfg_.hook_flush,
                           .timeout = cfg_.hook_timeout,
                           .queue = cfg_.hook_queue};
  hook_settings_.tls = credentials_.hook_tls;
  hook_settings_.node = fmt::format("{:08x}{:08x}", random(), random());
  for (auto& loop : loops_)
    loop->start_hooks(hook_settings_);
  log_info("event hooks to {} (node {})", cfg_.hook_url->text, hook_settings_.node);
}

void server::start_connect_hook() {
  connect_hook_cap_ = std::make_unique<concurrency_cap>(cfg_.connect_hook_concurrency);
  connect_hook_settings_ = {.url = *cfg_.connect_hook,
                            .timeout = cfg_.hook_timeout,
                            .tls = credentials_.hook_tls,
                            .secret = cfg_.hook_secret,
                            .cap = connect_hook_cap_.get(),
                            .max_idle = cfg_.connect_hook_concurrency};
  for (auto& loop : loops_)
    loop->start_connect_hook(connect_hook_settings_);
  log_info("connect hook: {} decides who is admitted (fallback: {}, at most {} in flight{})",
           cfg_.connect_hook->text, cfg_.connect_hook_fallback_allow ? "allow" : "deny",
           cfg_.connect_hook_concurrency, cfg_.hook_secret.empty() ? ", unsigned" : ", signed");
}

// Before the loops go: a connection they still hold may end and report to it.
void server::stop_redis_presence() {
  if (!redis_presence_) return;
  for (auto& loop : loops_)
    loop->sessions().unobserve(*redis_presence_);
  redis_presence_.reset();
}

void server::presence(const presence_query& q, boost::asio::any_io_executor origin,
                      std::function<void(std::optional<presence_figures>)> done) {
  if (redis_presence_) {
    asio::post(bus_loop().io(), [this, q, origin, done = std::move(done)]() mutable {
      redis_presence_->query(
          q, [origin, done = std::move(done)](std::optional<presence_figures> f) mutable {
            asio::post(origin, [f = std::move(f), done = std::move(done)] { done(f); });
          });
    });
    return;
  }
  presence_figures f;
  switch (q.what) {
    case presence_query::kind::channel: {
      const auto c = presence_.channel(q.name);
      f.users = c.users;
      f.sessions = c.sessions;
      break;
    }
    case presence_query::kind::user:
      f.sessions = presence_.user_sessions(q.name);
      break;
    case presence_query::kind::top:
      f.top = presence_.top_channels(q.top);
      break;
  }
  done(std::move(f));
}

}  // namespace ringcast
