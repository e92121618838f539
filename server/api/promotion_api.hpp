// The promotion endpoints of the admin API (docs/protocol.md, "Promotions"): a publish with "at"
// or "delay" in the future, GET /admin/scheduled, DELETE /admin/scheduled/<id>,
// GET /admin/messages, GET and DELETE /admin/messages/<id>. The admin token is route_table's.
#pragma once

#include <functional>

#include <boost/asio/any_io_executor.hpp>

#include "api/route_table.hpp"
#include "core/node_health.hpp"
#include "core/node_promotions.hpp"
#include "protocol/admin_request.hpp"
#include "protocol/http_reply.hpp"

namespace ringcast {

void add_promotion_routes(route_table& routes, node_promotions& promotions, node_health& health);

// A POST /admin/publish whose "at"/"delay" lies in the future of `now_ms` (Unix ms, the loop's
// wall clock) is scheduled (202) or refused (400, 429), and true is returned; false: it is to be
// published at once.
bool schedule_if_later(node_promotions& promotions, node_health& health,
                       boost::asio::any_io_executor origin, const publish_request& body,
                       std::int64_t now_ms, const http_request& req,
                       const std::function<void(http_response)>& reply);

}  // namespace ringcast
