#include "pusher/pusher_api_auth.hpp"

#include <charconv>
#include <optional>

#include <fmt/format.h>

#include "pusher/pusher_crypto.hpp"

namespace ringcast::pusher {
namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// %XX unescaped; '+' is left as is (the Node SDK sends it raw, meaning itself).
std::optional<std::string> unescape(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      out += text[i];
      continue;
    }
    if (i + 2 >= text.size()) return std::nullopt;
    const int high = hex_digit(text[i + 1]), low = hex_digit(text[i + 2]);
    if (high < 0 || low < 0) return std::nullopt;
    out += static_cast<char>(high * 16 + low);
    i += 2;
  }
  return out;
}

std::variant<query_parameters, api_refusal> parse_query(std::string_view query) {
  query_parameters parameters;
  while (!query.empty()) {
    const auto amp = query.find('&');
    const std::string_view pair = query.substr(0, amp);
    query = amp == std::string_view::npos ? std::string_view{} : query.substr(amp + 1);
    if (pair.empty()) continue;
    const auto eq = pair.find('=');
    auto key = unescape(pair.substr(0, eq));
    auto value = unescape(eq == std::string_view::npos ? std::string_view{} : pair.substr(eq + 1));
    if (!key || !value)
      return api_refusal{400, fmt::format("Malformed query string: bad %-escape in '{}'", pair)};
    if (parameters.size() == max_query_parameters)
      return api_refusal{400, fmt::format("Malformed query string: more than {} parameters",
                                          max_query_parameters)};
    if (!parameters.emplace(std::move(*key), std::move(*value)).second)
      return api_refusal{400, fmt::format("Malformed query string: '{}' is given more than once",
                                          pair.substr(0, eq))};
  }
  return parameters;
}

std::optional<std::int64_t> whole_number(std::string_view text) {
  std::int64_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  if (ec != std::errc{} || end != text.data() + text.size() || text.empty()) return std::nullopt;
  return n;
}

}  // namespace

std::string api_string_to_sign(std::string_view method, std::string_view path,
                               const query_parameters& parameters) {
  std::string text = fmt::format("{}\n{}\n", method, path);
  bool first = true;
  for (const auto& [key, value] : parameters) {  // std::map: sorted by key, bytewise
    if (key == "auth_signature") continue;
    if (!first) text += '&';
    first = false;
    text += key;
    text += '=';
    text += value;
  }
  return text;
}

std::variant<query_parameters, api_refusal> verify_api_request(const app& app,
                                                               const api_request& request,
                                                               std::int64_t now_seconds) {
  auto parsed = parse_query(request.query);
  if (auto* refusal = std::get_if<api_refusal>(&parsed)) return std::move(*refusal);
  auto& parameters = std::get<query_parameters>(parsed);
  for (const char* needed : {"auth_key", "auth_timestamp", "auth_version", "auth_signature"})
    if (!parameters.contains(needed))
      return api_refusal{401, fmt::format("Missing parameter: {}", needed)};
  if (parameters["auth_key"] != app.key) return api_refusal{401, "Unknown auth_key"};
  if (parameters["auth_version"] != "1.0")
    return api_refusal{401, fmt::format("Unsupported auth_version '{}': expected 1.0",
                                        parameters["auth_version"])};
  const auto timestamp = whole_number(parameters["auth_timestamp"]);
  if (!timestamp)
    return api_refusal{401, "auth_timestamp is not a whole number of seconds since 1970"};
  if (*timestamp < now_seconds - max_clock_skew_seconds ||
      *timestamp > now_seconds + max_clock_skew_seconds)
    return api_refusal{401, fmt::format("Timestamp expired: Given timestamp ({}) not within {}s "
                                        "of server time ({})",
                                        *timestamp, max_clock_skew_seconds, now_seconds)};
  if (const auto md5 = parameters.find("body_md5"); md5 != parameters.end()) {
    if (!same_in_constant_time(md5_hex(request.body), md5->second))
      return api_refusal{401, "Invalid body_md5: it is not the MD5 of the body received"};
  } else if (!request.body.empty()) {
    return api_refusal{401, "Missing parameter: body_md5 (the request has a body)"};
  }
  const std::string to_sign = api_string_to_sign(request.method, request.path, parameters);
  if (!same_in_constant_time(hmac_sha256_hex(app.secret, to_sign), parameters["auth_signature"])) {
    // What was signed here, its line breaks written \n, so that a client can see which part of
    // its own text differs; the expected signature itself is never told.
    std::string shown;
    for (const char c : to_sign)
      shown += c == '\n' ? std::string("\\n") : std::string(1, c);
    return api_refusal{401, fmt::format("Invalid signature: auth_signature is not the HMAC-SHA256 "
                                        "with the app secret of \"{}\"",
                                        shown)};
  }
  return std::move(parameters);
}

std::string signed_query(const app& app, std::string_view method, std::string_view path,
                         query_parameters parameters, std::string_view body,
                         std::int64_t timestamp) {
  parameters["auth_key"] = app.key;
  parameters["auth_timestamp"] = std::to_string(timestamp);
  parameters["auth_version"] = "1.0";
  if (!body.empty()) parameters["body_md5"] = md5_hex(body);
  std::string query;
  for (const auto& [key, value] : parameters)
    query += fmt::format("{}{}={}", query.empty() ? "" : "&", key, value);
  return fmt::format("{}&auth_signature={}", query,
                     hmac_sha256_hex(app.secret, api_string_to_sign(method, path, parameters)));
}

}  // namespace ringcast::pusher
