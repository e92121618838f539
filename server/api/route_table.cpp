#include "api/route_table.hpp"

#include <fmt/format.h>
#include <boost/beast/http/field.hpp>
#include <boost/json/array.hpp>
#include <boost/json/object.hpp>
#include <boost/json/serialize.hpp>

#include <algorithm>

#include "api/request_context.hpp"
#include "protocol/client_auth.hpp"
#include "protocol/http_reply.hpp"

namespace ringcast {

namespace http = boost::beast::http;

namespace {

constexpr std::string_view admin_area = "/admin/";

bool admin_authorized(const http_request& req, std::string_view token) {
  const auto given = bearer_token(req[http::field::authorization]);
  return given && same_token(*given, token);
}

// A route's methods (route_table::route::method_route, private to the route).
template <class Methods>
boost::json::array method_names(const Methods& methods) {
  boost::json::array names;
  for (const auto& m : methods)
    names.emplace_back(http::to_string(m.verb));
  return names;
}

}  // namespace

bool same_token(std::string_view given, std::string_view expected) {
  unsigned char diff = given.size() == expected.size() ? 0 : 1;
  for (std::size_t i = 0; i < given.size(); ++i) {
    diff |= static_cast<unsigned char>(given[i] ^
                                       expected[i % std::max<std::size_t>(1, expected.size())]);
  }
  return diff == 0 && !expected.empty();
}

boost::asio::any_io_executor route_call::origin() const {
  return connection.io().get_executor();
}

route_table::route& route_table::route::on(http::verb method, handler h) {
  if (!allow_.empty()) allow_ += ", ";
  allow_ += http::to_string(method);
  methods_.push_back({method, std::move(h), false, std::nullopt});
  return *this;
}

route_table::route& route_table::route::on_body(http::verb method, handler h,
                                                std::optional<std::uint64_t> limit) {
  on(method, std::move(h));
  methods_.back().takes_body = true;
  methods_.back().body_limit = limit;
  return *this;
}

route_table::route& route_table::route::any_host() {
  any_host_ = true;
  return *this;
}

route_table::route& route_table::route::wrong_method(std::string message) {
  wrong_method_ = std::move(message);
  return *this;
}

route_table::route& route_table::add(std::string path) {
  auto& r = routes_.emplace_back();
  r.path_ = std::move(path);
  return r;
}

route_table::route& route_table::add_client(std::string path, transport t) {
  auto& r = add(std::move(path));
  r.client_ = t;
  return r;
}

route_table::route& route_table::otherwise() {
  return otherwise_;
}

route_table::match route_table::find(std::string_view path) const {
  for (const auto& r : routes_) {
    const std::string_view p = r.path_;
    const bool prefix = p.ends_with('/');
    if (!prefix && path == p) return {&r, {}, path.starts_with(admin_area)};
    // A prefix route wants something after its '/': "/admin/scheduled/" alone is no path.
    if (prefix && path.starts_with(p) && path.size() > p.size())
      return {&r, path.substr(p.size()), path.starts_with(admin_area)};
  }
  if (path.starts_with(admin_area)) return {nullptr, {}, true};
  // A table without pages (a test's) has nothing there: 404, not a 405 that allows nothing.
  return {otherwise_.methods_.empty() ? nullptr : &otherwise_, {}, false};
}

std::optional<http_response> route_table::refusal(const match& m, const http_request& req,
                                                  std::string_view admin_token) const {
  // The token first, for every /admin/ path: without it, which paths exist is not told either.
  if (m.admin && !admin_authorized(req, admin_token))
    return unauthorized_response("Authorization: Bearer <admin token> required", req);
  if (!m.found) return error_response(http_status::not_found, "not_found", "no such path", req);
  const auto& methods = m.found->methods_;
  if (std::any_of(methods.begin(), methods.end(),
                  [&](const auto& h) { return h.verb == req.method(); }))
    return std::nullopt;
  const auto& allow = m.found->allow_;
  const auto& message = m.found->wrong_method_;
  auto res = error_response(http_status::method_not_allowed, "method_not_allowed",
                            message.empty() ? fmt::format("use {}", allow) : message, req);
  res.set(http::field::allow, allow);
  return res;
}

void route_table::answer(const match& m, const route_call& call) const {
  if (auto refused = refusal(m, call.request, call.connection.settings().admin_token))
    return call.reply(std::move(*refused));
  const auto& methods = m.found->methods_;
  std::find_if(methods.begin(), methods.end(), [&](const auto& h) {
    return h.verb == call.request.method();
  })->answer(call);
}

route_table::body_verdict route_table::judge_body(const match& m, const http_request& header,
                                                  std::optional<std::uint64_t> content_length,
                                                  const connection_settings& settings) const {
  const auto refuse = [](http_response res) { return body_verdict{std::move(res), 0}; };
  // A connect has nothing to say in a body (a wrong method as such, as admit() would).
  if (m.found && m.found->client()) {
    if (header.method() != http::verb::get) {
      auto res =
          error_response(http_status::method_not_allowed, "method_not_allowed", "use GET", header);
      res.set(http::field::allow, "GET");
      return refuse(std::move(res));
    }
    return refuse(error_response(http_status::bad_request, "bad_request",
                                 "a request to /ws, /sse or /poll has no body", header));
  }
  if (auto refused = refusal(m, header, settings.admin_token)) return refuse(std::move(*refused));
  const auto& methods = m.found->methods_;
  const auto& taken = *std::find_if(methods.begin(), methods.end(),
                                    [&](const auto& h) { return h.verb == header.method(); });
  if (!taken.takes_body)
    return refuse(error_response(http_status::payload_too_large, "too_large",
                                 fmt::format("{} {} takes no request body", header.method_string(),
                                             header.target().substr(0, header.target().find('?'))),
                                 header));
  const std::uint64_t limit = taken.body_limit.value_or(settings.max_body);
  if (content_length && *content_length > limit)
    return refuse(error_response(http_status::payload_too_large, "too_large",
                                 taken.body_limit ? fmt::format("request body over {} bytes", limit)
                                                  : "request body over --max-body",
                                 header));
  return {std::nullopt, limit};
}

std::string route_table::describe_json() const {
  boost::json::array routes;
  for (const auto& r : routes_) {
    boost::json::object entry{{"path", r.path_}, {"prefix", r.path_.ends_with('/')}};
    if (r.client_) {
      boost::json::array methods{http::to_string(client_method)};
      // A browser's CORS preflight is answered on the fetch-based transports (http_connection).
      if (*r.client_ != transport::ws) methods.emplace_back(http::to_string(http::verb::options));
      entry["methods"] = std::move(methods);
      entry["client"] = name_of(*r.client_);
    } else {
      entry["methods"] = method_names(r.methods_);
    }
    routes.emplace_back(std::move(entry));
  }
  return boost::json::serialize(boost::json::object{
      {"routes", std::move(routes)}, {"otherwise", method_names(otherwise_.methods_)}});
}

}  // namespace ringcast
