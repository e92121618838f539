// GET / (storefront), /admin (admin page) and their assets, embedded or from --web-root.
#pragma once

#include <string>

#include "http_reply.hpp"

namespace ringcast {

http_response serve_page(const http_request& req, const std::string& web_root);

}  // namespace ringcast
