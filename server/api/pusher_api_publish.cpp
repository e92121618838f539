#include "api/pusher_api_publish.hpp"

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>

#include "pusher/pusher_api_answers.hpp"
#include "pusher/pusher_api_events.hpp"

namespace ringcast {

namespace {

using requests = std::vector<publish_request>;

// One hub message of `event` on `channel`. Its data is the publisher's string, relayed as is: a
// Pusher client gets it as the frame's data, a ringcast client as "data": "<that string>".
publish_request message_of(const pusher::api_event& event, const std::string& channel) {
  publish_request req;
  req.data_json = boost::json::serialize(boost::json::string(event.data));
  req.channel = channel;
  req.event = event.name;
  req.except_socket = event.socket_id.value_or("");
  return req;
}

// Publishes the requests one after the other, each once the node has numbered the one before (so
// two events of a batch on one channel arrive in the batch's order, with --redis too);
// done(how many were published), fewer than all when the node could not publish one.
void publish_in_order(node_messages& messages, std::shared_ptr<const requests> list,
                      std::size_t next, const boost::asio::any_io_executor& origin,
                      std::function<void(std::size_t)> done) {
  if (next == list->size()) return done(next);
  const publish_request& req = (*list)[next];
  messages.publish(req, origin,
                   [&messages, list = std::move(list), next, origin, done = std::move(done)](
                       std::optional<node_messages::publish_receipt> receipt) mutable {
                     if (!receipt) return done(next);
                     publish_in_order(messages, std::move(list), next + 1, origin, std::move(done));
                   });
}

// The counts of each of `names`, in their order: asked of the node at once, gathered as they come
// back (every answer runs on `origin`, one thread); nullopt if any could not be read.
void counts_of(pusher_api_node& node, const std::vector<std::string>& names,
               const boost::asio::any_io_executor& origin,
               std::function<void(std::optional<pusher_api_node::counts_list>)> done) {
  struct gathering {
    pusher_api_node::counts_list counts;
    std::size_t waiting = 0;
    bool failed = false;
    std::function<void(std::optional<pusher_api_node::counts_list>)> done;
  };
  auto g = std::make_shared<gathering>();
  g->counts.resize(names.size());
  g->waiting = names.size();
  g->done = std::move(done);
  for (std::size_t i = 0; i < names.size(); ++i) {
    node.channel(names[i], origin,
                 [g, i, name = names[i]](std::optional<pusher::channel_counts> c) {
                   if (c) g->counts[i] = std::move(*c);
                   g->counts[i].name = name;  // the answers are keyed by it
                   g->failed = g->failed || !c;
                   if (--g->waiting > 0) return;
                   if (g->failed) return g->done(std::nullopt);
                   g->done(std::move(g->counts));
                 });
  }
}

http_response unpublished(node_health& health, std::size_t published, std::size_t all,
                          const http_request& req) {
  return pusher_text(503,
                     fmt::format("{}; {} of {} messages were published", redis_unavailable(health),
                                 published, all),
                     req);
}

// Publishes `list`, then answers with `answer(counts)` of `info_channels` (none: {}).
void publish_then_answer(const pusher_publish_call& call, requests list,
                         std::vector<std::string> info_channels,
                         std::function<std::string(const pusher_api_node::counts_list&)> answer) {
  auto shared = std::make_shared<const requests>(std::move(list));
  const std::size_t all = shared->size();
  publish_in_order(
      call.messages, std::move(shared), 0, call.origin,
      [&node = call.node, &health = call.health, req = call.request, origin = call.origin,
       reply = call.reply, all, info_channels = std::move(info_channels),
       answer = std::move(answer)](std::size_t published) mutable {
        if (published < all) return reply(unpublished(health, published, all, req));
        if (info_channels.empty()) return reply(json_response(http_status::ok, answer({}), req));
        counts_of(
            node, info_channels, origin,
            [&health, req, reply,
             answer = std::move(answer)](std::optional<pusher_api_node::counts_list> counts) {
              if (!counts) {
                return reply(pusher_text(
                    503,
                    redis_unavailable(health) + "; published, but the counts of info are not known",
                    req));
              }
              reply(json_response(http_status::ok, answer(*counts), req));
            });
      });
}

bool wants_info(const pusher::api_event& event) {
  return event.user_count || event.subscription_count;
}

}  // namespace

http_response pusher_text(int status, std::string body, const http_request& req) {
  return make_response(static_cast<http_status>(status), std::move(body), "text/plain", req);
}

void answer_pusher_events(const pusher_publish_call& call) {
  auto parsed = pusher::parse_event_body(call.request.body());
  if (auto* refused = std::get_if<pusher::api_refusal>(&parsed))
    return call.reply(pusher_text(refused->status, std::move(refused->body), call.request));
  auto event = std::get<pusher::api_event>(std::move(parsed));
  // A channel named twice gets the event once.
  std::vector<std::string> once;
  for (auto& channel : event.channels)
    if (std::find(once.begin(), once.end(), channel) == once.end()) once.push_back(channel);
  event.channels = std::move(once);
  requests list;
  for (const auto& channel : event.channels)
    list.push_back(message_of(event, channel));
  auto info_channels = wants_info(event) ? event.channels : std::vector<std::string>{};
  publish_then_answer(call, std::move(list), std::move(info_channels),
                      [event = std::move(event)](const pusher_api_node::counts_list& counts) {
                        return pusher::events_answer(event, counts);
                      });
}

void answer_pusher_batch(const pusher_publish_call& call) {
  auto parsed = pusher::parse_batch_body(call.request.body());
  if (auto* refused = std::get_if<pusher::api_refusal>(&parsed))
    return call.reply(pusher_text(refused->status, std::move(refused->body), call.request));
  auto events = std::get<std::vector<pusher::api_event>>(std::move(parsed));
  requests list;
  std::vector<std::string> info_channels;  // one per event (a batch's event has one channel)
  bool info = false;
  for (const auto& event : events) {
    list.push_back(message_of(event, event.channels.front()));
    info_channels.push_back(event.channels.front());
    info = info || wants_info(event);
  }
  if (!info) info_channels.clear();
  publish_then_answer(call, std::move(list), std::move(info_channels),
                      [events = std::move(events)](const pusher_api_node::counts_list& counts) {
                        return pusher::batch_answer(events, counts);
                      });
}

}  // namespace ringcast
