#include "api/promotion_api.hpp"

#include <charconv>
#include <optional>

#include <fmt/format.h>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "protocol/duration.hpp"
#include "protocol/messages_query.hpp"

namespace ringcast {

namespace http = boost::beast::http;
namespace json = boost::json;

namespace {

using outcome = node_promotions::promotion_outcome;

// The <id> of /admin/messages/<id>: a whole number, nothing else; anything else is answered
// 400 here (and nullopt returned).
std::optional<std::uint64_t> message_id_or_refuse(std::string_view text, const http_request& req,
                                                  const std::function<void(http_response)>& reply) {
  std::uint64_t id = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec == std::errc{} && end == text.data() + text.size() && !text.empty()) return id;
  reply(error_response(http_status::bad_request, "bad_request",
                       "the message id must be a whole number", req));
  return std::nullopt;
}

http_response unavailable(const node_health& health, const http_request& req) {
  return error_response(http_status::service_unavailable, "unavailable", redis_unavailable(health),
                        req);
}

std::string scheduled_json(const std::vector<node_promotions::scheduled_promotion>& list) {
  json::array items;
  items.reserve(list.size());
  for (const auto& p : list) {
    boost::system::error_code ec;
    json::value request = json::parse(p.request_json, ec);  // valid: it was accepted
    items.push_back(json::object{{"scheduled", p.id}, {"at", p.at_ms}, {"request", request}});
  }
  return json::serialize(json::object{{"scheduled", std::move(items)}});
}

void list_scheduled(node_promotions& promotions, node_health& health,
                    boost::asio::any_io_executor origin, const http_request& req,
                    std::function<void(http_response)> reply) {
  promotions.list_scheduled(
      std::move(origin),
      [health_ptr = &health, req,
       reply](std::optional<std::vector<node_promotions::scheduled_promotion>> list) {
        if (!list) return reply(unavailable(*health_ptr, req));
        reply(json_response(http_status::ok, scheduled_json(*list), req));
      });
}

void cancel_scheduled(node_promotions& promotions, node_health& health,
                      boost::asio::any_io_executor origin, std::string_view id,
                      const http_request& req, std::function<void(http_response)> reply) {
  promotions.cancel_scheduled(
      std::string(id), std::move(origin), [health_ptr = &health, req, reply](outcome o) {
        if (o == outcome::unavailable) return reply(unavailable(*health_ptr, req));
        if (o != outcome::ok) {
          return reply(error_response(http_status::not_found, "not_found",
                                      "no such scheduled publish (published, cancelled or unknown)",
                                      req));
        }
        reply(json_response(http_status::ok, R"({"cancelled":true})", req));
      });
}

std::string reach_json(const node_promotions::message_reach& r) {
  return fmt::format(
      R"({{"id":{},"label":{},"published":{},"recipients":{},"delivered":{},"acked":{},"expired":{}{}{}}})",
      r.id, json::serialize(json::string(r.label)), r.published_ms, r.recipients, r.delivered,
      r.acked, r.expired,
      // A paced publish: "delivered" rises over this window.
      r.spread.count() > 0 ? fmt::format(R"(,"spread":"{}")", format_duration(r.spread))
                           : std::string(),
      r.sticky ? R"(,"sticky":true)" : "");
}

void message_reach(node_promotions& promotions, node_health& health,
                   boost::asio::any_io_executor origin, std::string_view id_text,
                   const http_request& req, std::function<void(http_response)> reply) {
  const auto id = message_id_or_refuse(id_text, req, reply);
  if (!id) return;
  promotions.reach(*id, std::move(origin),
                   [health_ptr = &health, req, reply](outcome o, node_promotions::message_reach r) {
                     if (o == outcome::unavailable) return reply(unavailable(*health_ptr, req));
                     if (o != outcome::ok) {
                       return reply(error_response(http_status::not_found, "not_found",
                                                   "no such message in history", req));
                     }
                     reply(json_response(http_status::ok, reach_json(r), req));
                   });
}

void take_down(node_promotions& promotions, node_health& health,
               boost::asio::any_io_executor origin, std::string_view id_text,
               const http_request& req, std::function<void(http_response)> reply) {
  const auto id = message_id_or_refuse(id_text, req, reply);
  if (!id) return;
  promotions.take_down(*id, std::move(origin), [health_ptr = &health, req, reply](outcome o) {
    if (o == outcome::unavailable) return reply(unavailable(*health_ptr, req));
    if (o != outcome::ok) {
      return reply(error_response(http_status::not_found, "not_found",
                                  "no such message in force (unknown or already expired)", req));
    }
    reply(json_response(http_status::ok, R"({"taken_down":true})", req));
  });
}

void recent_messages(node_promotions& promotions, node_health& health,
                     boost::asio::any_io_executor origin, const http_request& req,
                     std::function<void(http_response)> reply) {
  const auto limit = parse_messages_query(req.target());
  if (!limit)
    return reply(error_response(http_status::bad_request, "bad_request", limit.error, req));
  promotions.recent_messages(*limit.value, std::move(origin),
                             [health_ptr = &health, req, reply](
                                 outcome o, std::vector<node_promotions::message_reach> list) {
                               if (o != outcome::ok) return reply(unavailable(*health_ptr, req));
                               std::string body = R"({"messages":[)";
                               for (std::size_t i = 0; i < list.size(); ++i) {
                                 if (i > 0) body += ',';
                                 body += reach_json(list[i]);
                               }
                               body += "]}";
                               reply(json_response(http_status::ok, body, req));
                             });
}

}  // namespace

void add_promotion_routes(route_table& routes, node_promotions& promotions, node_health& health) {
  routes.add("/admin/scheduled").on(http::verb::get, [&](const route_call& call) {
    list_scheduled(promotions, health, call.origin(), call.request, call.reply);
  });
  routes.add("/admin/scheduled/").on(http::verb::delete_, [&](const route_call& call) {
    cancel_scheduled(promotions, health, call.origin(), call.rest, call.request, call.reply);
  });
  routes.add("/admin/messages").on(http::verb::get, [&](const route_call& call) {
    recent_messages(promotions, health, call.origin(), call.request, call.reply);
  });
  routes.add("/admin/messages/")
      .on(http::verb::get,
          [&](const route_call& call) {
            message_reach(promotions, health, call.origin(), call.rest, call.request, call.reply);
          })
      .on(http::verb::delete_, [&](const route_call& call) {
        take_down(promotions, health, call.origin(), call.rest, call.request, call.reply);
      });
}

bool schedule_if_later(node_promotions& promotions, node_health& health,
                       boost::asio::any_io_executor origin, const publish_request& body,
                       std::int64_t now_ms, const http_request& req,
                       const std::function<void(http_response)>& reply) {
  if (!body.at_ms && !body.delay) return false;
  auto when = publish_time(body, now_ms);
  if (!when) {
    reply(error_response(http_status::bad_request, "bad_request", when.error, req));
    return true;
  }
  if (!*when.value) return false;  // now or in the past: at once
  const std::int64_t at_ms = **when.value;
  // Kept as posted (compactly), with "delay" turned into the "at" it meant: a listing shows when.
  boost::system::error_code ec;
  json::object posted = json::parse(req.body(), ec).as_object();
  posted.erase("delay");
  posted["at"] = at_ms;
  promotions.schedule_publish(
      json::serialize(posted), at_ms, std::move(origin),
      [health_ptr = &health, req, reply, at_ms](outcome o, const std::string& id) {
        if (o == outcome::unavailable) return reply(unavailable(*health_ptr, req));
        if (o != outcome::ok) {
          return reply(error_response(http_status::too_many_requests, "too_many",
                                      "too many scheduled publishes are waiting (--max-scheduled)",
                                      req));
        }
        reply(json_response(http_status::accepted,
                            fmt::format(R"({{"scheduled":"{}","at":{}}})", id, at_ms), req));
      });
  return true;
}

}  // namespace ringcast
