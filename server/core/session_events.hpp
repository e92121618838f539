// What happens to sessions, as observers outside the hub see it (event hooks, presence).
//
// A session is *online* from the connect that gives it a connection until it goes away for good:
// its WebSocket or SSE stream ends (the client left, or the server ended it: idle, kicked,
// shutdown…), or, for long-poll, its TTL runs out with no new poll (between two polls it stays
// online), or it is dropped (kicked, taken over by another node). A connection that replaces
// another of the same session keeps it online: no disconnect, no second connect.
// Called on the hub's loop, synchronously: an observer must only record, never wait.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace ringcast {

class session;

class session_events {
 public:
  virtual void on_connect(const session& s, bool resumed) = 0;
  // `reason`: "closed" (the client went away), "session_ttl", or a close/reconnect reason of
  // docs/protocol.md (idle, kicked, shutdown, replaced, …).
  virtual void on_disconnect(const session& s, std::string_view reason) = 0;
  // The channels actually added or removed (not those the session already had, or lacked).
  virtual void on_subscribe(const session& s, const std::vector<std::string>& channels) = 0;
  virtual void on_unsubscribe(const session& s, const std::vector<std::string>& channels) = 0;

 protected:
  ~session_events() = default;
};

}  // namespace ringcast
