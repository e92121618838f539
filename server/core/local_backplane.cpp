#include "core/local_backplane.hpp"

#include <algorithm>

namespace ringcast {

local_backplane::local_backplane(backplane_node& node, sequencer& ids, loop_timers& timers,
                                 const presence_counts& counts, std::size_t limit)
    : node_(node), ids_(ids), timers_(timers), counts_(counts) {
  schedule_ = std::make_unique<schedule>(limit, timers_, [this](const std::string& request_json) {
    waiting_.store(schedule_->size(), std::memory_order_relaxed);
    node_.publish_scheduled(request_json);
  });
}

void local_backplane::publish(const publish_request& req, boost::asio::any_io_executor origin,
                              std::function<void(std::optional<published>)> done) {
  ids_.number(
      [&](std::uint64_t id) {
        const std::int64_t now_ms = timers_.unix_ms();  // with the id: times go in id order too
        const std::int64_t expires_ms = req.ttl ? now_ms + req.ttl->count() : 0;
        return make_message(id, now_ms, addressee_of(req), req.data_json, expires_ms, req.spread,
                            req.sticky, pusher_shape_of(req));
      },
      [&](const message_ptr& m) {
        node_.deliver(m, std::move(origin), [id = m->id, done = std::move(done)](std::size_t n) {
          done(published{id, n});
        });
      });
}

void local_backplane::take_down(std::uint64_t id, std::function<void(bool)> done) {
  node_.expire_message(id);
  done(true);
}

void local_backplane::schedule_add(std::string request_json, std::int64_t at_ms,
                                   std::function<void(promotion_outcome, std::string)> done) {
  // The wheel runs on the steady clock: the wait is what remains until `at` on the wall clock.
  const auto wait = std::chrono::milliseconds(std::max<std::int64_t>(0, at_ms - timers_.unix_ms()));
  auto id = schedule_->add(at_ms, timers_.now() + wait, std::move(request_json));
  waiting_.store(schedule_->size(), std::memory_order_relaxed);
  done(id ? promotion_outcome::ok : promotion_outcome::too_many, id.value_or(std::string{}));
}

void local_backplane::schedule_list(
    std::function<void(std::optional<std::vector<scheduled_promotion>>)> done) {
  std::vector<scheduled_promotion> out;
  for (const auto& w : schedule_->list())
    out.push_back({w.id, w.at_ms, std::string(w.request_json)});
  done(std::move(out));
}

void local_backplane::schedule_cancel(const std::string& id,
                                      std::function<void(promotion_outcome)> done) {
  const bool cancelled = schedule_->cancel(id);
  waiting_.store(schedule_->size(), std::memory_order_relaxed);
  done(cancelled ? promotion_outcome::ok : promotion_outcome::not_found);
}

// Every loop holds the same message object, and its counters are shared.
void local_backplane::reach(const message_ptr& m,
                            std::function<void(std::optional<reach_counts>)> done) {
  constexpr auto relaxed = std::memory_order_relaxed;
  done(reach_counts{.recipients = m->recipients.load(relaxed),
                    .delivered = m->delivered.load(relaxed),
                    .acked = m->acked.load(relaxed)});
}

void local_backplane::presence(const presence_query& q,
                               std::function<void(std::optional<presence_figures>)> done) {
  done(counts_.figures(q));
}

}  // namespace ringcast
