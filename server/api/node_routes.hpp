// The routes of a node, put together once: the client endpoints, /healthz and /metrics, the
// admin API, /demo/token and the pages. Each API file adds its own routes with only the
// interfaces it uses (tests build a table of just the parts they exercise).
#pragma once

#include "api/node_snapshots.hpp"
#include "api/pusher_api.hpp"
#include "api/route_table.hpp"
#include "core/node_health.hpp"
#include "core/node_messages.hpp"
#include "core/node_presence.hpp"
#include "core/node_promotions.hpp"

namespace ringcast {

// /ws, /sse and /poll: given to admission and their transport.
void add_client_routes(route_table& routes);
// /demo/token, /openapi.yaml (docs/openapi.yaml), and every other path outside /admin/: the
// pages (GET, HEAD).
void add_page_routes(route_table& routes);

// What the admin API asks of the node (every event loop, and Redis with --redis), one interface
// per part, so that each API and each test stub sees only what it uses.
struct node_apis {
  node_health& health;
  node_snapshots& snapshots;
  node_messages& messages;
  node_promotions& promotions;
  node_presence& presence;
  // The Pusher HTTP API at /apps/ (api/pusher_api.hpp); null: the door is closed, no such route.
  const pusher_api_parts* pusher = nullptr;
};

route_table node_routes(const node_apis& node);

}  // namespace ringcast
