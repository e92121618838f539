// What watches the sessions of every loop for the server: presence (GET /admin/presence: this
// node's counts, answered by the backplane: with --redis every live node's summed in Redis), the
// backplane itself, and the event hooks.
#include <boost/asio/post.hpp>

#include <random>

#include "log.hpp"
#include "server.hpp"

namespace ringcast {

namespace asio = boost::asio;

// The backplane after presence_: a shared one copies presence_'s counts when it rewrites them.
void server::start_presence() {
  for (auto& loop : loops_) {
    loop->sessions().observe(presence_);
    loop->sessions().observe(*backplane_);
    loop->sessions().on_detached([this](const session& s) { backplane_->release_session(s); });
  }
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

// Before the backplane goes: a connection the loops still hold may end and report to it.
void server::stop_presence() {
  for (auto& loop : loops_) {
    loop->sessions().unobserve(*backplane_);
    loop->sessions().on_detached({});
  }
}

void server::presence(const presence_query& q, boost::asio::any_io_executor origin,
                      std::function<void(std::optional<presence_figures>)> done) {
  asio::post(home().io(), [this, q, origin, done = std::move(done)]() mutable {
    backplane_->presence(
        q, [origin, done = std::move(done)](std::optional<presence_figures> f) mutable {
          asio::post(origin, [f = std::move(f), done = std::move(done)] { done(f); });
        });
  });
}

}  // namespace ringcast
