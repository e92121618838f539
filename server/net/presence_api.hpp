// GET /admin/presence?channel=C | ?user=U | ?top=N (docs/protocol.md, "Presence"); the admin
// token is route_table's.
#pragma once

#include "node_health.hpp"
#include "node_presence.hpp"
#include "route_table.hpp"

namespace ringcast {

void add_presence_routes(route_table& routes, node_presence& presence, node_health& health);

}  // namespace ringcast
