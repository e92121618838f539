#include "protocol/cross_origin.hpp"

#include <boost/beast/http/field.hpp>

#include <fmt/format.h>

namespace ringcast {

namespace http = boost::beast::http;

cors_grant grant_for(origin_verdict verdict, std::optional<std::string_view> origin) {
  switch (verdict) {
    case origin_verdict::listed:
    case origin_verdict::refused:
      return {std::string(*origin), true};
    case origin_verdict::any:
      return {"*", false};
    case origin_verdict::no_origin:
    case origin_verdict::same_origin:
      break;
  }
  return {};
}

void add_cors_headers(http_response& res, const cors_grant& grant) {
  res.set(http::field::vary, "Origin");
  if (grant.allow_origin.empty()) return;
  res.set(http::field::access_control_allow_origin, grant.allow_origin);
  if (grant.credentials) res.set(http::field::access_control_allow_credentials, "true");
}

std::string cors_header_lines(const cors_grant& grant) {
  std::string lines = "Vary: Origin\r\n";
  if (grant.allow_origin.empty()) return lines;
  lines += fmt::format("Access-Control-Allow-Origin: {}\r\n", grant.allow_origin);
  if (grant.credentials) lines += "Access-Control-Allow-Credentials: true\r\n";
  return lines;
}

bool is_preflight(const http_request& req) {
  return req.method() == http::verb::options &&
         req.find(http::field::access_control_request_method) != req.end();
}

http_response preflight_response(const http_request& req, const cors_grant& grant) {
  http_response res{http_status::no_content, req.version()};
  res.set(http::field::server, "ringcast");
  res.keep_alive(req.keep_alive());
  res.set(http::field::access_control_allow_methods, "GET");
  res.set(http::field::access_control_allow_headers, "Authorization, Last-Event-ID");
  res.set(http::field::access_control_max_age, "600");
  add_cors_headers(res, grant);
  return res;  // a 204 has no body and no Content-Length: nothing to prepare
}

}  // namespace ringcast
