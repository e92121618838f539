#include "promotion_api.hpp"

#include <charconv>
#include <optional>

#include <fmt/format.h>
#include <boost/beast/http/field.hpp>
#include <boost/json/object.hpp>
#include <boost/json/parse.hpp>
#include <boost/json/serialize.hpp>

#include "duration.hpp"
#include "messages_query.hpp"
#include "wall_clock.hpp"

namespace ringcast {

namespace http = boost::beast::http;
namespace json = boost::json;

namespace {

constexpr std::string_view scheduled_path = "/admin/scheduled";
constexpr std::string_view scheduled_prefix = "/admin/scheduled/";
constexpr std::string_view messages_path = "/admin/messages";
constexpr std::string_view messages_prefix = "/admin/messages/";

using outcome = node_operations::promotion_outcome;

// The <id> of /admin/messages/<id>: a whole number, nothing else.
std::optional<std::uint64_t> message_id_of(std::string_view text) {
  std::uint64_t id = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), id);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return id;
}

http_response unavailable(const node_operations& node, const http_request& req) {
  return error_response(http_status::service_unavailable, "unavailable", redis_unavailable(node),
                        req);
}

http_response wrong_method(const http_request& req, std::string_view allow) {
  auto res = error_response(http_status::method_not_allowed, "method_not_allowed",
                            fmt::format("use {}", allow), req);
  res.set(http::field::allow, allow);
  return res;
}

std::string scheduled_json(const std::vector<node_operations::scheduled_promotion>& list) {
  json::array items;
  items.reserve(list.size());
  for (const auto& p : list) {
    boost::system::error_code ec;
    json::value request = json::parse(p.request_json, ec);  // valid: it was accepted
    items.push_back(json::object{{"scheduled", p.id}, {"at", p.at_ms}, {"request", request}});
  }
  return json::serialize(json::object{{"scheduled", std::move(items)}});
}

void list_scheduled(node_operations& node, boost::asio::any_io_executor origin,
                    const http_request& req, std::function<void(http_response)> reply) {
  node.list_scheduled(std::move(origin),
                      [node_ptr = &node, req, reply](
                          std::optional<std::vector<node_operations::scheduled_promotion>> list) {
                        if (!list) return reply(unavailable(*node_ptr, req));
                        reply(json_response(http_status::ok, scheduled_json(*list), req));
                      });
}

void cancel_scheduled(node_operations& node, boost::asio::any_io_executor origin,
                      std::string_view id, const http_request& req,
                      std::function<void(http_response)> reply) {
  node.cancel_scheduled(
      std::string(id), std::move(origin), [node_ptr = &node, req, reply](outcome o) {
        if (o == outcome::unavailable) return reply(unavailable(*node_ptr, req));
        if (o != outcome::ok) {
          return reply(error_response(http_status::not_found, "not_found",
                                      "no such scheduled publish (published, cancelled or unknown)",
                                      req));
        }
        reply(json_response(http_status::ok, R"({"cancelled":true})", req));
      });
}

std::string reach_json(const node_operations::message_reach& r) {
  return fmt::format(
      R"({{"id":{},"published":{},"recipients":{},"delivered":{},"acked":{},"expired":{}{}{}}})",
      r.id, r.published_ms, r.recipients, r.delivered, r.acked, r.expired,
      // A paced publish: "delivered" rises over this window.
      r.spread.count() > 0 ? fmt::format(R"(,"spread":"{}")", format_duration(r.spread))
                           : std::string(),
      r.sticky ? R"(,"sticky":true)" : "");
}

void message_reach(node_operations& node, boost::asio::any_io_executor origin,
                   std::string_view id_text, const http_request& req,
                   std::function<void(http_response)> reply) {
  const auto id = message_id_of(id_text);
  if (!id) {
    return reply(error_response(http_status::bad_request, "bad_request",
                                "the message id must be a whole number", req));
  }
  node.reach(*id, std::move(origin),
             [node_ptr = &node, req, reply](outcome o, node_operations::message_reach r) {
               if (o == outcome::unavailable) return reply(unavailable(*node_ptr, req));
               if (o != outcome::ok) {
                 return reply(error_response(http_status::not_found, "not_found",
                                             "no such message in history", req));
               }
               reply(json_response(http_status::ok, reach_json(r), req));
             });
}

void take_down(node_operations& node, boost::asio::any_io_executor origin, std::string_view id_text,
               const http_request& req, std::function<void(http_response)> reply) {
  const auto id = message_id_of(id_text);
  if (!id) {
    return reply(error_response(http_status::bad_request, "bad_request",
                                "the message id must be a whole number", req));
  }
  node.take_down(*id, std::move(origin), [node_ptr = &node, req, reply](outcome o) {
    if (o == outcome::unavailable) return reply(unavailable(*node_ptr, req));
    if (o != outcome::ok) {
      return reply(error_response(http_status::not_found, "not_found",
                                  "no such message in force (unknown or already expired)", req));
    }
    reply(json_response(http_status::ok, R"({"taken_down":true})", req));
  });
}

void recent_messages(node_operations& node, boost::asio::any_io_executor origin,
                     const http_request& req, std::function<void(http_response)> reply) {
  const auto limit = parse_messages_query(req.target());
  if (!limit)
    return reply(error_response(http_status::bad_request, "bad_request", limit.error, req));
  node.recent_messages(
      *limit.value, std::move(origin),
      [node_ptr = &node, req, reply](outcome o, std::vector<node_operations::message_reach> list) {
        if (o != outcome::ok) return reply(unavailable(*node_ptr, req));
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

bool is_promotion_path(std::string_view path) {
  return path == scheduled_path || path == messages_path ||
         (path.starts_with(scheduled_prefix) && path.size() > scheduled_prefix.size()) ||
         (path.starts_with(messages_prefix) && path.size() > messages_prefix.size());
}

void handle_promotion_path(node_operations& node, boost::asio::any_io_executor origin,
                           std::string_view path, const http_request& req,
                           std::function<void(http_response)> reply) {
  if (path == scheduled_path) {
    if (req.method() != http::verb::get) return reply(wrong_method(req, "GET"));
    return list_scheduled(node, std::move(origin), req, std::move(reply));
  }
  if (path.starts_with(scheduled_prefix)) {
    if (req.method() != http::verb::delete_) return reply(wrong_method(req, "DELETE"));
    return cancel_scheduled(node, std::move(origin), path.substr(scheduled_prefix.size()), req,
                            std::move(reply));
  }
  if (path == messages_path) {
    if (req.method() != http::verb::get) return reply(wrong_method(req, "GET"));
    return recent_messages(node, std::move(origin), req, std::move(reply));
  }
  const std::string_view id = path.substr(messages_prefix.size());
  if (req.method() == http::verb::delete_)
    return take_down(node, std::move(origin), id, req, std::move(reply));
  if (req.method() != http::verb::get) return reply(wrong_method(req, "GET, DELETE"));
  message_reach(node, std::move(origin), id, req, std::move(reply));
}

bool schedule_if_later(node_operations& node, boost::asio::any_io_executor origin,
                       const publish_request& body, const http_request& req,
                       const std::function<void(http_response)>& reply) {
  if (!body.at_ms && !body.delay) return false;
  const std::int64_t now_ms = unix_ms();
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
  node.schedule_publish(
      json::serialize(posted), at_ms, std::move(origin),
      [node_ptr = &node, req, reply, at_ms](outcome o, const std::string& id) {
        if (o == outcome::unavailable) return reply(unavailable(*node_ptr, req));
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
