// The node as its event loops see it: what every loop shares (the routes, the drain flag, the
// TLS and token settings, the sessions' home loops, the Redis claim, the per-address limits).
// Implemented by `server`, so that event_loop needs no server.hpp (and the server's header no
// cycle through it).
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <string_view>

#include "net/session_home.hpp"

namespace ringcast {

class address_limits;
class connection_context;
class pusher_channels;
class pusher_door;
class route_table;
class tls_context;
class token_verifier;

class shared_by_loops {
 public:
  // Every path the loops' HTTP connections answer, built once.
  virtual const route_table& routes() const = 0;
  virtual bool draining() const = 0;
  virtual std::shared_ptr<const tls_context> tls() const = 0;
  virtual const token_verifier* client_tokens() const = 0;
  // Where `user`'s sessions live, for a connect read on loop `here` (home_slots.hpp).
  virtual session_home home_loop(std::string_view user, std::size_t here) = 0;
  // See connection_context::sessions_shared and claim_session; `done` runs on `origin`'s loop.
  virtual bool sessions_shared() const = 0;
  virtual void claim_session(const std::string& user, const std::string& sid,
                             connection_context& origin, std::function<void(bool)> done) = 0;
  virtual address_limits& client_addresses() = 0;
  // The Pusher door's channel counts, presence members and webhooks (core/pusher_channels.hpp).
  virtual pusher_channels& pusher_channels_of_node() = 0;
  // The Pusher door's node-wide parts (net/pusher_door.hpp); null when no app is configured.
  virtual pusher_door* pusher_door_of_node() = 0;

 protected:
  ~shared_by_loops() = default;
};

}  // namespace ringcast
