// GET /admin/presence?channel=C | ?user=U | ?top=N (docs/protocol.md, "Presence"); the admin
// token is checked by the caller (admin_api).
#pragma once

#include <boost/asio/any_io_executor.hpp>

#include <functional>

#include "http_reply.hpp"
#include "node_operations.hpp"

namespace ringcast {

void handle_presence(node_operations& node, boost::asio::any_io_executor origin,
                     const http_request& req, std::function<void(http_response)> reply);

}  // namespace ringcast
