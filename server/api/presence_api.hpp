// GET /admin/presence?channel=C | ?user=U | ?top=N (docs/protocol.md, "Presence"); the admin
// token is route_table's.
#pragma once

#include "api/route_table.hpp"
#include "core/node_health.hpp"
#include "core/node_presence.hpp"

namespace ringcast {

void add_presence_routes(route_table& routes, node_presence& presence, node_health& health);

}  // namespace ringcast
