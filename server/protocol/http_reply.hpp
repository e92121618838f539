// HTTP responses with JSON bodies, including the error shape of docs/protocol.md, "Admin and
// operations".
#pragma once

#include <boost/beast/http/message.hpp>
#include <boost/beast/http/string_body.hpp>

#include <chrono>
#include <string>
#include <string_view>

namespace ringcast {

using http_request = boost::beast::http::request<boost::beast::http::string_body>;
using http_response = boost::beast::http::response<boost::beast::http::string_body>;
using http_status = boost::beast::http::status;

http_response make_response(http_status status, std::string body, std::string_view content_type,
                            const http_request& req);
http_response json_response(http_status status, std::string body, const http_request& req);
// {"error":"<code>","message":"..."}
http_response error_response(http_status status, std::string_view code, std::string_view message,
                             const http_request& req);
// 401 {"error":"unauthorized",...} with the `WWW-Authenticate: Bearer` challenge.
http_response unauthorized_response(std::string_view message, const http_request& req);

// 503 {"error":"overloaded",...} (the code docs/protocol.md gives a draining server) with
// `Retry-After` (the drain window in whole seconds, at least 1) and `Connection: close`: the answer
// to a request read while the server drains.
http_response draining_response(const http_request& req, std::chrono::milliseconds drain);

// Says how long the server keeps the connection open for the next request: `Keep-Alive:
// timeout=N` in whole seconds, rounded down, so a client that reuses its pooled connection just
// before N never meets the server's close. Under one second, the connection closes instead.
void announce_keep_alive(http_response& res, std::chrono::milliseconds timeout);

// `Strict-Transport-Security: max-age=N` (--hsts) on a reply over TLS: browsers then use only
// https for this host for N seconds. 0: nothing is added.
void announce_hsts(http_response& res, std::chrono::seconds max_age);

}  // namespace ringcast
