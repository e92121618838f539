// POST /apps/{app_id}/events and batch_events (docs/pusher.md, "HTTP API"), once the request's
// signature is good: the body read (pusher_api_events.hpp), then one hub message per channel of
// each event, published in the body's order through the node's publish path (the same numbering,
// history and --redis stream as POST /admin/publish), carrying the Pusher event name and the
// socket_id to leave out; then, if the body asks for `info`, the channels' counts.
#pragma once

#include <functional>

#include <boost/asio/any_io_executor.hpp>

#include "api/pusher_api_node.hpp"
#include "core/node_health.hpp"
#include "core/node_messages.hpp"
#include "protocol/http_reply.hpp"

namespace ringcast {

struct pusher_publish_call {
  node_messages& messages;
  pusher_api_node& node;
  node_health& health;
  const http_request& request;
  boost::asio::any_io_executor origin;
  std::function<void(http_response)> reply;
};

void answer_pusher_events(const pusher_publish_call& call);
void answer_pusher_batch(const pusher_publish_call& call);

// An answer of the Pusher HTTP API: a text body, as Pusher gives its refusals.
http_response pusher_text(int status, std::string body, const http_request& req);

}  // namespace ringcast
