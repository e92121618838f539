#include "api/presence_api.hpp"

#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

namespace ringcast {

namespace json = boost::json;

namespace {

void answer_presence(node_presence& presence, node_health& health, const route_call& call) {
  const auto& req = call.request;
  const auto& reply = call.reply;
  auto q = parse_presence_query(req.target());
  if (!q) return reply(error_response(http_status::bad_request, "bad_request", q.error, req));
  presence.presence(
      *q.value, call.origin(),
      [&health, req, q = *q.value, reply](std::optional<presence_figures> f) {
        if (!f) {
          return reply(error_response(http_status::service_unavailable, "unavailable",
                                      redis_unavailable(health), req));
        }
        json::object out;
        switch (q.what) {
          case presence_query::kind::channel:
            out = {{"channel", q.name}, {"users", f->users}, {"sessions", f->sessions}};
            break;
          case presence_query::kind::user:
            out = {{"user", q.name}, {"online", f->sessions > 0}, {"sessions", f->sessions}};
            break;
          case presence_query::kind::top: {
            json::array channels;
            for (const auto& [name, c] : f->top)
              channels.push_back(
                  json::object{{"channel", name}, {"users", c.users}, {"sessions", c.sessions}});
            out = {{"channels", std::move(channels)}};
            break;
          }
        }
        reply(json_response(http_status::ok, json::serialize(out), req));
      });
}

}  // namespace

void add_presence_routes(route_table& routes, node_presence& presence, node_health& health) {
  routes.add("/admin/presence").on(boost::beast::http::verb::get, [&](const route_call& call) {
    answer_presence(presence, health, call);
  });
}

}  // namespace ringcast
