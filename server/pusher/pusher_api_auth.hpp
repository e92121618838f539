// The signature of a request to the Pusher HTTP API (/apps/{app_id}/..., docs/pusher.md "HTTP
// API"), as the `pusher` SDKs make it: the query carries auth_key, auth_timestamp (Unix seconds),
// auth_version=1.0, body_md5 (hex MD5 of the body, when there is one) and auth_signature, the hex
// HMAC-SHA256 with the app secret of
//   METHOD "\n" path "\n" every other query parameter as key=value, sorted by key, joined by "&"
// with the values as sent unescaped (the Node SDK sends them raw, the PHP SDK percent-encoded:
// both sign the unescaped text).
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <string_view>
#include <variant>

#include "pusher/pusher_app.hpp"

namespace ringcast::pusher {

// A request more than this far from the server's clock, either way, is refused (a replay window).
inline constexpr std::int64_t max_clock_skew_seconds = 600;
inline constexpr std::size_t max_query_parameters = 64;

struct api_request {
  std::string_view method;  // as in the request line: GET, POST
  std::string_view path;    // the request target before '?', not unescaped
  std::string_view query;   // after '?', as sent
  std::string_view body;
};

// The query's parameters, unescaped, by name (auth_* and body_md5 included).
using query_parameters = std::map<std::string, std::string, std::less<>>;

// An answer as Pusher gives it: a status (400 a malformed query, 401 a failed signature) and a
// text body saying why, never the signature that was expected.
struct api_refusal {
  int status = 0;
  std::string body;
};

// The parameters of a signed request, or the refusal.
std::variant<query_parameters, api_refusal> verify_api_request(const app& app,
                                                               const api_request& request,
                                                               std::int64_t now_seconds);

// What auth_signature signs: METHOD\npath\nk=v&k=v... without auth_signature.
std::string api_string_to_sign(std::string_view method, std::string_view path,
                               const query_parameters& parameters);

// A signed query string for a request of ours (the load tool's Pusher mode publishes through the
// HTTP API; tests sign with it): `parameters` plus the auth ones, values unescaped as the Node SDK
// sends them.
std::string signed_query(const app& app, std::string_view method, std::string_view path,
                         query_parameters parameters, std::string_view body,
                         std::int64_t timestamp);

}  // namespace ringcast::pusher
