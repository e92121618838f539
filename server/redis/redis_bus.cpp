#include "redis/redis_bus.hpp"

#include <hiredis/hiredis.h>

#include <algorithm>
#include <boost/asio/post.hpp>
#include <charconv>
#include <random>

#include "core/log.hpp"
#include "redis/redis_stream.hpp"

namespace ringcast {

namespace asio = boost::asio;

namespace {

std::string random_node_id() {
  std::random_device rd;
  return fmt::format("{:08x}", rd());
}

}  // namespace

redis_bus::redis_bus(asio::io_context& ctx, const loop_clock& clock, redis_url url,
                     std::size_t history, std::chrono::milliseconds session_ttl, node_hooks hooks)
    : ctx_(ctx),
      clock_(clock),
      url_(std::move(url)),
      history_(history),
      session_ttl_(session_ttl),
      hooks_(std::move(hooks)),
      node_id_(random_node_id()),
      given_{url_.host, url_.port},
      retry_(ctx) {}

void redis_bus::start() {
  if (!url_.sentinels.empty()) {
    std::string sentinels;
    for (const auto& s : url_.sentinels)
      sentinels += fmt::format("{}{}:{}", sentinels.empty() ? "" : ",", s.host, s.port);
    log_info("redis master '{}' from Sentinels {} (db {}): node {}", url_.master_name, sentinels,
             url_.db, node_id_);
    sentinel_ = std::make_unique<redis_sentinel>(ctx_, url_);
    sentinel_->watch([this](redis_endpoint master) { on_switch(master); });
  } else {
    log_info("redis {}:{}/{}: node {}", url_.host, url_.port, url_.db, node_id_);
  }
  connect_all();
}

// With Sentinel, each (re)connect asks where the master is first.
void redis_bus::connect_all() {
  if (!sentinel_) return connect_to_master();
  sentinel_->resolve([this](std::optional<redis_endpoint> master, std::string why) {
    if (!master)
      return on_lost(
          fmt::format("redis: no master '{}' from the Sentinels: {}", url_.master_name, why));
    if (master->host != url_.host || master->port != url_.port)
      log_info("redis: master '{}' is {}:{}", url_.master_name, master->host, master->port);
    url_.host = master->host;
    url_.port = master->port;
    connect_to_master();
  });
}

// A Sentinel announced a failover: drop the connections to the old master at once (it may still
// be up, demoted to a replica that refuses writes) and connect to the new one without back-off.
void redis_bus::on_switch(const redis_endpoint& master) {
  if (master.host == url_.host && master.port == url_.port && up()) return;
  backoff_ = std::chrono::milliseconds(0);
  drop_connections();
}

void redis_bus::drop_connections() {
  if (retry_pending_) {
    // Already waiting to reconnect: do it now.
    retry_.cancel();
    retry_pending_ = false;
    connect_all();
    return;
  }
  for (auto* c : {commands_.get(), reader_.get(), control_.get()})
    if (c) c->abort();
}

void redis_bus::connect_to_master() {
  // A slow server gets as long to answer as the back-off waits, and at least a second.
  const auto timeout = std::max(backoff_, std::chrono::milliseconds(1000));
  commands_ = std::make_unique<redis_connection>(ctx_, url_, timeout);
  reader_ = std::make_unique<redis_connection>(ctx_, url_, timeout);
  control_ = std::make_unique<redis_connection>(ctx_, url_, timeout);
  auto on_up = [this] {
    if (!commands_->up() || !reader_->up() || !control_->up()) return;
    up_.store(true, std::memory_order_relaxed);
    following_moved_ = false;
    backoff_ = std::chrono::milliseconds(100);
    {
      std::lock_guard lock(problem_mutex_);
      problem_.clear();
    }
    if (failed_attempts_ == 0) {
      log_info("redis {}:{}: connected", url_.host, url_.port);
    } else {
      log_info("redis {}:{}: connected after {} failed attempts", url_.host, url_.port,
               failed_attempts_);
    }
    last_logged_.clear();
    unlogged_failures_ = 0;
    failed_attempts_ = 0;
    control_->subscribe(control_channel, [this](const redisReply* r) { on_control(r); });
    for (const auto& f : connected_listeners_)
      f();
    if (seeded_) {
      read_stream();
    } else {
      load_history();
    }
  };
  auto on_down = [this, where = fmt::format("redis {}:{}", url_.host, url_.port)](
                     const std::string& why) { on_lost(where + ": " + why); };
  commands_->connect(on_up, on_down);
  reader_->connect(on_up, on_down);
  control_->connect(on_up, on_down);
}

// Any of the three connections failing takes the bus down; all three are made again after a
// back-off (100 ms doubling to 5 s). Connected clients are served meanwhile.
std::string redis_bus::problem() const {
  std::lock_guard lock(problem_mutex_);
  return problem_;
}

void redis_bus::log_failure(const std::string& why) {
  constexpr std::chrono::milliseconds repeat_same_cause{5000};
  ++failed_attempts_;
  const auto now = clock_.now();
  if (why == last_logged_ && now - last_logged_at_ < repeat_same_cause) {
    ++unlogged_failures_;
    return;
  }
  if (why == last_logged_) {
    log_warn("{}; still failing ({} more attempts); retrying in {} ms", why, unlogged_failures_ + 1,
             backoff_.count());
  } else {
    log_warn("{}; retrying in {} ms", why, backoff_.count());
  }
  last_logged_ = why;
  last_logged_at_ = now;
  unlogged_failures_ = 0;
}

void redis_bus::on_lost(std::string why) {
  if (retry_pending_) return;
  retry_pending_ = true;
  // A Cluster primary we were MOVED to is gone (a failover): start again from the address given,
  // which redirects to the new one.
  if (!sentinel_ && !following_moved_) {
    url_.host = given_.host;
    url_.port = given_.port;
  }
  {
    std::lock_guard lock(problem_mutex_);
    problem_ = why;
  }
  if (up_.exchange(false, std::memory_order_relaxed)) {
    log_warn("{}; reconnecting", why);
    last_logged_ = why;
    last_logged_at_ = clock_.now();
    reconnects_.fetch_add(1, std::memory_order_relaxed);
  } else {
    log_failure(why);
  }
  retry_.expires_after(backoff_);
  backoff_ =
      std::clamp(backoff_ * 2, std::chrono::milliseconds(100), std::chrono::milliseconds(5000));
  retry_.async_wait([this](boost::system::error_code ec) {
    if (ec) return;  // cancelled by drop_connections(), which connects itself
    retry_pending_ = false;
    connect_all();
  });
}

// A Redis Cluster node that does not hold the {ringcast} slot answers "MOVED <slot> <ip>:<port>":
// reconnect there (all keys are in that one slot). True if `r` was such an answer.
bool redis_bus::follow_moved(const redisReply* r) {
  if (!r || r->type != REDIS_REPLY_ERROR || !reply_text(r).starts_with("MOVED ")) return false;
  const std::string_view text = reply_text(r);
  const auto space = text.rfind(' ');
  const auto colon = text.rfind(':');
  std::uint16_t port = 0;
  if (colon == std::string_view::npos || colon < space ||
      std::from_chars(text.data() + colon + 1, text.data() + text.size(), port).ec != std::errc{})
    return false;
  const std::string host(text.substr(space + 1, colon - space - 1));
  if (sentinel_ || (host == url_.host && port == url_.port)) {
    log_warn("redis: {}", text);  // not ours to follow
    return true;
  }
  log_info("redis: the {{ringcast}} slot is on {}:{} (MOVED); reconnecting there", host, port);
  url_.host = host;
  url_.port = port;
  following_moved_ = true;
  backoff_ = std::chrono::milliseconds(0);
  asio::post(ctx_, [this] { drop_connections(); });
  return true;
}

void redis_bus::command(const std::vector<std::string>& args,
                        std::function<void(const redisReply*)> done) {
  if (!up()) {
    asio::post(ctx_, [done = std::move(done)] { done(nullptr); });
    return;
  }
  commands_->command(args, std::move(done));
}

}  // namespace ringcast
