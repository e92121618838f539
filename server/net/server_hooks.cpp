// The shop's backend on every loop (server/hooks): the event hooks (--hook-url) and the connect
// hook (--connect-hook).
#include <random>

#include "core/log.hpp"
#include "net/server.hpp"

namespace ringcast {

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

void server::start_pusher_webhooks() {
  pusher_webhooks_ = std::make_unique<pusher_webhooks>(
      loops_[0]->io(), loops_[0]->timers(),
      pusher::app{.id = cfg_.pusher_app_id, .key = cfg_.pusher_key, .secret = cfg_.pusher_secret},
      pusher_webhooks::settings{.urls = cfg_.pusher_webhook_urls,
                                .limits = {.batch = cfg_.hook_batch,
                                           .flush = cfg_.hook_flush,
                                           .timeout = cfg_.hook_timeout,
                                           .queue = cfg_.hook_queue},
                                .tls = credentials_.hook_tls});
  pusher_channels_.set_webhooks(pusher_webhooks_.get());
  log_info("pusher webhooks to {}", cfg_.pusher_webhook_urls_text);
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

}  // namespace ringcast
