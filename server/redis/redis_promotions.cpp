#include "redis/redis_promotions.hpp"

#include <algorithm>

namespace ringcast {

redis_promotions::redis_promotions(boost::asio::io_context& home, redis_bus& bus,
                                   loop_timers& timers, std::size_t limit, std::size_t history,
                                   redis_reach::retained_fn retained)
    : timers_(timers), store_(bus, limit, history), reach_(home, bus, std::move(retained)) {
  poll_ = std::make_unique<schedule_poll>(
      poll_period, timers_,
      [this](std::function<void(schedule_poll::answer)> done) { claim(std::move(done)); });
}

redis_promotions::~redis_promotions() {
  reach_.stop();
}

void redis_promotions::start() {
  poll_->start();
  reach_.start();
}

void redis_promotions::claim(std::function<void(schedule_poll::answer)> done) {
  store_.claim([this, done = std::move(done)](std::optional<redis_schedule::claimed> c) {
    if (!c) return done({});
    waiting_.store(c->waiting, std::memory_order_relaxed);
    done({.ok = true, .more = c->more, .next_due = c->next_due});
  });
}

void redis_promotions::add(std::string request_json, std::int64_t at_ms,
                           std::function<void(promotion_outcome, std::string)> done) {
  store_.add(request_json, at_ms,
             [this, at_ms, done = std::move(done)](redis_schedule::added a, std::string id) {
               if (a == redis_schedule::added::unavailable)
                 return done(promotion_outcome::unavailable, {});
               if (a == redis_schedule::added::too_many)
                 return done(promotion_outcome::too_many, {});
               waiting_.fetch_add(1, std::memory_order_relaxed);
               // The wheel runs on the steady clock: ask when `at` comes on the wall clock.
               const auto wait =
                   std::chrono::milliseconds(std::max<std::int64_t>(0, at_ms - timers_.unix_ms()));
               poll_->expect(timers_.now() + wait);
               done(promotion_outcome::ok, std::move(id));
             });
}

void redis_promotions::list(
    std::function<void(std::optional<std::vector<scheduled_promotion>>)> done) {
  store_.list([done = std::move(done)](std::optional<std::vector<redis_schedule::waiting>> w) {
    if (!w) return done(std::nullopt);
    std::vector<scheduled_promotion> out;
    out.reserve(w->size());
    for (auto& p : *w)
      out.push_back({std::move(p.id), p.at_ms, std::move(p.request_json)});
    done(std::move(out));
  });
}

void redis_promotions::cancel(const std::string& id, std::function<void(promotion_outcome)> done) {
  store_.cancel(id, [this, done = std::move(done)](std::optional<bool> cancelled) {
    if (!cancelled) return done(promotion_outcome::unavailable);
    if (!*cancelled) return done(promotion_outcome::not_found);
    if (waiting_.load(std::memory_order_relaxed) > 0)
      waiting_.fetch_sub(1, std::memory_order_relaxed);
    done(promotion_outcome::ok);
  });
}

void redis_promotions::reach(const message_ptr& m,
                             std::function<void(std::optional<backplane::reach_counts>)> done) {
  reach_.sum(m, [done = std::move(done)](std::optional<redis_reach::counts> c) {
    if (!c) return done(std::nullopt);
    done(backplane::reach_counts{
        .recipients = c->recipients, .delivered = c->delivered, .acked = c->acked});
  });
}

}  // namespace ringcast
