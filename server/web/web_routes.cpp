#include "web_routes.hpp"

#include "web_assets.hpp"

namespace ringcast {

namespace http = boost::beast::http;

http_response serve_page(const http_request& req, const std::string& web_root) {
  if (req.method() != http::verb::get && req.method() != http::verb::head) {
    auto res =
        error_response(http_status::method_not_allowed, "method_not_allowed", "use GET", req);
    res.set(http::field::allow, "GET, HEAD");
    return res;
  }
  const std::string_view target = req.target();
  if (!web_root.empty()) {
    if (auto file = read_asset_from(web_root, target)) {
      return make_response(http_status::ok, std::move(file->body), file->content_type, req);
    }
  } else if (auto asset = find_embedded_asset(target)) {
    return make_response(http_status::ok, std::string(asset->body), asset->content_type, req);
  }
  return error_response(http_status::not_found, "not_found", "no such path", req);
}

}  // namespace ringcast
