#include "net/connect_check.hpp"

#include <memory>

namespace ringcast {
namespace {

namespace http = boost::beast::http;

http_response unavailable(const http_request& req, std::string_view why,
                          std::chrono::seconds retry_after) {
  auto res = error_response(http_status::service_unavailable, "unavailable", why, req);
  res.set(http::field::retry_after, std::to_string(retry_after.count()));
  return res;
}

}  // namespace

void check_with_backend(connection_context& ctx, connect_gate& gate, admission admitted,
                        std::string remote_addr,
                        std::function<void(std::variant<admission, http_response>)> done) {
  const http_request& req = admitted.request;
  connect_question q{.user = admitted.params.user,
                     .sid = admitted.params.sid,
                     .transport = std::string(name_of(admitted.endpoint)),
                     .remote_addr = std::move(remote_addr),
                     .cookie = std::string(req[http::field::cookie]),
                     .user_agent = std::string(req[http::field::user_agent]),
                     .origin = std::nullopt,
                     .host = std::string(req[http::field::host]),
                     .ts = ctx.timers().unix_ms()};
  if (const auto origin = req.find(http::field::origin); origin != req.end())
    q.origin = std::string(origin->value());
  // Shared: the verdict's callback is a std::function, which must be copyable.
  auto held = std::make_shared<admission>(std::move(admitted));
  gate.ask(q, [&ctx, held, done = std::move(done)](connect_verdict v) {
    admission& a = *held;
    const auto& settings = ctx.settings();
    // The drain began while the backend was asked: the loop has told its clients to go already.
    if (ctx.draining()) {
      a.request.keep_alive(false);
      return done(error_response(http_status::service_unavailable, "overloaded",
                                 "server is draining", a.request));
    }
    switch (v.what) {
      case connect_verdict::kind::admit:
        if (v.changes.user) a.params.user = std::move(*v.changes.user);
        if (v.changes.channels) {
          // The backend's channels are a grant, enforced as a token's (client_params.hpp):
          // a later subscribe outside them is refused. Under a token's grant too, the session
          // listens to those both allow.
          grant_channels(a.params, *v.changes.channels);
          a.params.channels = std::move(*v.changes.channels);
          keep_granted_channels(a.params);
        }
        return done(std::move(a));
      case connect_verdict::kind::refuse:
        return done(error_response(http_status::forbidden, "forbidden",
                                   "the shop's backend refused this connect", a.request));
      case connect_verdict::kind::unavailable:
        if (settings.connect_hook_fallback_allow) return done(std::move(a));
        return done(unavailable(a.request, "the connect hook did not answer; try again",
                                settings.connect_retry_after));
      case connect_verdict::kind::bad_answer:
        return done(unavailable(a.request, "the connect hook's answer was not understood",
                                settings.connect_retry_after));
      case connect_verdict::kind::overloaded:
        return done(unavailable(a.request,
                                "too many connects are being put to the connect hook "
                                "(--connect-hook-concurrency); try again",
                                settings.connect_retry_after));
    }
  });
}

}  // namespace ringcast
