// The promotion endpoints of the admin API (docs/protocol.md, "Promotions"): a publish with "at"
// or "delay" in the future, GET /admin/scheduled, DELETE /admin/scheduled/<id>, and
// GET /admin/messages/<id>. admin_api authorizes the request, then hands these over.
#pragma once

#include <functional>
#include <string_view>

#include <boost/asio/any_io_executor.hpp>

#include "admin_request.hpp"
#include "http_reply.hpp"
#include "node_operations.hpp"

namespace ringcast {

// /admin/scheduled, /admin/scheduled/<id> and /admin/messages/<id>.
bool is_promotion_path(std::string_view path);
void handle_promotion_path(node_operations& node, boost::asio::any_io_executor origin,
                           std::string_view path, const http_request& req,
                           std::function<void(http_response)> reply);

// A POST /admin/publish whose "at"/"delay" lies in the future is scheduled (202) or refused
// (400, 429), and true is returned; false: it is to be published at once.
bool schedule_if_later(node_operations& node, boost::asio::any_io_executor origin,
                       const publish_request& body, const http_request& req,
                       const std::function<void(http_response)>& reply);

}  // namespace ringcast
