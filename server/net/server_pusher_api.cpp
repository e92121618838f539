// The node's side of the Pusher HTTP API that only the server can do (api/pusher_api_hub.hpp):
// ending a signed-in user's Pusher connections on every loop.
#include <boost/asio/post.hpp>

#include "net/server.hpp"

namespace ringcast {

// SEAM (docs/pusher_design §5): the Pusher WebSocket door (branch door) is not in this build, so
// no connection can be signed in as anyone and there is nothing to end; the door's per-loop part
// (and, with --redis, the backplane's message to the other nodes) is called from here.
void server::terminate_pusher_user(std::string /*user*/, boost::asio::any_io_executor origin,
                                   std::function<void(std::size_t)> done) {
  boost::asio::post(origin, [done = std::move(done)] { done(0); });
}

}  // namespace ringcast
