#include "redis/redis_backplane.hpp"

#include <boost/asio/post.hpp>

#include "redis/redis_bus.hpp"
#include "redis/redis_presence.hpp"
#include "redis/redis_promotions.hpp"
#include "redis/redis_pusher.hpp"

namespace ringcast {

namespace asio = boost::asio;

redis_backplane::redis_backplane(asio::io_context& home, backplane_node& node, sequencer& ids,
                                 loop_timers& timers, const presence_counts& counts, settings s)
    : home_(home), node_(node), ids_(ids), session_ttl_(s.session_ttl) {
  redis_bus::node_hooks hooks;
  hooks.seed_history = [this](std::vector<message_ptr> retained) {
    node_.seed_history(std::move(retained));
  };
  hooks.seed_in_force = [this](std::vector<message_ptr> in_force) {
    node_.seed_in_force(std::move(in_force));
  };
  // The bus calls this from its one thread in stream order, so every loop sees id order.
  hooks.deliver = [this](const message_ptr& m, std::function<void(std::size_t)> done) {
    ids_.take(m, [&](const message_ptr& taken) {
      node_.deliver(taken, home_.get_executor(), std::move(done));
    });
  };
  hooks.kick = [this](std::string user) { node_.close_user(std::move(user)); };
  hooks.evict = [this](std::string key) { node_.evict(std::move(key)); };
  // Posted behind the deliveries already posted to loop 0, so that it finds the message there.
  hooks.take_down = [this](std::uint64_t id) {
    asio::post(home_, [this, id] { node_.expire_message(id); });
  };
  hooks.pusher_member = [this](std::string_view change) {
    if (pusher_) pusher_->on_published(change);
  };
  bus_ = std::make_unique<redis_bus>(home_, timers.clock(), std::move(s.url), s.history,
                                     s.session_ttl, std::move(hooks));
  promotions_ = std::make_unique<redis_promotions>(home_, *bus_, timers, s.max_scheduled, s.history,
                                                   [&node] { return node.retained(); });
  presence_ = std::make_unique<redis_presence>(home_, *bus_, counts, s.session_ttl);
}

redis_backplane::~redis_backplane() {
  pusher_.reset();
  presence_.reset();
  bus_.reset();
}

// The schedule and reach are the cluster's before the bus starts (and before any client).
void redis_backplane::start() {
  presence_->start();
  if (pusher_) pusher_->start();
  promotions_->start();
  bus_->start();
}

void redis_backplane::keep_node_id(const std::string& id) {
  bus_->keep_node_id(id);
}

backplane::status redis_backplane::state() const {
  return {.shared = true,
          .reachable = bus_->up(),
          .problem = bus_->problem(),
          .node_id = bus_->node_id(),
          .reconnects = bus_->reconnects()};
}

void redis_backplane::publish(const publish_request& req, asio::any_io_executor origin,
                              std::function<void(std::optional<published>)> done) {
  asio::post(home_, [this, req, origin, done = std::move(done)]() mutable {
    bus_->publish(req,
                  [origin, done = std::move(done)](std::optional<redis_bus::receipt> r) mutable {
                    asio::post(origin, [r, done = std::move(done)] {
                      done(r ? std::optional<published>({r->id, r->recipients}) : std::nullopt);
                    });
                  });
  });
}

void redis_backplane::announce_kick(const std::string& user) {
  asio::post(home_, [this, user] { bus_->announce_kick(user, [](bool) {}); });
}

// Every node, this one included, takes it down when it reads the entry (redis_bus).
void redis_backplane::take_down(std::uint64_t id, std::function<void(bool)> done) {
  bus_->announce_take_down(id, std::move(done));
}

void redis_backplane::claim_session(std::string key, asio::any_io_executor origin,
                                    std::function<void(bool)> done) {
  asio::post(home_, [this, key = std::move(key), origin, done = std::move(done)]() mutable {
    bus_->claim_session(key, [origin, done = std::move(done)](bool known) mutable {
      asio::post(origin, [known, done = std::move(done)] { done(known); });
    });
  });
}

void redis_backplane::release_session(const session& s) {
  asio::post(home_, [this, key = s.key()] { bus_->release_session(key); });
}

void redis_backplane::schedule_add(std::string request_json, std::int64_t at_ms,
                                   std::function<void(promotion_outcome, std::string)> done) {
  promotions_->add(std::move(request_json), at_ms, std::move(done));
}

void redis_backplane::schedule_list(
    std::function<void(std::optional<std::vector<scheduled_promotion>>)> done) {
  promotions_->list(std::move(done));
}

void redis_backplane::schedule_cancel(const std::string& id,
                                      std::function<void(promotion_outcome)> done) {
  promotions_->cancel(id, std::move(done));
}

std::size_t redis_backplane::scheduled() const {
  return promotions_->waiting();
}

void redis_backplane::reach(const message_ptr& m,
                            std::function<void(std::optional<reach_counts>)> done) {
  promotions_->reach(m, std::move(done));
}

void redis_backplane::presence(const presence_query& q,
                               std::function<void(std::optional<presence_figures>)> done) {
  presence_->query(q, std::move(done));
}

pusher_cluster* redis_backplane::share_pusher_channels(pusher_channels& channels) {
  pusher_ = std::make_unique<redis_pusher>(home_, *bus_, channels, session_ttl_);
  return pusher_.get();
}

void redis_backplane::on_connect(const session& s, bool resumed) {
  presence_->on_connect(s, resumed);
}

void redis_backplane::on_disconnect(const session& s, std::string_view reason) {
  presence_->on_disconnect(s, reason);
}

void redis_backplane::on_subscribe(const session& s, const std::vector<std::string>& channels) {
  presence_->on_subscribe(s, channels);
}

void redis_backplane::on_unsubscribe(const session& s, const std::vector<std::string>& channels) {
  presence_->on_unsubscribe(s, channels);
}

}  // namespace ringcast
