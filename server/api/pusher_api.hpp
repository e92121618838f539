// The Pusher HTTP API (docs/pusher.md, "HTTP API"), on the node, under one prefix route /apps/:
//   POST /apps/{app_id}/events                                publish (pusher_api_publish.hpp)
//   POST /apps/{app_id}/batch_events
//   GET  /apps/{app_id}/channels                              the node's / cluster's counts
//   GET  /apps/{app_id}/channels/{channel}
//   GET  /apps/{app_id}/channels/{channel}/users
//   POST /apps/{app_id}/users/{user_id}/terminate_connections
// Every request is judged in this order, each step as Pusher answers it (a text body): the app id
// (404), the path and method (404, 405), the signature (pusher_api_auth.hpp: 401, 400), then the
// body or query (400, 413). Until the signature is good nothing is parsed, published or asked of
// the node: a caller without the secret costs one body read (within pusher_api_body_limit), an
// MD5 and an HMAC. Added only when the door is open (--pusher-app-id, --pusher-key, a secret).
#pragma once

#include <cstdint>
#include <optional>

#include "api/pusher_api_node.hpp"
#include "api/route_table.hpp"
#include "config/config.hpp"
#include "core/node_health.hpp"
#include "core/node_messages.hpp"
#include "pusher/pusher_app.hpp"

namespace ringcast {

// The most a request body may be: a batch_events of 10 events, each with 10 KB of data written as
// a JSON string inside the JSON body (escaping doubles quotes and backslashes), 100 KB for its
// channel names and other fields. Larger is 413 from the header, before a byte is read.
inline constexpr std::uint64_t pusher_api_body_limit = 256 * 1024;

struct pusher_api_parts {
  const pusher::app& app;  // outlives the table
  node_messages& messages;
  pusher_api_node& node;
  node_health& health;
};

void add_pusher_api_routes(route_table& routes, const pusher_api_parts& parts);

// The app of the settings (--pusher-app-id, --pusher-key, the secret); none: the door is closed.
std::optional<pusher::app> pusher_app_of(const config& cfg);

}  // namespace ringcast
