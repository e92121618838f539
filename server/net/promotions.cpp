#include "promotions.hpp"

#include <boost/asio/post.hpp>

#include <algorithm>
#include <memory>

#include "cluster_promotions.hpp"
#include "event_loop.hpp"
#include "log.hpp"

namespace ringcast {

namespace asio = boost::asio;

promotions::promotions(event_loop& home, std::size_t limit,
                       std::function<void(const publish_request&)> publish)
    : home_(home), limit_(limit), publish_(std::move(publish)) {
  schedule_ = std::make_unique<schedule>(
      limit, home_.timers(),
      [this](const std::string& request_json) { publish_due(request_json); });
}

promotions::~promotions() = default;

void promotions::join_cluster(redis_bus& bus, std::size_t history) {
  cluster_ = std::make_unique<cluster_promotions>(home_, bus, limit_, history, waiting_);
}

void promotions::publish_due(const std::string& request_json) {
  waiting_.store(schedule_->size(), std::memory_order_relaxed);
  // Its spread was checked against --max-spread when it was accepted; a field it was stored with
  // by another version is no reason to drop it.
  auto req =
      parse_publish_request(request_json, std::chrono::milliseconds::max(), unknown_fields::ignore);
  if (!req) {  // it was accepted once: only a bug gets here
    log_warn("scheduled publish no longer parses ({}): {}", req.error, request_json);
    return;
  }
  req.value->at_ms.reset();
  req.value->delay.reset();
  publish_(*req.value);
}

void promotions::add(std::string request_json, std::int64_t at_ms,
                     boost::asio::any_io_executor origin,
                     std::function<void(outcome, std::string)> done) {
  asio::post(home_.io(), [this, request_json = std::move(request_json), at_ms, origin,
                          done = std::move(done)]() mutable {
    auto answer = [origin, done = std::move(done)](outcome o, std::string id) mutable {
      asio::post(origin, [o, id = std::move(id), done = std::move(done)] { done(o, id); });
    };
    if (cluster_) return cluster_->add(std::move(request_json), at_ms, std::move(answer));
    // The wheel runs on the steady clock: the wait is what remains until `at` on the wall clock.
    const auto wait =
        std::chrono::milliseconds(std::max<std::int64_t>(0, at_ms - home_.timers().unix_ms()));
    auto id = schedule_->add(at_ms, home_.now() + wait, std::move(request_json));
    waiting_.store(schedule_->size(), std::memory_order_relaxed);
    answer(id ? outcome::ok : outcome::too_many, id.value_or(std::string{}));
  });
}

void promotions::list(
    boost::asio::any_io_executor origin,
    std::function<void(std::optional<std::vector<node_promotions::scheduled_promotion>>)> done) {
  asio::post(home_.io(), [this, origin, done = std::move(done)]() mutable {
    auto answer = [origin, done = std::move(done)](
                      std::optional<std::vector<node_promotions::scheduled_promotion>> l) mutable {
      asio::post(origin,
                 [l = std::move(l), done = std::move(done)]() mutable { done(std::move(l)); });
    };
    if (cluster_) return cluster_->list(std::move(answer));
    std::vector<node_promotions::scheduled_promotion> out;
    for (const auto& w : schedule_->list())
      out.push_back({w.id, w.at_ms, std::string(w.request_json)});
    answer(std::move(out));
  });
}

void promotions::cancel(std::string id, boost::asio::any_io_executor origin,
                        std::function<void(outcome)> done) {
  asio::post(home_.io(), [this, id = std::move(id), origin, done = std::move(done)]() mutable {
    auto answer = [origin, done = std::move(done)](outcome o) mutable {
      asio::post(origin, [o, done = std::move(done)] { done(o); });
    };
    if (cluster_) return cluster_->cancel(id, std::move(answer));
    const bool cancelled = schedule_->cancel(id);
    waiting_.store(schedule_->size(), std::memory_order_relaxed);
    answer(cancelled ? outcome::ok : outcome::not_found);
  });
}

namespace {

// This node's counts: every loop holds the same message object, and its counters are shared.
node_promotions::message_reach local_reach(const message& m) {
  constexpr auto relaxed = std::memory_order_relaxed;
  return {.id = m.id,
          .published_ms = m.ts_ms,
          .recipients = m.recipients.load(relaxed),
          .delivered = m.delivered.load(relaxed),
          .acked = m.acked.load(relaxed),
          .expired = m.expired.load(relaxed),
          .spread = m.spread,
          .sticky = m.sticky};
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
    if (cluster_) return cluster_->reach(m, std::move(answer));
    answer(outcome::ok, local_reach(*m));
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
    if (!cluster_ || n == 0) {
      list out;
      for (const auto& m : newest)
        out.push_back(local_reach(*m));
      return answer(outcome::ok, std::move(out));
    }
    // Summed over the nodes, one Redis read per message, all at once; all run on this loop.
    struct gathering {
      list out;
      std::size_t remaining;
      bool unavailable = false;
      decltype(answer) done;
    };
    auto g = std::make_shared<gathering>(gathering{list(n), n, false, std::move(answer)});
    for (std::size_t i = 0; i < n; ++i) {
      cluster_->reach(newest[i], [g, i](outcome o, node_promotions::message_reach r) {
        if (o != outcome::ok) g->unavailable = true;
        g->out[i] = r;
        if (--g->remaining == 0)
          g->done(g->unavailable ? outcome::unavailable : outcome::ok, std::move(g->out));
      });
    }
  });
}

}  // namespace ringcast
