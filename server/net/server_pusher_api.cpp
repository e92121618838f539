// The node's side of the Pusher HTTP API that only the server can do (api/pusher_api_hub.hpp):
// ending a signed-in user's Pusher connections on every loop (the door's per-loop part,
// pusher_door::terminate_on).
#include <boost/asio/post.hpp>

#include <numeric>

#include "net/pusher_door.hpp"
#include "net/server.hpp"

namespace ringcast {

// This node's loops only: a user signed in on another node of a cluster is not reached yet
// (docs/pusher.md, "Several nodes").
void server::terminate_pusher_user(std::string user, boost::asio::any_io_executor origin,
                                   std::function<void(std::size_t)> done) {
  if (!pusher_door_) {
    boost::asio::post(origin, [done = std::move(done)] { done(0); });
    return;
  }
  every_.map_reduce<std::size_t>(
      [user = std::move(user)](event_loop& loop) { return pusher_door::terminate_on(loop, user); },
      std::move(origin),
      [done = std::move(done)](std::vector<std::size_t> ended) {
        done(std::accumulate(ended.begin(), ended.end(), std::size_t{0}));
      });
}

}  // namespace ringcast
