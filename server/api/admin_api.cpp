#include "api/admin_api.hpp"

#include <fmt/format.h>

#include "api/promotion_api.hpp"
#include "api/request_context.hpp"
#include "api/snapshot_format.hpp"

namespace ringcast {

namespace http = boost::beast::http;

void add_operations_routes(route_table& routes, node_health& health, node_snapshots& snapshots) {
  routes.add("/healthz").any_host().on(http::verb::get, [&health](const route_call& call) {
    const auto& req = call.request;
    // A node without Redis still serves its clients, but should not be sent new ones; nor should
    // a node that does not yet know the promotions in force.
    if (auto why = health.why_unhealthy(); !why.empty()) {
      return call.reply(
          error_response(http_status::service_unavailable, "unavailable", std::move(why), req));
    }
    call.reply(make_response(http_status::ok, "ok", "text/plain", req));
  });
  routes.add("/metrics").on(http::verb::get, [&snapshots](const route_call& call) {
    snapshots.snapshot(call.origin(), [req = call.request, reply = call.reply](server_snapshot s) {
      reply(make_response(http_status::ok, prometheus_text(s), "text/plain; version=0.0.4", req));
    });
  });
  routes.add("/admin/stats").on(http::verb::get, [&snapshots](const route_call& call) {
    snapshots.snapshot(call.origin(), [req = call.request, reply = call.reply](server_snapshot s) {
      reply(json_response(http_status::ok, stats_json(s), req));
    });
  });
}

void add_message_routes(route_table& routes, node_messages& messages, node_promotions& promotions,
                        node_health& health) {
  routes.add("/admin/publish")
      .on_body(http::verb::post, [&messages, &promotions, &health](const route_call& call) {
        const auto& req = call.request;
        const auto& reply = call.reply;
        auto body = parse_publish_request(req.body(), call.connection.settings().max_spread);
        if (!body)
          return reply(error_response(http_status::bad_request, "bad_request", body.error, req));
        const std::int64_t now_ms = call.connection.timers().unix_ms();
        if (schedule_if_later(promotions, health, call.origin(), *body.value, now_ms, req, reply))
          return;
        messages.publish(
            *body.value, call.origin(),
            [&health, req, reply](std::optional<node_messages::publish_receipt> r) {
              if (!r) {
                return reply(error_response(http_status::service_unavailable, "unavailable",
                                            redis_unavailable(health) + "; nothing was published",
                                            req));
              }
              if (r->too_many) {
                return reply(error_response(http_status::too_many_requests, "too_many",
                                            "too many sticky messages are in force (--max-sticky)",
                                            req));
              }
              reply(json_response(
                  http_status::ok,
                  fmt::format(R"({{"id":{},"recipients":{}}})", r->id, r->recipients), req));
            });
      });
  routes.add("/admin/kick").on_body(http::verb::post, [&messages](const route_call& call) {
    const auto& req = call.request;
    auto body = parse_kick_request(req.body());
    if (!body)
      return call.reply(error_response(http_status::bad_request, "bad_request", body.error, req));
    messages.kick(body.value->user, call.origin(), [req, reply = call.reply](std::size_t kicked) {
      reply(json_response(http_status::ok, fmt::format(R"({{"kicked":{}}})", kicked), req));
    });
  });
}

}  // namespace ringcast
