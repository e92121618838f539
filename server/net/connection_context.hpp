// What a connection sees of its event loop and its node, through one narrow interface: its
// loop's io_context, sessions, timer service (its clocks) and counters, the settings it reads, the
// drain flag, the current TLS and token settings, the session's home loop, the Redis claim, the
// routes and the registry of the loop's connections. Connections never see the server; tests give
// them a context on a simulated clock (tests/server/net/test_loop.hpp).
#pragma once

#include <boost/asio/io_context.hpp>

#include <chrono>
#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "api/request_context.hpp"
#include "config/config.hpp"
#include "core/hub.hpp"
#include "net/address_limits.hpp"
#include "net/connection_registry.hpp"
#include "net/session_home.hpp"
#include "upgrade/process_handover.hpp"

namespace ringcast {

class connect_gate;
class pusher_door;
class route_table;
class tls_context;
class token_verifier;

class connection_context : public request_context {
 public:
  using time_point = hub::time_point;

  virtual hub& sessions() = 0;
  virtual time_point now() const = 0;  // the timers' steady clock
  virtual loop_stats& stats() = 0;     // the loop's counters
  virtual bool draining() const = 0;
  // What a new connection speaks: TLS settings, or null for plaintext. SIGHUP may replace them;
  // a connection keeps the ones it started with.
  virtual std::shared_ptr<const tls_context> tls() const = 0;
  // The loop that holds `user`'s sessions: this one, or the one to hand a connect to.
  virtual session_home home_of(std::string_view user) = 0;
  // With --redis a session may be held by another node, and a connect claims it first
  // (claim_session); a single node holds all of its sessions and claims none.
  virtual bool sessions_shared() const = 0;
  // With --redis, takes the session over from whichever node held it, then calls
  // `done(known_elsewhere)` on this loop; a single node calls done(false) at once.
  virtual void claim_session(const std::string& user, const std::string& sid,
                             std::function<void(bool)> done) = 0;
  // Every path answered over HTTP: the client endpoints, the admin API, the pages.
  virtual const route_table& routes() const = 0;
  // With --connect-hook: asks the backend about each connect before admitting it; else null.
  virtual connect_gate* connect_hook() = 0;
  // The per-address limits of the client endpoints, shared by the node's loops.
  virtual address_limits& client_addresses() = 0;
  // What is open on this loop (connection_registry.hpp): every connection registers there.
  virtual connection_registry& connections() = 0;
  // The Pusher door's node-wide parts (net/pusher_door.hpp); null when no app is configured.
  virtual pusher_door* pusher() = 0;

 protected:
  ~connection_context() = default;
};

}  // namespace ringcast
