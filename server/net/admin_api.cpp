#include "admin_api.hpp"

#include <fmt/format.h>
#include <boost/beast/http/field.hpp>

#include "client_auth.hpp"
#include "connection_context.hpp"
#include "presence_api.hpp"
#include "promotion_api.hpp"
#include "snapshot_format.hpp"

namespace ringcast {

namespace http = boost::beast::http;

bool same_token(std::string_view given, std::string_view expected) {
  unsigned char diff = given.size() == expected.size() ? 0 : 1;
  for (std::size_t i = 0; i < given.size(); ++i) {
    diff |= static_cast<unsigned char>(given[i] ^
                                       expected[i % std::max<std::size_t>(1, expected.size())]);
  }
  return diff == 0 && !expected.empty();
}

namespace {

bool authorized(const http_request& req, std::string_view token) {
  const auto given = bearer_token(req[http::field::authorization]);
  return given && same_token(*given, token);
}

http_response method_not_allowed(const http_request& req, std::string_view allow) {
  auto res = error_response(http_status::method_not_allowed, "method_not_allowed",
                            fmt::format("use {}", allow), req);
  res.set(http::field::allow, allow);
  return res;
}

}  // namespace

void handle_operations(node_operations& node, const connection_settings& settings,
                       boost::asio::any_io_executor origin, const http_request& req,
                       std::function<void(http_response)> reply) {
  const std::string_view path = req.target().substr(0, req.target().find('?'));

  if (path == "/healthz" || path == "/metrics") {
    if (req.method() != http::verb::get) return reply(method_not_allowed(req, "GET"));
    if (path == "/healthz") {
      // A node without Redis still serves its clients, but should not be sent new ones.
      if (!node.healthy()) {
        return reply(error_response(http_status::service_unavailable, "unavailable",
                                    redis_unavailable(node), req));
      }
      return reply(make_response(http_status::ok, "ok", "text/plain", req));
    }
    node.snapshot(origin, [req, reply](server_snapshot s) {
      reply(make_response(http_status::ok, prometheus_text(s), "text/plain; version=0.0.4", req));
    });
    return;
  }

  // The token first, for every /admin/ path: without it, which paths exist is not told either.
  if (!authorized(req, settings.admin_token)) {
    return reply(unauthorized_response("Authorization: Bearer <admin token> required", req));
  }
  const bool known = path == "/admin/publish" || path == "/admin/kick" || path == "/admin/stats" ||
                     is_promotion_path(path) || path == "/admin/presence";
  if (!known)
    return reply(error_response(http_status::not_found, "not_found", "no such path", req));
  if (is_promotion_path(path))
    return handle_promotion_path(node, std::move(origin), path, req, std::move(reply));
  if (path == "/admin/presence") return handle_presence(node, origin, req, std::move(reply));
  if (path == "/admin/stats") {
    if (req.method() != http::verb::get) return reply(method_not_allowed(req, "GET"));
    node.snapshot(origin, [req, reply](server_snapshot s) {
      reply(json_response(http_status::ok, stats_json(s), req));
    });
    return;
  }
  if (req.method() != http::verb::post) return reply(method_not_allowed(req, "POST"));
  if (path == "/admin/publish") {
    auto body = parse_publish_request(req.body(), settings.max_spread);
    if (!body)
      return reply(error_response(http_status::bad_request, "bad_request", body.error, req));
    if (schedule_if_later(node, origin, *body.value, req, reply)) return;
    node.publish(
        *body.value, origin,
        [&node, req, reply](std::optional<node_operations::publish_receipt> r) {
          if (!r) {
            return reply(error_response(http_status::service_unavailable, "unavailable",
                                        redis_unavailable(node) + "; nothing was published", req));
          }
          if (r->too_many) {
            return reply(error_response(http_status::too_many_requests, "too_many",
                                        "too many sticky messages are in force (--max-sticky)",
                                        req));
          }
          reply(json_response(http_status::ok,
                              fmt::format(R"({{"id":{},"recipients":{}}})", r->id, r->recipients),
                              req));
        });
    return;
  }
  auto body = parse_kick_request(req.body());
  if (!body) return reply(error_response(http_status::bad_request, "bad_request", body.error, req));
  node.kick(body.value->user, origin, [req, reply](std::size_t kicked) {
    reply(json_response(http_status::ok, fmt::format(R"({{"kicked":{}}})", kicked), req));
  });
}

}  // namespace ringcast
