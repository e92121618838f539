#include "net/pusher_loops.hpp"

#include <boost/asio/post.hpp>

#include "net/connection_context.hpp"
#include "net/pusher_connection.hpp"
#include "pusher/pusher_names.hpp"

namespace ringcast {
namespace {

// Visits the Pusher connections of `loop` listening to `channel` (the hub's index of the
// channel, never every connection).
template <class Visit>
void each_pusher_listener(connection_context& loop, const std::string& channel, Visit visit) {
  std::vector<pusher_connection*> found;
  loop.sessions().for_each_listener(channel, [&](subscriber& s) {
    if (auto* c = dynamic_cast<pusher_connection*>(&s)) found.push_back(c);
  });
  for (pusher_connection* c : found)
    visit(*c);
}

}  // namespace

void pusher_loops::member_added(const std::string& channel, const pusher_member& member) {
  for (connection_context* loop : loops_) {
    boost::asio::post(loop->io(), [loop, channel, member] {
      each_pusher_listener(*loop, channel,
                           [&](pusher_connection& c) { c.member_added(channel, member); });
    });
  }
}

void pusher_loops::member_removed(const std::string& channel, const std::string& user_id) {
  for (connection_context* loop : loops_) {
    boost::asio::post(loop->io(), [loop, channel, user_id] {
      each_pusher_listener(*loop, channel,
                           [&](pusher_connection& c) { c.member_removed(channel, user_id); });
    });
  }
}

std::size_t pusher_loops::terminate_on(connection_context& loop, std::string_view user_id) {
  // A signed-in connection listens to its user's server-to-user channel (and only it does).
  std::size_t ended = 0;
  each_pusher_listener(loop, std::string(pusher::server_to_user_prefix) + std::string(user_id),
                       [&](pusher_connection& c) {
                         if (c.terminate()) ++ended;
                       });
  return ended;
}

}  // namespace ringcast
