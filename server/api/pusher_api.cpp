#include "api/pusher_api.hpp"

#include <optional>
#include <string>
#include <string_view>
#include <variant>

#include <fmt/format.h>
#include <boost/beast/http/field.hpp>

#include "api/pusher_api_publish.hpp"
#include "api/request_context.hpp"
#include "pusher/pusher_api_answers.hpp"
#include "pusher/pusher_api_auth.hpp"
#include "pusher/pusher_names.hpp"

namespace ringcast {

namespace http = boost::beast::http;

namespace {

enum class endpoint_kind { events, batch_events, channels, channel, channel_users, terminate };

// A path under /apps/{app_id}/ and what it names: the channel or the user id.
struct endpoint {
  endpoint_kind kind;
  std::string_view name;
};

http::verb method_of(endpoint_kind kind) {
  switch (kind) {
    case endpoint_kind::events:
    case endpoint_kind::batch_events:
    case endpoint_kind::terminate:
      return http::verb::post;
    case endpoint_kind::channels:
    case endpoint_kind::channel:
    case endpoint_kind::channel_users:
      return http::verb::get;
  }
  return http::verb::get;
}

// The first segment of `path` and what follows its '/' (empty segment: none).
std::pair<std::string_view, std::optional<std::string_view>> split_first(std::string_view path) {
  const auto slash = path.find('/');
  if (slash == std::string_view::npos) return {path, std::nullopt};
  return {path.substr(0, slash), path.substr(slash + 1)};
}

// events, batch_events, channels, channels/{name}, channels/{name}/users,
// users/{id}/terminate_connections; anything else (an empty name included) is no endpoint.
std::optional<endpoint> endpoint_of(std::string_view tail) {
  const auto [first, rest] = split_first(tail);
  if (!rest) {
    if (first == "events") return endpoint{endpoint_kind::events, {}};
    if (first == "batch_events") return endpoint{endpoint_kind::batch_events, {}};
    if (first == "channels") return endpoint{endpoint_kind::channels, {}};
    return std::nullopt;
  }
  const auto [name, after] = split_first(*rest);
  if (name.empty()) return std::nullopt;
  if (first == "channels" && !after) return endpoint{endpoint_kind::channel, name};
  if (first == "channels" && after == "users") return endpoint{endpoint_kind::channel_users, name};
  if (first == "users" && after == "terminate_connections")
    return endpoint{endpoint_kind::terminate, name};
  return std::nullopt;
}

http_response unavailable(node_health& health, const http_request& req) {
  return pusher_text(503, redis_unavailable(health), req);
}

void answer_channels(const pusher_api_parts& parts, const pusher::query_parameters& query,
                     const route_call& call) {
  auto read = pusher::read_channels_query(query);
  if (auto* refused = std::get_if<pusher::api_refusal>(&read))
    return call.reply(pusher_text(refused->status, std::move(refused->body), call.request));
  const auto q = std::get<pusher::channels_query>(read);
  parts.node.channels(
      q.prefix, call.origin(),
      [q, &health = parts.health, req = call.request, reply = call.reply](auto counts) {
        if (!counts) return reply(unavailable(health, req));
        reply(json_response(http_status::ok, pusher::channels_answer(q, *counts), req));
      });
}

void answer_channel(const pusher_api_parts& parts, std::string_view channel,
                    const pusher::query_parameters& query, const route_call& call) {
  auto read = pusher::read_channel_query(channel, query);
  if (auto* refused = std::get_if<pusher::api_refusal>(&read))
    return call.reply(pusher_text(refused->status, std::move(refused->body), call.request));
  parts.node.channel(
      std::string(channel), call.origin(),
      [q = std::get<pusher::channel_query>(read), &health = parts.health, req = call.request,
       reply = call.reply](auto counts) {
        if (!counts) return reply(unavailable(health, req));
        reply(json_response(http_status::ok, pusher::channel_answer(q, *counts), req));
      });
}

void answer_users(const pusher_api_parts& parts, std::string_view channel, const route_call& call) {
  if (auto refused = pusher::check_users_channel(channel))
    return call.reply(pusher_text(refused->status, std::move(refused->body), call.request));
  parts.node.members(std::string(channel), call.origin(),
                     [&health = parts.health, req = call.request,
                      reply = call.reply](std::optional<std::vector<std::string>> users) {
                       if (!users) return reply(unavailable(health, req));
                       reply(json_response(http_status::ok, pusher::users_answer(*users), req));
                     });
}

void answer_terminate(const pusher_api_parts& parts, std::string_view user,
                      const route_call& call) {
  if (auto why = pusher::check_user_id(user); !why.empty())
    return call.reply(pusher_text(400, std::move(why), call.request));
  parts.node.terminate_user(std::string(user), call.origin(),
                            [req = call.request, reply = call.reply](std::size_t) {
                              reply(json_response(http_status::ok, "{}", req));
                            });
}

// The parameters that are not the signature's (what a query route reads).
pusher::query_parameters without_auth(pusher::query_parameters query) {
  for (const char* auth :
       {"auth_key", "auth_timestamp", "auth_version", "auth_signature", "body_md5"})
    query.erase(auth);
  return query;
}

void answer(const pusher_api_parts& parts, const route_call& call) {
  const auto& req = call.request;
  const auto [app_id, tail] = split_first(call.rest);
  // One app: any other id is Pusher's 404 for an app that does not exist (before the signature,
  // which only the app's secret can check).
  if (app_id != parts.app.id)
    return call.reply(pusher_text(404, "Unknown app: no app with that id here", req));
  const auto found = tail ? endpoint_of(*tail) : std::nullopt;
  if (!found) {
    return call.reply(
        pusher_text(404,
                    "Unknown path: the API has events, batch_events, channels, channels/{name}, "
                    "channels/{name}/users and users/{id}/terminate_connections",
                    req));
  }
  const http::verb method = method_of(found->kind);
  if (req.method() != method) {
    auto res = pusher_text(405, fmt::format("use {}", http::to_string(method)), req);
    res.set(http::field::allow, http::to_string(method));
    return call.reply(std::move(res));
  }
  const std::string_view target = req.target();
  const auto question = target.find('?');
  const pusher::api_request signed_request{
      req.method_string(), target.substr(0, question),
      question == std::string_view::npos ? std::string_view{} : target.substr(question + 1),
      req.body()};
  auto verified = pusher::verify_api_request(parts.app, signed_request,
                                             call.connection.timers().unix_ms() / 1000);
  if (auto* refused = std::get_if<pusher::api_refusal>(&verified))
    return call.reply(pusher_text(refused->status, std::move(refused->body), req));
  auto query = without_auth(std::get<pusher::query_parameters>(std::move(verified)));
  const pusher_publish_call publish{parts.messages, parts.node, parts.health, req,
                                    call.origin(),  call.reply};
  switch (found->kind) {
    case endpoint_kind::events:
      return answer_pusher_events(publish);
    case endpoint_kind::batch_events:
      return answer_pusher_batch(publish);
    case endpoint_kind::channels:
      return answer_channels(parts, query, call);
    case endpoint_kind::channel:
      return answer_channel(parts, found->name, query, call);
    case endpoint_kind::channel_users:
      return answer_users(parts, found->name, call);
    case endpoint_kind::terminate:
      return answer_terminate(parts, found->name, call);
  }
}

}  // namespace

std::optional<pusher::app> pusher_app_of(const config& cfg) {
  if (!cfg.pusher()) return std::nullopt;
  return pusher::app{cfg.pusher_app_id, cfg.pusher_key, cfg.pusher_secret,
                     cfg.pusher_client_events};
}

void add_pusher_api_routes(route_table& routes, const pusher_api_parts& parts) {
  const auto handler = [parts](const route_call& call) { answer(parts, call); };
  routes.add("/apps/")
      .on(http::verb::get, handler)
      .on_body(http::verb::post, handler, pusher_api_body_limit);
}

}  // namespace ringcast
