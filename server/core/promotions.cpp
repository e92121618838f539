#include "core/promotions.hpp"

#include <boost/asio/post.hpp>

#include <memory>

#include "core/log.hpp"
#include "protocol/message_label.hpp"

namespace ringcast {

namespace asio = boost::asio;

promotions::promotions(const node_loop& home, backplane& shared)
    : home_(home), backplane_(shared) {}

void promotions::add(std::string request_json, std::int64_t at_ms,
                     boost::asio::any_io_executor origin,
                     std::function<void(outcome, std::string)> done) {
  asio::post(home_.io(), [this, request_json = std::move(request_json), at_ms, origin,
                          done = std::move(done)]() mutable {
    backplane_.schedule_add(
        std::move(request_json), at_ms,
        [origin, done = std::move(done)](outcome o, std::string id) mutable {
          asio::post(origin, [o, id = std::move(id), done = std::move(done)] { done(o, id); });
        });
  });
}

void promotions::list(
    boost::asio::any_io_executor origin,
    std::function<void(std::optional<std::vector<node_promotions::scheduled_promotion>>)> done) {
  asio::post(home_.io(), [this, origin, done = std::move(done)]() mutable {
    backplane_.schedule_list(
        [origin, done = std::move(done)](
            std::optional<std::vector<node_promotions::scheduled_promotion>> l) mutable {
          asio::post(origin,
                     [l = std::move(l), done = std::move(done)]() mutable { done(std::move(l)); });
        });
  });
}

void promotions::cancel(std::string id, boost::asio::any_io_executor origin,
                        std::function<void(outcome)> done) {
  asio::post(home_.io(), [this, id = std::move(id), origin, done = std::move(done)]() mutable {
    backplane_.schedule_cancel(id, [origin, done = std::move(done)](outcome o) mutable {
      asio::post(origin, [o, done = std::move(done)] { done(o); });
    });
  });
}

namespace {

node_promotions::message_reach reach_of(const message& m, const backplane::reach_counts& c) {
  return {.id = m.id,
          .published_ms = m.ts_ms,
          .recipients = c.recipients,
          .delivered = c.delivered,
          .acked = c.acked,
          .expired = m.expired.load(std::memory_order_relaxed),
          .spread = m.spread,
          .sticky = m.sticky,
          .label = message_label(m.json)};
}

}  // namespace

void promotions::reach(std::uint64_t id, boost::asio::any_io_executor origin,
                       std::function<void(outcome, node_promotions::message_reach)> done) {
  // One loop's history answers for the node: every loop holds the same messages.
  asio::post(home_.io(), [this, id, origin, done = std::move(done)]() mutable {
    auto answer = [origin, done = std::move(done)](outcome o,
                                                   node_promotions::message_reach r) mutable {
      asio::post(origin, [o, r, done = std::move(done)] { done(o, r); });
    };
    const message_ptr m = home_.sessions().find(id);
    if (!m) return answer(outcome::not_found, {});
    backplane_.reach(
        m, [m, answer = std::move(answer)](std::optional<backplane::reach_counts> c) mutable {
          if (!c) return answer(outcome::unavailable, {});
          answer(outcome::ok, reach_of(*m, *c));
        });
  });
}

void promotions::recent(
    std::size_t limit, boost::asio::any_io_executor origin,
    std::function<void(outcome, std::vector<node_promotions::message_reach>)> done) {
  using list = std::vector<node_promotions::message_reach>;
  asio::post(home_.io(), [this, limit, origin, done = std::move(done)]() mutable {
    auto answer = [origin, done = std::move(done)](outcome o, list l) mutable {
      asio::post(origin, [o, l = std::move(l), done = std::move(done)]() mutable {
        done(o, std::move(l));
      });
    };
    const std::vector<message_ptr> newest = home_.sessions().newest(limit);
    const std::size_t n = newest.size();
    if (n == 0) return answer(outcome::ok, {});
    // One reach per message, all at once (with --redis one Redis read each); all on this loop.
    struct gathering {
      list out;
      std::size_t remaining;
      bool unavailable = false;
      decltype(answer) done;
    };
    auto g = std::make_shared<gathering>(gathering{list(n), n, false, std::move(answer)});
    for (std::size_t i = 0; i < n; ++i) {
      backplane_.reach(newest[i], [g, i, m = newest[i]](std::optional<backplane::reach_counts> c) {
        if (c)
          g->out[i] = reach_of(*m, *c);
        else
          g->unavailable = true;
        if (--g->remaining == 0)
          g->done(g->unavailable ? outcome::unavailable : outcome::ok, std::move(g->out));
      });
    }
  });
}

}  // namespace ringcast
