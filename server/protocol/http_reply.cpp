#include "protocol/http_reply.hpp"

#include <algorithm>
#include <cstdint>

#include <fmt/format.h>
#include <boost/beast/http/field.hpp>
#include <boost/json/serialize.hpp>
#include <boost/json/string.hpp>

namespace ringcast {

namespace http = boost::beast::http;

http_response make_response(http_status status, std::string body, std::string_view content_type,
                            const http_request& req) {
  http_response res{status, req.version()};
  res.set(http::field::server, "ringcast");
  res.set(http::field::content_type, content_type);
  res.set(http::field::cache_control, "no-store");
  res.keep_alive(req.keep_alive());
  res.body() = std::move(body);
  res.prepare_payload();
  return res;
}

http_response json_response(http_status status, std::string body, const http_request& req) {
  return make_response(status, std::move(body), "application/json", req);
}

http_response error_response(http_status status, std::string_view code, std::string_view message,
                             const http_request& req) {
  return json_response(status,
                       fmt::format(R"({{"error":"{}","message":{}}})", code,
                                   boost::json::serialize(boost::json::string(message))),
                       req);
}

http_response unauthorized_response(std::string_view message, const http_request& req) {
  auto res = error_response(http_status::unauthorized, "unauthorized", message, req);
  res.set(boost::beast::http::field::www_authenticate, "Bearer");
  return res;
}

http_response draining_response(const http_request& req, std::chrono::milliseconds drain) {
  const auto seconds =
      std::max<std::int64_t>(1, std::chrono::ceil<std::chrono::seconds>(drain).count());
  auto res = error_response(http_status::service_unavailable, "overloaded",
                            fmt::format("the server is draining; retry in {} s", seconds), req);
  res.set(http::field::retry_after, std::to_string(seconds));
  res.keep_alive(false);
  return res;
}

void announce_keep_alive(http_response& res, std::chrono::milliseconds timeout) {
  if (!res.keep_alive()) return;
  const auto seconds = std::chrono::floor<std::chrono::seconds>(timeout).count();
  if (seconds < 1) {
    res.keep_alive(false);
    return;
  }
  res.set(http::field::keep_alive, fmt::format("timeout={}", seconds));
}

void announce_hsts(http_response& res, std::chrono::seconds max_age) {
  if (max_age.count() > 0)
    res.set(http::field::strict_transport_security, fmt::format("max-age={}", max_age.count()));
}

}  // namespace ringcast
