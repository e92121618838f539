#include "web/web_routes.hpp"

#include "web/web_assets.hpp"

namespace ringcast {

namespace http = boost::beast::http;

namespace {

// A Host fit to be written into a header: a name or address and a port, nothing that could
// end a CSP directive (it is the requester's own, but a cache could keep it for others).
bool plain_host(std::string_view host) {
  return !host.empty() && host.size() <= 261 &&
         host.find_first_not_of(
             "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789.-:[]") ==
             std::string_view::npos;
}

// What web/ uses and nothing more: its own module scripts and style sheet (no inline script,
// style or handler), fetch and EventSource to itself, WebSocket to itself ('self' covers ws: and
// wss: of the same host in CSP 3 browsers; the explicit sources, in older ones). It may not be
// framed (clickjacking on the admin page's publish and kick buttons).
std::string content_security_policy(std::string_view host) {
  std::string connect = "'self'";
  if (plain_host(host)) {
    connect += " ws://";
    connect += host;
    connect += " wss://";
    connect += host;
  }
  return "default-src 'none'; script-src 'self'; style-src 'self'; img-src 'self'; "
         "connect-src " +
         connect + "; base-uri 'none'; form-action 'self'; frame-ancestors 'none'";
}

http_response hardened(http_response res, const http_request& req) {
  res.set("X-Content-Type-Options", "nosniff");
  if (res[http::field::content_type].starts_with("text/html")) {
    res.set("Content-Security-Policy", content_security_policy(req[http::field::host]));
    res.set(http::field::x_frame_options, "DENY");
    res.set("Referrer-Policy", "no-referrer");
  }
  return res;
}

// A HEAD is answered as its GET would be, Content-Length included, without the body (RFC 9110
// 9.3.2: a client reads none, so body bytes would be taken for the next response).
http_response head_or_get(http_response res, const http_request& req) {
  if (req.method() != http::verb::head) return res;
  const auto length = res.body().size();
  res.body().clear();
  res.content_length(length);
  return res;
}

http_response page_for(const http_request& req, const std::string& web_root) {
  const std::string_view target = req.target();
  if (!web_root.empty()) {
    if (auto file = read_asset_from(web_root, target)) {
      return hardened(
          make_response(http_status::ok, std::move(file->body), file->content_type, req), req);
    }
  } else if (auto asset = find_embedded_asset(target)) {
    return hardened(
        make_response(http_status::ok, std::string(asset->body), asset->content_type, req), req);
  }
  return error_response(http_status::not_found, "not_found", "no such path", req);
}

}  // namespace

http_response serve_page(const http_request& req, const std::string& web_root) {
  return head_or_get(page_for(req, web_root), req);
}

http_response serve_api_document(const http_request& req) {
  // Embedded by the build (server/CMakeLists.txt) with the pages, so always there.
  const auto doc = find_embedded_asset("/openapi.yaml");
  if (!doc) return error_response(http_status::not_found, "not_found", "no such path", req);
  return hardened(make_response(http_status::ok, std::string(doc->body), doc->content_type, req),
                  req);
}

}  // namespace ringcast
