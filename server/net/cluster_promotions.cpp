#include "cluster_promotions.hpp"

#include "event_loop.hpp"

namespace ringcast {

cluster_promotions::cluster_promotions(event_loop& home, redis_bus& bus, std::size_t limit,
                                       std::size_t history, std::atomic<std::size_t>& waiting)
    : home_(home),
      waiting_(waiting),
      store_(bus, limit, history),
      reach_(home.io(), bus, [&home] { return home.sessions().retained(); }) {
  poll_ = std::make_unique<schedule_poll>(
      poll_period, home_.timers(),
      [this](std::function<void(schedule_poll::answer)> done) { claim(std::move(done)); });
  poll_->start();
  reach_.start();
}

cluster_promotions::~cluster_promotions() {
  reach_.stop();
}

void cluster_promotions::claim(std::function<void(schedule_poll::answer)> done) {
  store_.claim([this, done = std::move(done)](std::optional<redis_schedule::claimed> c) {
    if (!c) return done({});
    waiting_.store(c->waiting, std::memory_order_relaxed);
    done({.ok = true, .more = c->more, .next_due = c->next_due});
  });
}

void cluster_promotions::add(std::string request_json, std::int64_t at_ms,
                             std::function<void(outcome, std::string)> done) {
  store_.add(request_json, at_ms,
             [this, at_ms, done = std::move(done)](redis_schedule::added a, std::string id) {
               if (a == redis_schedule::added::unavailable) return done(outcome::unavailable, {});
               if (a == redis_schedule::added::too_many) return done(outcome::too_many, {});
               waiting_.fetch_add(1, std::memory_order_relaxed);
               // The wheel runs on the steady clock: ask when `at` comes on the wall clock.
               const auto wait = std::chrono::milliseconds(
                   std::max<std::int64_t>(0, at_ms - home_.timers().unix_ms()));
               poll_->expect(home_.now() + wait);
               done(outcome::ok, std::move(id));
             });
}

void cluster_promotions::list(
    std::function<void(std::optional<std::vector<node_promotions::scheduled_promotion>>)> done) {
  store_.list([done = std::move(done)](std::optional<std::vector<redis_schedule::waiting>> w) {
    if (!w) return done(std::nullopt);
    std::vector<node_promotions::scheduled_promotion> out;
    out.reserve(w->size());
    for (auto& p : *w)
      out.push_back({std::move(p.id), p.at_ms, std::move(p.request_json)});
    done(std::move(out));
  });
}

void cluster_promotions::cancel(const std::string& id, std::function<void(outcome)> done) {
  store_.cancel(id, [this, done = std::move(done)](std::optional<bool> cancelled) {
    if (!cancelled) return done(outcome::unavailable);
    if (!*cancelled) return done(outcome::not_found);
    if (waiting_.load(std::memory_order_relaxed) > 0)
      waiting_.fetch_sub(1, std::memory_order_relaxed);
    done(outcome::ok);
  });
}

void cluster_promotions::reach(const message_ptr& m,
                               std::function<void(outcome, node_promotions::message_reach)> done) {
  reach_.sum(m, [m, done = std::move(done)](std::optional<redis_reach::counts> c) {
    if (!c) return done(outcome::unavailable, {});
    done(outcome::ok, {.id = m->id,
                       .published_ms = m->ts_ms,
                       .recipients = c->recipients,
                       .delivered = c->delivered,
                       .acked = c->acked,
                       .expired = m->expired.load(std::memory_order_relaxed),
                       .spread = m->spread,
                       .sticky = m->sticky});
  });
}

}  // namespace ringcast
