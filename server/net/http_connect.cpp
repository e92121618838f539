// http_connection's per-address accounting and its connects to /ws, /sse and /poll: the client's
// address, the connection counted under it when a trusted proxy names it, the connect rate, the
// admission and the connect hook, then the client's transport.
#include <boost/beast/http/field.hpp>

#include "core/repeated_warning.hpp"
#include "net/client_start.hpp"
#include "net/connect_check.hpp"
#include "net/http_connection.hpp"
#include "net/pusher_connection.hpp"
#include "protocol/client_address.hpp"

namespace ringcast {

namespace http = boost::beast::http;

namespace {

repeated_warning& refusals() {
  static repeated_warning warning;  // every loop's: logged at most once a second
  return warning;
}

}  // namespace

boost::asio::ip::address http_connection::client_of(const http_request& req) const {
  std::vector<std::string_view> forwarded_for;
  for (auto [f, end] = req.equal_range("X-Forwarded-For"); f != end; ++f)
    forwarded_for.emplace_back(f->value().data(), f->value().size());
  return client_address(peer_, forwarded_for, ctx_.settings().trusted_proxies);
}

// The listener counted every other connection at accept(). A proxy's connection may carry the
// requests of one client after another: it counts under the latest.
bool http_connection::count_proxied_client(const http_request& header) {
  if (!in_ranges(ctx_.settings().trusted_proxies, peer_)) return true;
  const auto client = client_of(header);
  address_ = {};  // released first: the same client again needs no second place
  auto outcome = ctx_.client_addresses().open_connection(client, ctx_.now());
  if (outcome.refused == address_limits::refusal::none) {
    address_ = std::move(outcome.held);
    return true;
  }
  refusals().warn(ctx_.now(), "{}: refused 503 over --max-connections-per-ip", client.to_string());
  refuse(error_response(http_status::service_unavailable, "overloaded",
                        "too many connections from this address (--max-connections-per-ip)",
                        header));
  return false;
}

bool http_connection::within_connect_rate(const http_request& req) {
  const auto client = client_of(req);
  const auto outcome = ctx_.client_addresses().connect(client, ctx_.now());
  if (outcome.refused == address_limits::refusal::none) return true;
  refusals().warn(ctx_.now(), "{}: refused 429 over --connect-rate-per-ip", client.to_string());
  auto res = error_response(http_status::too_many_requests, "too_many",
                            "connecting too often from this address (--connect-rate-per-ip)", req);
  res.set(http::field::retry_after, std::to_string(outcome.retry_after.count()));
  reply(std::move(res));
  return false;
}

// A connect to /ws, /sse or /poll: its address's connect rate, the admission, the connect hook
// if any, then its transport.
void http_connection::connect(http_request req, transport which) {
  if (!within_connect_rate(req)) return;  // refused, and answered
  auto outcome = admit(std::move(req), which, ctx_, cors_.value_or(cors_grant{}));
  connect_gate* gate = ctx_.connect_hook();
  if (!gate || std::holds_alternative<http_response>(outcome)) return proceed(std::move(outcome));
  check_with_backend(ctx_, *gate, std::get<admission>(std::move(outcome)), peer_.to_string(),
                     [self = shared_from_this()](std::variant<admission, http_response> v) {
                       self->proceed(std::move(v));
                     });
}

// The Pusher door: its address's connect rate and a place among the sessions, then the upgrade on
// this loop (a Pusher session has no resume, so it needs no home loop and no claim). A key or
// protocol the door refuses is told so after the upgrade, as Pusher does.
void http_connection::connect_pusher(http_request req) {
  if (!within_connect_rate(req)) return;  // refused, and answered
  pusher_door& door = *ctx_.pusher();
  auto refused = pusher_connection::refusal_of(req.target(), door);
  std::string socket_id = pusher_connection::next_socket_id();
  if (!refused) {
    const auto room =
        ctx_.sessions().make_room(pusher_connection::session_user(socket_id), socket_id);
    if (room != hub::room::ok) {
      auto res = error_response(http_status::service_unavailable, "overloaded",
                                "too many sessions (--max-sessions)", req);
      res.set(http::field::retry_after,
              std::to_string(ctx_.settings().connect_retry_after.count()));
      return reply(std::move(res));
    }
  }
  closing_ = true;  // the stream now belongs to the Pusher connection
  pusher_connection::start(
      ctx_, {std::move(stream_), std::move(buffer_), std::move(*slot_), std::move(address_), peer_},
      std::move(req), std::move(refused), std::move(socket_id));
}

void http_connection::proceed(std::variant<admission, http_response> outcome) {
  if (auto* refusal = std::get_if<http_response>(&outcome)) {
    reply(std::move(*refusal));
    return;
  }
  closing_ = true;  // the stream now belongs to the client's transport
  start_client(
      ctx_, {std::move(stream_), std::move(buffer_), std::move(*slot_), std::move(address_), peer_},
      std::get<admission>(std::move(outcome)), &http_connection::resume, &http_connection::answer);
}

}  // namespace ringcast
