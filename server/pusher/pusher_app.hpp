// The one Pusher Channels app the door serves (docs/pusher.md): its id (/apps/{id} in the HTTP
// API), its key (/app/{key} for clients, the "key:" of every auth string) and its secret (the
// HMAC-SHA256 key of channel auth, sign-in, HTTP API requests and webhooks).
#pragma once

#include <string>

namespace ringcast::pusher {

struct app {
  std::string id;
  std::string key;
  std::string secret;
  bool client_events = false;  // client-* events on private and presence channels
};

}  // namespace ringcast::pusher
