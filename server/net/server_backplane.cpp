// The node's side of its backplane (core/backplane.hpp): which backplane the settings ask for,
// and what it asks of the node: seed the loops at start-up, deliver a numbered message to every
// loop, close a user's or a session's connections, expire a message, publish a due promotion.
#include <boost/asio/post.hpp>

#include "local_backplane.hpp"
#include "log.hpp"
#include "loop_gather.hpp"
#include "redis_backplane.hpp"
#include "server.hpp"

namespace ringcast {

namespace asio = boost::asio;

// The one place that knows there are two kinds: everything else speaks to `backplane`.
std::unique_ptr<backplane> server::make_backplane() {
  backplane_node& self = *this;  // a private base: converted here, where it is accessible
  event_loop& loop = home();
  loop_timers& timers = loop.timers();
  if (!cfg_.redis) {
    caught_up_ = true;  // its history is the loops' own
    return std::make_unique<local_backplane>(self, timers, presence_, last_id_, cfg_.max_scheduled);
  }
  return std::make_unique<redis_backplane>(
      loop.io(), self, timers, presence_,
      redis_backplane::settings{.url = *cfg_.redis,
                                .history = cfg_.history,
                                .session_ttl = cfg_.session_ttl,
                                .max_scheduled = cfg_.max_scheduled});
}

void server::seed_history(std::vector<message_ptr> retained) {
  {
    std::lock_guard lock(sequencer_);
    for (const auto& m : retained)
      if (m->sticky && !m->expired.load(std::memory_order_relaxed))
        sticky_quota_.add(m->id, m->expires_ms);
  }
  for (auto& loop : loops_) {
    asio::post(loop->io(), [l = loop.get(), retained] {
      l->sessions().seed_history(retained, l->now(), l->timers().unix_ms());
    });
  }
}

void server::seed_in_force(std::vector<message_ptr> in_force) {
  {
    std::lock_guard lock(sequencer_);
    for (const auto& m : in_force)
      sticky_quota_.add(m->id, m->expires_ms);
  }
  for_each_loop<bool>(
      loops_,
      [in_force](event_loop& loop) {
        loop.sessions().seed_in_force(in_force, loop.now(), loop.timers().unix_ms());
        return true;
      },
      home().io().get_executor(), [this](std::vector<bool>) { caught_up_ = true; });
}

std::string server::why_unhealthy() const {
  if (!backplane_->state().reachable) return redis_unavailable(*this);
  if (!caught_up_) return "reading the cluster's history and promotions in force (start-up)";
  return {};
}

// Posted to every loop in the order the backplane hands the messages over: id order.
void server::deliver(message_ptr m, asio::any_io_executor where,
                     std::function<void(std::size_t)> done) {
  {
    std::lock_guard lock(sequencer_);
    last_id_ = std::max(last_id_, m->id);
    ++published_;
    if (m->sticky) sticky_quota_.add(m->id, m->expires_ms);
  }
  for_each_loop<std::size_t>(
      loops_, [m](event_loop& loop) { return loop.sessions().publish(m, loop.now()); },
      std::move(where), summed(std::move(done)));
}

void server::close_user(std::string user) {
  for (auto& loop : loops_) {
    asio::post(loop->io(), [l = loop.get(), user] { l->sessions().kick(user, l->now()); });
  }
}

void server::evict(std::string key) {
  const auto name = split_session_key(key);
  if (!name) return;
  event_loop& loop = loop_for(name->user, name->sid);
  asio::post(loop.io(), [&loop, key] { loop.sessions().evict(key, loop.now()); });
}

// On loop 0: every loop holds the same messages, so loop 0 knows whether it is held.
void server::expire_message(std::uint64_t id) {
  const message_ptr m = home().sessions().find_held(id);
  if (!m || !home().sessions().claim_take_down(m)) return;  // ttl passed, or taken down already
  {
    std::lock_guard lock(sequencer_);
    sticky_quota_.remove(m->id);
  }
  for (auto& loop : loops_)
    asio::post(loop->io(), [l = loop.get(), m] { l->sessions().take_down(m, l->now()); });
}

void server::publish_scheduled(const std::string& request_json) {
  auto req = promotions::due_request(request_json);
  if (!req) return;
  publish(*req, home().io().get_executor(), [](std::optional<publish_receipt> r) {
    if (r && r->too_many)
      log_warn("scheduled sticky publish not sent: --max-sticky messages are in force");
  });
}

std::vector<message_ptr> server::retained() {
  return home().sessions().retained();
}

}  // namespace ringcast
