#include "net/client_start.hpp"

#include <boost/asio/post.hpp>

#include <optional>
#include <string>

#include "net/poll_connection.hpp"
#include "net/sse_connection.hpp"
#include "net/ws_connection.hpp"

namespace ringcast {
namespace {

// The refusal of a connect for want of a session (docs/protocol.md, "Sessions").
std::optional<http_response> refusal(connection_context& home, const admission& admitted) {
  const auto room = home.sessions().make_room(admitted.params.user, admitted.params.sid);
  if (room == hub::room::ok) return std::nullopt;
  auto res = room == hub::room::over_total
                 ? error_response(http_status::service_unavailable, "overloaded",
                                  "too many sessions (--max-sessions)", admitted.request)
                 : error_response(http_status::too_many_requests, "too_many",
                                  "every session this user may hold is connected "
                                  "(--max-sessions-per-user)",
                                  admitted.request);
  res.set(boost::beast::http::field::retry_after,
          std::to_string(home.settings().connect_retry_after.count()));
  add_cors_headers(res, admitted.cors);
  return res;
}

void subscribe(connection_context& home, connection_parts parts, admission admitted,
               bool known_elsewhere, http_resume resume) {
  switch (admitted.endpoint) {
    case transport::ws:
      ws_connection::start(home, std::move(parts), std::move(admitted), known_elsewhere);
      break;
    case transport::sse:
      sse_connection::start(home, std::move(parts), admitted, known_elsewhere);
      break;
    case transport::poll:
      poll_connection::start(home, std::move(parts), std::move(admitted), known_elsewhere, resume);
      break;
  }
}

// On the session's loop. With --redis the session may live on another node: take it over first,
// so that node closes its connection and this one answers `resumed` truthfully. `held` keeps the
// user's slot on this loop until the transport has attached (synchronously) and its session counts.
void claim_and_subscribe(connection_context& home, connection_parts parts, admission admitted,
                         home_slots::ticket held, http_resume resume, http_refusal answer) {
  // Before the claim: a connect refused here must not take the session from another node.
  if (auto refused = refusal(home, admitted)) {
    answer(home, std::move(parts), std::move(*refused));
    return;
  }
  if (!home.sessions_shared()) {  // no other node to claim from
    subscribe(home, std::move(parts), std::move(admitted), /*known_elsewhere=*/false, resume);
    return;  // `held` goes now: the session, if the transport made one, counts in the slot itself
  }
  struct waiting {
    connection_parts parts;
    admission admitted;
    home_slots::ticket held;
  };
  // Shared, since the claim's callback is a std::function, which must be copyable.
  auto w =
      std::make_shared<waiting>(waiting{std::move(parts), std::move(admitted), std::move(held)});
  home.claim_session(
      w->admitted.params.user, w->admitted.params.sid, [&home, w, resume](bool known_elsewhere) {
        subscribe(home, std::move(w->parts), std::move(w->admitted), known_elsewhere, resume);
        w->held = {};  // the session, if the transport made one, counts in the slot itself
      });
}

}  // namespace

void start_client(connection_context& ctx, connection_parts parts, admission admitted,
                  http_resume resume, http_refusal answer) {
  session_home where = ctx.home_of(admitted.params.user);
  connection_context& home = where.loop;
  home_slots::ticket held = std::move(where.held);
  if (&home == &ctx) {
    claim_and_subscribe(home, std::move(parts), std::move(admitted), std::move(held), resume,
                        answer);
    return;
  }
  ++ctx.stats().connects_handed;
  auto detached = parts.detach();
  if (!detached) return;
  boost::asio::post(home.io(),
                    [&home, detached = std::move(*detached), admitted = std::move(admitted),
                     held = std::move(held), resume, answer]() mutable {
                      if (auto adopted = connection_parts::adopt(home, std::move(detached))) {
                        claim_and_subscribe(home, std::move(*adopted), std::move(admitted),
                                            std::move(held), resume, answer);
                      }
                    });
}

}  // namespace ringcast
