#include "http_connection.hpp"

#include <boost/asio/post.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>
#include <boost/beast/websocket/rfc6455.hpp>

#include "admin_api.hpp"
#include "client_token_http.hpp"
#include "log.hpp"
#include "sse_connection.hpp"
#include "web_routes.hpp"
#include "ws_connection.hpp"

namespace ringcast {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;

namespace {

constexpr std::size_t header_limit = 8 * 1024;

auto now() {
  return std::chrono::steady_clock::now();
}

std::string_view path_of(std::string_view target) {
  return target.substr(0, target.find('?'));
}

}  // namespace

void http_connection::start(event_loop& loop, tcp::socket socket, slot_type slot) {
  const auto tls = loop.owner().tls();
  if (!tls) {
    auto c = std::make_shared<http_connection>(loop, net_stream(std::move(socket)), std::move(slot),
                                               beast::flat_buffer{});
    c->arm_handshake_deadline();
    c->read_request();
    return;
  }
  tls_session session = tls->new_session(socket.native_handle());
  if (!session) {
    log_warn("TLS: cannot start a session: {}", last_tls_error().message());
    return;  // the socket closes as it goes out of scope
  }
  std::make_shared<http_connection>(loop, net_stream(std::move(socket), std::move(session)),
                                    std::move(slot), beast::flat_buffer{})
      ->handshake();
}

http_connection::http_connection(event_loop& loop, net_stream stream, slot_type slot,
                                 beast::flat_buffer buffer)
    : loop_(loop), stream_(std::move(stream)), buffer_(std::move(buffer)), slot_(std::move(slot)) {}

http_connection::~http_connection() {
  loop_.sessions().disarm(*this);
  loop_.remove_idle(*this);
  if (held_) loop_.sessions().detach(*held_, *this, now());
}

// One deadline covers the TLS handshake and the request that follows it.
void http_connection::arm_handshake_deadline() {
  loop_.sessions().arm(*this, now() + loop_.owner().settings().handshake_timeout);
  loop_.add_idle(*this);
}

void http_connection::handshake() {
  arm_handshake_deadline();
  stream_.async_handshake(
      [self = shared_from_this()](beast::error_code ec) { self->on_handshake(ec); });
}

void http_connection::on_handshake(beast::error_code ec) {
  if (closing_) return;
  if (ec == tls_errc::plain_http) {
    refuse_plaintext();
    return;
  }
  if (ec) {
    ++loop_.sessions().stats().tls_failed;
    close();
    return;
  }
  read_request();
}

// A browser or curl pointed at http:// on the TLS port gets a readable answer (as nginx gives
// one) instead of a reset: the request is still unread, so the reply goes out in plaintext.
void http_connection::refuse_plaintext() {
  ++loop_.sessions().stats().tls_failed;
  loop_.remove_idle(*this);
  http_request plain;
  plain.version(11);
  plain.keep_alive(false);
  auto res = std::make_shared<http_response>(
      error_response(http_status::bad_request, "bad_request",
                     "this port speaks TLS: use https:// or wss://", plain));
  http::async_write(stream_.socket(), *res,
                    [self = shared_from_this(), res](beast::error_code ec, std::size_t) {
                      if (ec || self->closing_) return self->close();
                      beast::error_code ignored;
                      self->stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
                      self->discard_until_eof();
                    });
}

// Closing with the client's request still unread would reset the connection, and the reset can
// overtake the reply; so the request is read and dropped until the client closes (or the
// handshake deadline, still armed, closes it).
void http_connection::discard_until_eof() {
  stream_.socket().async_read_some(buffer_.prepare(512),
                                   [self = shared_from_this()](beast::error_code ec, std::size_t) {
                                     if (ec || self->closing_) return self->close();
                                     self->discard_until_eof();
                                   });
}

void http_connection::read_request() {
  parser_.emplace();
  parser_->header_limit(header_limit);
  parser_->body_limit(loop_.owner().settings().max_body);
  http::async_read(
      stream_, buffer_, *parser_,
      [self = shared_from_this()](beast::error_code ec, std::size_t) { self->on_read(ec); });
}

void http_connection::on_timer(time_point) {
  ++loop_.sessions().stats().handshake;
  close();
}

void http_connection::close_now() {
  close();
}

void http_connection::close() {
  closing_ = true;
  loop_.remove_idle(*this);
  stream_.close();
}

void http_connection::on_read(beast::error_code ec) {
  loop_.remove_idle(*this);
  loop_.sessions().disarm(*this);
  if (closing_) return;
  if (ec) {
    const bool malformed =
        ec.category() == http::make_error_code(http::error::bad_target).category() &&
        ec != http::error::end_of_stream && ec != http::error::partial_message;
    if (!malformed) {
      close();  // the peer went away, or the socket failed
      return;
    }
    http_request bad;  // no request to echo: answer HTTP/1.1 and close
    bad.version(11);
    bad.keep_alive(false);
    if (ec == http::error::body_limit) {
      reply(error_response(http_status::payload_too_large, "too_large",
                           "request body over --max-body", bad));
    } else if (ec == http::error::header_limit) {
      reply(error_response(http_status::request_header_fields_too_large, "too_large",
                           "request line and headers over 8 KiB", bad));
    } else {
      reply(error_response(http_status::bad_request, "bad_request", ec.message(), bad));
    }
    return;
  }
  handle(parser_->release());
}

void http_connection::handle(http_request req) {
  if (!slot_) {
    req.keep_alive(false);
    reply(error_response(http_status::service_unavailable, "overloaded",
                         "too many connections (--max-connections)", req));
    return;
  }
  const std::string_view path = path_of(req.target());
  if (path == "/ws" || path == "/sse" || path == "/poll") {
    handle_client_endpoint(std::move(req), path);
    return;
  }
  auto self = shared_from_this();
  auto respond = [self](http_response res) { self->reply(std::move(res)); };
  if (path == "/healthz" || path == "/metrics" || path.starts_with("/admin/")) {
    handle_operations(loop_, req, respond);
    return;
  }
  if (path == "/demo/token") {
    const config& cfg = loop_.owner().settings();
    respond(cfg.demo && !cfg.client_secret.empty()
                ? demo_token_response(req, cfg)
                : error_response(http_status::not_found, "not_found", "no such path", req));
    return;
  }
  respond(serve_page(req, loop_.owner().settings().web_root));
}

void http_connection::handle_client_endpoint(http_request req, std::string_view path) {
  if (req.method() != http::verb::get) {
    auto res =
        error_response(http_status::method_not_allowed, "method_not_allowed", "use GET", req);
    res.set(http::field::allow, "GET");
    reply(std::move(res));
    return;
  }
  server& srv = loop_.owner();
  const auto& tokens = srv.settings().client_tokens;
  auto params = parse_client_params(req.target(), /*user_required=*/!tokens);
  if (!params) {
    reply(error_response(http_status::bad_request, "bad_request", params.error, req));
    return;
  }
  if (tokens) {
    if (auto refusal = check_client_token(*tokens, req, *params.value)) {
      reply(std::move(*refusal));
      return;
    }
  }
  if (path == "/sse" && !params.value->since) {
    if (auto last = req.find("Last-Event-ID"); last != req.end()) {
      params.value->since = parse_message_id(last->value());
      if (!params.value->since) {
        reply(error_response(http_status::bad_request, "bad_request",
                             "Last-Event-ID: expected a message id", req));
        return;
      }
    }
  }
  if (srv.draining()) {
    req.keep_alive(false);
    reply(
        error_response(http_status::service_unavailable, "overloaded", "server is draining", req));
    return;
  }
  // Every session lives on one loop; a connection for it is served there.
  event_loop& home = srv.home_loop(params.value->user, params.value->sid);
  if (&home != &loop_) {
    hand_off(home, std::move(req));
    return;
  }
  const endpoint which = path == "/poll"  ? endpoint::poll
                         : path == "/sse" ? endpoint::sse
                                          : endpoint::ws;
  if (which == endpoint::ws && !beast::websocket::is_upgrade(req)) {
    reply(error_response(http_status::upgrade_required, "bad_request",
                         "/ws expects a WebSocket upgrade", req));
    return;
  }
  if (!srv.clustered()) {
    admit(std::move(req), *params.value, which, false);
    return;
  }
  // With --redis the session may live on another node: take it over first, so that node closes
  // its connection and this one answers `resumed` truthfully.
  srv.claim_session(params.value->user, params.value->sid, loop_.context().get_executor(),
                    [self = shared_from_this(), req = std::move(req), params = *params.value,
                     which](bool known_elsewhere) mutable {
                      self->admit(std::move(req), params, which, known_elsewhere);
                    });
}

void http_connection::admit(http_request req, const client_params& params, endpoint which,
                            bool known_elsewhere) {
  switch (which) {
    case endpoint::poll:
      hold_poll(std::move(req), params, known_elsewhere);
      break;
    case endpoint::sse:
      closing_ = true;  // the stream now belongs to the SSE connection
      sse_connection::start(loop_, std::move(stream_), std::move(*slot_), params, std::move(req),
                            known_elsewhere);
      break;
    case endpoint::ws:
      closing_ = true;
      ws_connection::start(loop_, std::move(stream_), std::move(*slot_), params, std::move(req),
                           known_elsewhere);
      break;
  }
}

void http_connection::hand_off(event_loop& home, http_request req) {
  beast::error_code ec;
  auto detached = stream_.detach(ec);
  closing_ = true;
  if (ec) {
    stream_.close();
    return;
  }
  asio::post(home.context(), [&home, detached = std::move(detached), slot = std::move(slot_),
                              buffer = std::move(buffer_), req = std::move(req)]() mutable {
    auto adopted = net_stream::adopt(home.context(), std::move(detached));
    if (!adopted) return;
    std::make_shared<http_connection>(home, std::move(*adopted), std::move(slot), std::move(buffer))
        ->handle(std::move(req));
  });
}

void http_connection::hold_poll(http_request req, const client_params& params,
                                bool known_elsewhere) {
  hub& h = loop_.sessions();
  auto attached = h.attach(params, *this, now(), known_elsewhere);
  if (!attached.backlog.empty() || attached.gap) {
    h.detach(*attached.s, *this, now());
    reply(json_response(http_status::ok,
                        messages_json(attached.backlog, attached.last_id, attached.gap), req));
    return;
  }
  held_ = attached.s;
  held_request_ = std::move(req);
  if (loop_.owner().draining()) {  // admitted just as the drain began (a Redis claim was pending)
    h.end_connection(*attached.s, ending::reconnect_shutdown, now());
    return;
  }
  keep_alive_while_held_ = shared_from_this();
  watch_for_hangup();
}

// While a poll is held nothing is read (a pipelined request must wait for the reply), but a client
// that goes away should free its session at once rather than at the poll timeout: wait for the
// socket to become readable without consuming anything.
void http_connection::watch_for_hangup() {
  watching_ = true;
  stream_.socket().async_wait(
      tcp::socket::wait_read, [self = shared_from_this()](beast::error_code ec) {
        self->watching_ = false;
        if (ec || !self->held_) return;
        switch (self->stream_.probe_readable()) {
          case net_stream::readable_state::data:
            return;  // a pipelined request: it is read after the reply
          case net_stream::readable_state::nothing:
            self->watch_for_hangup();  // TLS housekeeping, or a stale wake-up
            return;
          case net_stream::readable_state::closed:
            self->abandon_poll();
            return;
        }
      });
}

void http_connection::abandon_poll() {
  loop_.sessions().detach(*std::exchange(held_, nullptr), *this, now());
  close();
  keep_alive_while_held_.reset();  // last: this may release the connection
}

void http_connection::deliver(const message_ptr& m) {
  session* s = std::exchange(held_, nullptr);
  loop_.sessions().detach(*s, *this, now());
  reply(json_response(http_status::ok, messages_json({m}, m->id, false), held_request_));
}

void http_connection::end(const ending_notice& notice) {
  held_ = nullptr;
  if (notice.why == ending::reconnect_shutdown) held_request_.keep_alive(false);
  reply(json_response(http_status::ok, notice.json, held_request_));
}

void http_connection::reply(http_response res) {
  if (loop_.owner().draining()) res.keep_alive(false);
  auto shared = std::make_shared<http_response>(std::move(res));
  auto self = shared_from_this();
  keep_alive_while_held_.reset();
  http::async_write(stream_, *shared, [self, shared](beast::error_code ec, std::size_t) {
    if (ec || !shared->keep_alive() || self->closing_) {
      self->close();
      return;
    }
    if (self->watching_) {
      beast::error_code ignored;
      self->stream_.socket().cancel(ignored);  // end the hang-up watch before reading again
    }
    self->arm_handshake_deadline();
    self->read_request();
  });
}

}  // namespace ringcast
