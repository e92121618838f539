#include "net/origin_check.hpp"

#include <boost/beast/http/field.hpp>

#include <algorithm>
#include <string>

#include "core/repeated_warning.hpp"
#include "protocol/client_address.hpp"

namespace ringcast {

namespace http = boost::beast::http;

namespace {

// An Origin as a log line may show it: the client wrote it, so it is cut short and anything
// unprintable becomes '?'.
std::string printable(std::string_view text) {
  constexpr std::size_t most = 120;
  std::string out(text.substr(0, most));
  std::replace_if(
      out.begin(), out.end(), [](char c) { return c < 0x20 || c > 0x7e; }, '?');
  if (text.size() > most) out += "...";
  return out;
}

std::string_view path_of(std::string_view target) {
  return target.substr(0, target.find('?'));
}

}  // namespace

origin_check check_origin(const http_request& req, transport which, connection_context& ctx,
                          const boost::asio::ip::address& peer, bool tls) {
  static repeated_warning refusals;  // every loop's: logged at most once a second
  const auto& settings = ctx.settings();
  const auto field = req.find(http::field::origin);
  const auto origin =
      field == req.end() ? std::nullopt : std::optional<std::string_view>(field->value());
  const auto proto = req.find("X-Forwarded-Proto");
  const bool trusted =
      std::any_of(settings.trusted_proxies.begin(), settings.trusted_proxies.end(),
                  [&](const address_range& r) { return r.contains(canonical(peer)); });
  const std::string_view scheme = own_scheme(
      tls, trusted,
      proto == req.end() ? std::nullopt : std::optional<std::string_view>(proto->value()));
  const std::string_view host = req[http::field::host];
  const origin_verdict verdict = judge_origin(settings.allowed_origins, origin, {scheme, host});

  origin_check out;
  if (which != transport::ws) out.grant = grant_for(verdict, origin);
  if (verdict != origin_verdict::refused) return out;
  ++ctx.stats().refused_origin;
  refusals.warn(
      ctx.now(),
      "{}: refused 403 a page of origin {}: not this server's own ({}://{}) nor listed "
      "in --allowed-origins ({}); add it there to admit it",
      path_of(req.target()), printable(*origin), scheme, printable(host),
      settings.allowed_origins_text.empty() ? "none given" : settings.allowed_origins_text);
  out.refusal =
      error_response(http_status::forbidden, "origin",
                     "a page of another site may not connect here (--allowed-origins)", req);
  add_cors_headers(*out.refusal, out.grant);
  return out;
}

}  // namespace ringcast
