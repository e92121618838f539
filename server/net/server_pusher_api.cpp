// The node's side of the Pusher HTTP API that only the server can do (api/pusher_api_hub.hpp):
// ending a signed-in user's Pusher connections on every loop (the door's per-loop part,
// pusher_loops::terminate_on) of this node and, through the kick (node::announce_pusher_user_kick),
// of every other node.
#include <boost/asio/post.hpp>

#include "net/pusher_loops.hpp"
#include "net/server.hpp"

namespace ringcast {

void server::terminate_pusher_user(std::string user, boost::asio::any_io_executor origin,
                                   std::function<void(std::size_t)> done) {
  if (!pusher_door_) {
    boost::asio::post(origin, [done = std::move(done)] { done(0); });
    return;
  }
  node_->announce_pusher_user_kick(user);
  every_.map_reduce<std::size_t>(
      [user = std::move(user)](event_loop& loop) { return pusher_loops::terminate_on(loop, user); },
      std::move(origin), summed(std::move(done)));
}

void server::hear_other_nodes_pusher_terminates() {
  node_->on_pusher_user_kick([this](std::string user) {
    every_.invoke_on_all(
        [user = std::move(user)](event_loop& loop) { pusher_loops::terminate_on(loop, user); });
  });
}

}  // namespace ringcast
