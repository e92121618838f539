#include "promotions.hpp"

#include <boost/asio/post.hpp>

#include "event_loop.hpp"
#include "log.hpp"
#include "wall_clock.hpp"

namespace ringcast {

namespace asio = boost::asio;

promotions::promotions(event_loop& home, std::size_t limit,
                       std::function<void(const publish_request&)> publish)
    : home_(home), publish_(std::move(publish)) {
  hub& h = home_.sessions();
  schedule_ = std::make_unique<schedule>(
      limit, [&h](timed& t, schedule::time_point due) { h.arm(t, due); },
      [&h](timed& t) { h.disarm(t); },
      [this](const std::string& request_json) { publish_due(request_json); });
}

promotions::~promotions() = default;

void promotions::publish_due(const std::string& request_json) {
  waiting_.store(schedule_->size(), std::memory_order_relaxed);
  // Its spread was checked against --max-spread when it was accepted.
  auto req = parse_publish_request(request_json, std::chrono::milliseconds::max());
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
                     std::function<void(std::optional<std::string>)> done) {
  asio::post(home_.io(), [this, request_json = std::move(request_json), at_ms, origin,
                          done = std::move(done)]() mutable {
    // The wheel runs on the steady clock: the wait is what remains until `at` on the wall clock.
    const auto wait = std::chrono::milliseconds(std::max<std::int64_t>(0, at_ms - unix_ms()));
    auto id = schedule_->add(at_ms, home_.now() + wait, std::move(request_json));
    waiting_.store(schedule_->size(), std::memory_order_relaxed);
    asio::post(origin, [id = std::move(id), done = std::move(done)] { done(id); });
  });
}

void promotions::list(boost::asio::any_io_executor origin,
                      std::function<void(std::vector<node_operations::scheduled_promotion>)> done) {
  asio::post(home_.io(), [this, origin, done = std::move(done)]() mutable {
    std::vector<node_operations::scheduled_promotion> out;
    for (const auto& w : schedule_->list())
      out.push_back({w.id, w.at_ms, std::string(w.request_json)});
    asio::post(origin,
               [out = std::move(out), done = std::move(done)]() mutable { done(std::move(out)); });
  });
}

void promotions::cancel(std::string id, boost::asio::any_io_executor origin,
                        std::function<void(bool)> done) {
  asio::post(home_.io(), [this, id = std::move(id), origin, done = std::move(done)]() mutable {
    const bool cancelled = schedule_->cancel(id);
    waiting_.store(schedule_->size(), std::memory_order_relaxed);
    asio::post(origin, [cancelled, done = std::move(done)] { done(cancelled); });
  });
}

void promotions::reach(std::uint64_t id, boost::asio::any_io_executor origin,
                       std::function<void(std::optional<node_operations::message_reach>)> done) {
  // Every loop holds the same message object, and its counters are shared: one loop's history
  // answers for all.
  asio::post(home_.io(), [this, id, origin, done = std::move(done)]() mutable {
    std::optional<node_operations::message_reach> r;
    if (const message_ptr m = home_.sessions().find(id)) {
      constexpr auto relaxed = std::memory_order_relaxed;
      r = node_operations::message_reach{m->id,
                                         m->ts_ms,
                                         m->recipients.load(relaxed),
                                         m->delivered.load(relaxed),
                                         m->acked.load(relaxed),
                                         m->expired.load(relaxed),
                                         m->spread};
    }
    asio::post(origin, [r, done = std::move(done)] { done(r); });
  });
}

}  // namespace ringcast
