#include "api/node_routes.hpp"

#include "api/admin_api.hpp"
#include "api/client_token_http.hpp"
#include "api/presence_api.hpp"
#include "api/promotion_api.hpp"
#include "api/request_context.hpp"
#include "web/web_routes.hpp"

namespace ringcast {

namespace http = boost::beast::http;

void add_client_routes(route_table& routes) {
  routes.add_client("/ws", transport::ws);
  routes.add_client("/sse", transport::sse);
  routes.add_client("/poll", transport::poll);
}

void add_page_routes(route_table& routes) {
  const auto demo_token = [](const route_call& call) {
    const auto& ctx = call.connection;
    call.reply(demo_token_response(call.request, ctx.client_tokens() != nullptr,
                                   ctx.settings().demo_secret, call.connection.timers().unix_ms()));
  };
  // Anyone may ask for a demo token: its body, {"user":"..."}, is held to a few hundred bytes.
  constexpr std::uint64_t demo_body_limit = 512;
  routes.add("/demo/token")
      .on(http::verb::get, demo_token)
      .on_body(http::verb::post, demo_token, demo_body_limit)
      .wrong_method("use GET or POST");
  routes.add("/openapi.yaml").on(http::verb::get, [](const route_call& call) {
    call.reply(serve_api_document(call.request));
  });
  const auto page = [](const route_call& call) {
    call.reply(serve_page(call.request, call.connection.settings().web_root));
  };
  routes.otherwise().on(http::verb::get, page).on(http::verb::head, page).wrong_method("use GET");
}

route_table node_routes(const node_apis& node) {
  route_table routes;
  add_client_routes(routes);
  add_operations_routes(routes, node.health, node.snapshots);
  add_message_routes(routes, node.messages, node.promotions, node.health);
  add_promotion_routes(routes, node.promotions, node.health);
  add_presence_routes(routes, node.presence, node.health);
  if (node.pusher) add_pusher_api_routes(routes, *node.pusher);
  add_page_routes(routes);
  return routes;
}

}  // namespace ringcast
