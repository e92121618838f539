// GET / (storefront), /admin (admin page) and their assets, embedded or from --web-root. Every
// file goes out with X-Content-Type-Options: nosniff; a page also with a Content-Security-Policy
// that allows what web/ uses and no framing, X-Frame-Options: DENY and Referrer-Policy.
#pragma once

#include <string>

#include "protocol/http_reply.hpp"

namespace ringcast {

// A GET or HEAD (the route table answers other methods 405).
http_response serve_page(const http_request& req, const std::string& web_root);
// GET /openapi.yaml: docs/openapi.yaml as built into the binary (also under --web-root, which holds
// the pages only).
http_response serve_api_document(const http_request& req);

}  // namespace ringcast
