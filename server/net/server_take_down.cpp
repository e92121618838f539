// DELETE /admin/messages/<id> (docs/protocol.md, "Promotions in force"): the message expires at
// once on every loop, and with --redis on every node, through the backplane.
#include <boost/asio/post.hpp>

#include "server.hpp"

namespace ringcast {

namespace asio = boost::asio;

void server::take_down(std::uint64_t id, boost::asio::any_io_executor origin,
                       std::function<void(promotion_outcome)> done) {
  asio::post(home().io(), [this, id, origin, done = std::move(done)]() mutable {
    auto answer = [origin, done = std::move(done)](promotion_outcome o) mutable {
      asio::post(origin, [o, done = std::move(done)] { done(o); });
    };
    // Every loop holds the same messages: loop 0 answers whether it is held and in force.
    const message_ptr m = home().sessions().find_held(id);
    if (!m || m->expired.load(std::memory_order_relaxed))
      return answer(promotion_outcome::not_found);
    // The backplane has every node, this one included, expire it (expire_message).
    backplane_->take_down(id, [answer = std::move(answer)](bool ok) mutable {
      answer(ok ? promotion_outcome::ok : promotion_outcome::unavailable);
    });
  });
}

}  // namespace ringcast
