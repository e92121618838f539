#include "presence_api.hpp"

#include <boost/beast/http/field.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

namespace ringcast {

namespace json = boost::json;

void handle_presence(node_operations& node, boost::asio::any_io_executor origin,
                     const http_request& req, std::function<void(http_response)> reply) {
  if (req.method() != boost::beast::http::verb::get) {
    auto res =
        error_response(http_status::method_not_allowed, "method_not_allowed", "use GET", req);
    res.set(boost::beast::http::field::allow, "GET");
    return reply(std::move(res));
  }
  auto q = parse_presence_query(req.target());
  if (!q) return reply(error_response(http_status::bad_request, "bad_request", q.error, req));
  node.presence(
      *q.value, origin, [&node, req, q = *q.value, reply](std::optional<presence_figures> f) {
        if (!f) {
          return reply(error_response(http_status::service_unavailable, "unavailable",
                                      redis_unavailable(node), req));
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

}  // namespace ringcast
