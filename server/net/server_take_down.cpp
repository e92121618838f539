// DELETE /admin/messages/<id> (docs/protocol.md, "Promotions in force"): the message expires at
// once on every loop, and with --redis on every node, through an entry in the shared stream.
#include <boost/asio/post.hpp>

#include "redis_bus.hpp"
#include "server.hpp"

namespace ringcast {

namespace asio = boost::asio;

void server::take_down(std::uint64_t id, boost::asio::any_io_executor origin,
                       std::function<void(promotion_outcome)> done) {
  asio::post(bus_loop().io(), [this, id, origin, done = std::move(done)]() mutable {
    auto answer = [origin, done = std::move(done)](promotion_outcome o) mutable {
      asio::post(origin, [o, done = std::move(done)] { done(o); });
    };
    // Every loop holds the same messages: loop 0 answers whether it is held and in force.
    const message_ptr m = bus_loop().sessions().find_held(id);
    if (!m || m->expired.load(std::memory_order_relaxed))
      return answer(promotion_outcome::not_found);
    if (!bus_) {
      take_down_everywhere(m);
      return answer(promotion_outcome::ok);
    }
    // Every node, this one included, takes it down when it reads the entry (redis_bus).
    bus_->announce_take_down(id, [answer = std::move(answer)](bool ok) mutable {
      answer(ok ? promotion_outcome::ok : promotion_outcome::unavailable);
    });
  });
}

void server::take_down_everywhere(const message_ptr& m) {
  if (!bus_loop().sessions().claim_take_down(m)) return;  // its ttl passed, or taken down already
  {
    std::lock_guard lock(sequencer_);
    sticky_quota_.remove(m->id);
  }
  for (auto& loop : loops_)
    asio::post(loop->io(), [l = loop.get(), m] { l->sessions().take_down(m, l->now()); });
}

}  // namespace ringcast
