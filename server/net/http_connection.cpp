#include "net/http_connection.hpp"

#include <boost/beast/http/error.hpp>
#include <boost/beast/http/read.hpp>
#include <boost/beast/http/write.hpp>

#include <algorithm>
#include <array>

#include "api/route_table.hpp"
#include "core/log.hpp"
#include "net/origin_check.hpp"
#include "protocol/host_policy.hpp"
#include "protocol/http_framing.hpp"
#include "tls/tls_context.hpp"

namespace ringcast {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;

namespace {

constexpr std::size_t header_limit = 8 * 1024;

std::string_view path_of(std::string_view target) {
  return target.substr(0, target.find('?'));
}

}  // namespace

void http_connection::start(connection_context& ctx, stream_socket socket, slot_type slot,
                            accepted how) {
  const auto tls = ctx.tls();
  if (!tls) {
    auto c =
        std::make_shared<http_connection>(ctx, net_stream(std::move(socket)), std::move(slot),
                                          std::move(how.address), how.peer, beast::flat_buffer{});
    c->arm_deadline(waiting::first_request);
    // Read at once: the request is usually here already. The client writes it as soon as its
    // connect() returns, while the loop is still being woken for the listening socket (measured
    // in docs/performance.md §21); when it is not, read_header_bytes waits for it.
    c->read_request();
    return;
  }
  tls_session session = tls->new_session(socket.native_handle());
  if (!session) {
    log_warn("TLS: cannot start a session: {}", last_tls_error().message());
    return;  // the socket closes as it goes out of scope
  }
  std::make_shared<http_connection>(ctx, net_stream(std::move(socket), std::move(session)),
                                    std::move(slot), std::move(how.address), how.peer,
                                    beast::flat_buffer{})
      ->handshake();
}

void http_connection::resume(connection_context& ctx, connection_parts parts) {
  adopt(ctx, std::move(parts), 0);
}

void http_connection::adopt(connection_context& ctx, connection_parts parts,
                            std::size_t allowance) {
  auto c = std::make_shared<http_connection>(ctx, std::move(parts.stream), std::move(parts.slot),
                                             std::move(parts.address), parts.peer,
                                             std::move(parts.buffer));
  c->header_allowance_ = allowance;
  c->arm_deadline(waiting::next_request);
  c->read_request();
}

void http_connection::answer(connection_context& ctx, connection_parts parts, http_response res) {
  auto c = std::make_shared<http_connection>(ctx, std::move(parts.stream), std::move(parts.slot),
                                             std::move(parts.address), parts.peer,
                                             std::move(parts.buffer));
  c->reply(std::move(res));
}

http_connection::http_connection(connection_context& ctx, net_stream stream, slot_type slot,
                                 address_limits::slot address, asio::ip::address peer,
                                 beast::flat_buffer buffer)
    : loop_timer(ctx.timers()),
      registered_connection(ctx.connections(), connection_kind::http, connection_state::busy),
      ctx_(ctx),
      stream_(std::move(stream)),
      buffer_(std::move(buffer)),
      slot_(std::move(slot)),
      address_(std::move(address)),
      peer_(peer) {}

// The first deadline covers the TLS handshake and the request that follows it; later ones, the
// wait for the next request and its reading.
void http_connection::arm_deadline(waiting what) {
  waiting_ = what;
  const auto& s = ctx_.settings();
  arm_at(ctx_.now() + (what == waiting::first_request ? s.handshake_timeout : s.keepalive_timeout));
  set_state(connection_state::idle);
}

void http_connection::handshake() {
  arm_deadline(waiting::first_request);
  handshaking_ = true;
  stream_.async_handshake(
      [self = shared_from_this()](beast::error_code ec) { self->on_handshake(ec); });
}

void http_connection::on_handshake(beast::error_code ec) {
  handshaking_ = false;
  if (closing_) return;
  if (ec == tls_errc::plain_http) {
    refuse_plaintext();
    return;
  }
  if (ec) {
    const bool hung_up_silent = ec == asio::error::eof && !stream_.handshake_started();
    ++(hung_up_silent ? ctx_.stats().unused : ctx_.stats().tls_failed);
    close();
    return;
  }
  read_request();
}

// The header block is gathered whole first, so that its raw bytes can be checked (obs-fold)
// before Beast joins them, and the framing is checked before Beast reads any body.
void http_connection::read_request() {
  parser_.emplace();
  parser_->header_limit(static_cast<std::uint32_t>(header_limit + header_allowance_));
  // No limit while the header is read: judge_body sets the route's once the header is judged, so
  // that a large Content-Length without the admin token gets 401, not 413.
  parser_->body_limit(boost::none);
  scanned_ = 0;
  if (ctx_.connections().handing_over() && !stream_.secure()) return park();
  read_header_bytes();
}

// Reads what the socket holds and parses the header as soon as it is whole, on this turn of the
// loop: an asynchronous read that completes at once, or Beast's header read of bytes already
// here, would each post its completion and wait behind a turn of the reactor (docs/performance.md
// §20). Only a socket with nothing to read is waited for.
void http_connection::read_header_bytes() {
  if (buffer_.size() == 0 && header_allowance_ == 0 && read_header_in_place()) return;
  const std::size_t limit = header_limit + header_allowance_;
  for (;;) {
    const std::string_view bytes(static_cast<const char*>(buffer_.data().data()),
                                 buffer_.data().size());
    if (const auto end = header_block_end(bytes, scanned_)) {
      // Whole in the buffer: Beast does not measure a header it need not wait for, so the limit
      // is ours to apply.
      if (*end > limit) return refuse_header_too_large();
      if (has_obs_fold(bytes.substr(0, *end)))
        return refuse_request(http_status::bad_request, "bad_request",
                              "a header line folded onto the next (obs-fold)");
      beast::error_code ec;
      buffer_.consume(parse_header(buffer_.data(), ec));
      return on_header(ec);
    }
    if (bytes.size() >= limit) return refuse_header_too_large();
    scanned_ = bytes.size();
    beast::error_code ec;
    const std::size_t n = stream_.read_now(buffer_.prepare(limit - bytes.size()), ec);
    buffer_.commit(n);
    if (ec == asio::error::would_block) return wait_for_header_bytes();
    if (ec) return on_read(ec);
  }
}

// A request head usually arrives whole, in the first read of a request. That read goes to the
// loop thread's scratch, where the head is parsed, so that such a connection needs no read buffer
// of its own: a fresh 8 KB one per connect was cold memory, and most of the heap's growth and page
// faults on the connect path (docs/performance.md §23). Only bytes after the head (a body, a
// pipelined request) are kept, in buffer_. False when the head is not whole: what was read is
// then in buffer_, for read_header_bytes to go on with.
bool http_connection::read_header_in_place() {
  thread_local std::array<char, header_limit> scratch;  // each loop's thread, used synchronously
  beast::error_code ec;
  const std::size_t n = stream_.read_now(asio::buffer(scratch), ec);
  if (ec == asio::error::would_block) {
    wait_for_header_bytes();
    return true;
  }
  if (ec) {
    on_read(ec);
    return true;
  }
  const std::string_view bytes(scratch.data(), n);
  const auto end = header_block_end(bytes);
  if (!end || has_obs_fold(bytes.substr(0, *end))) {
    // Not whole, or refused by the buffered path as it reads it again.
    buffer_.commit(asio::buffer_copy(buffer_.prepare(n), asio::buffer(bytes)));
    return false;
  }
  const auto rest = bytes.substr(parse_header(asio::buffer(bytes), ec));
  buffer_.commit(asio::buffer_copy(buffer_.prepare(rest.size()), asio::buffer(rest)));
  on_header(ec);
  return true;
}

void http_connection::wait_for_header_bytes() {
  stream_.async_wait_readable([self = shared_from_this()](beast::error_code ec) {
    // Cut short by begin_handover: parked with what was read, which the new binary parses.
    const bool parks = self->ctx_.connections().handing_over() && !self->stream_.secure() &&
                       (!ec || ec == asio::error::operation_aborted);
    if (parks && !self->closing_) return self->park();
    if (ec || self->closing_) return self->on_read(ec);
    self->read_header_bytes();
  });
}

// The header block is whole in `bytes` (read_header_bytes): Beast's parser takes it here, as its
// header read would from the buffer without reading the socket. Returns the bytes it used.
std::size_t http_connection::parse_header(asio::const_buffer bytes, beast::error_code& ec) {
  std::size_t used = 0;
  while (!ec && !parser_->is_header_done()) {
    const std::size_t n = parser_->put(bytes + used, ec);
    used += n;
    if (ec == http::error::need_more && n > 0) ec = {};
    if (n == 0 && !ec) ec = http::error::need_more;  // cannot be: the block is whole
  }
  return used;
}

void http_connection::on_header(beast::error_code ec) {
  header_allowance_ = 0;  // the first request's only
  if (ec || closing_) return on_read(ec);
  const auto& header = parser_->get();
  if (const auto why = framing_error(header))
    return refuse_request(http_status::bad_request, "bad_request", *why);
  if (const auto why = host_field_error(header))
    return refuse_request(http_status::bad_request, "bad_request", *why);
  if (!count_proxied_client(header)) return;
  if (has_body(header)) {
    // Judged from the header: a refused body is never read (the reply closes the connection).
    const auto route = ctx_.routes().find(path_of(header.target()));
    const auto length = parser_->content_length();  // none: chunked
    auto verdict = ctx_.routes().judge_body(
        route, header, length ? std::optional(*length) : std::nullopt, ctx_.settings());
    if (verdict.refusal) return refuse(std::move(*verdict.refusal));
    parser_->body_limit(verdict.limit);
  }
  if (parser_->is_done()) return on_read({});
  http::async_read(stream_, buffer_, *parser_,
                   [self = shared_from_this()](beast::error_code read_ec, std::size_t) {
                     self->on_read(read_ec);
                   });
}

void http_connection::on_timer(time_point) {
  if (waiting_ == waiting::linger) return close();
  // A client that began its handshake or request and did not finish it counts as `handshake`;
  // one that sent nothing as `unused`; one that simply did not reuse its keep-alive connection
  // is not an expiration.
  if (waiting_ == waiting::reply_written) {
    ++ctx_.stats().write_timeout;
  } else if (waiting_ == waiting::first_request) {
    const bool started = handshaking_ ? stream_.handshake_started() : request_started();
    ++(started ? ctx_.stats().handshake : ctx_.stats().unused);
  }
  close();
}

bool http_connection::request_started() const {
  return buffer_.size() > 0 || (parser_ && parser_->got_some());
}

// A request already on its way is read to its end (within the deadline still armed) and
// answered 503 by handle(); a connection with nothing of a request closes now.
void http_connection::on_drain() {
  if (waiting_ == waiting::linger) return close();
  if (!handshaking_ && request_started()) {
    // Parked by an upgrade the drain called off: read on, to answer the request 503.
    if (state() == connection_state::parked) unpark();
    return;
  }
  close();
}

void http_connection::close() {
  const auto self = std::move(parked_self_);  // released last
  closing_ = true;
  set_state(connection_state::busy);
  stream_.close();
}

void http_connection::on_read(beast::error_code ec) {
  set_state(connection_state::busy);
  disarm();
  if (closing_) return;
  if (ec) {
    const bool malformed =
        ec.category() == http::make_error_code(http::error::bad_target).category() &&
        ec != http::error::end_of_stream && ec != http::error::partial_message;
    if (!malformed) {
      // The peer went away, or the socket failed.
      if (waiting_ == waiting::first_request && !request_started()) ++ctx_.stats().unused;
      close();
      return;
    }
    if (ec == http::error::body_limit) {
      refuse_request(http_status::payload_too_large, "too_large", "request body over --max-body");
    } else if (ec == http::error::header_limit) {
      refuse_header_too_large();
    } else {
      refuse_request(http_status::bad_request, "bad_request", ec.message());
    }
    return;
  }
  handle(parser_->release());
}

void http_connection::handle(http_request req) {
  if (!slot_) req.keep_alive(false);  // over --max-connections: closed after its answer
  const auto path = path_of(req.target());
  const auto route = ctx_.routes().find(path);
  auto client = route.found ? route.found->client() : std::nullopt;
  // The Pusher door's /app/{key} (docs/pusher.md): a WebSocket like /ws, only with an app.
  const bool pusher_door = !client && ctx_.pusher() && path.starts_with("/app/");
  if (pusher_door) client = transport::ws;
  // A connect's Origin comes first: a page that may not connect is told so, whatever else.
  if (client) {
    auto checked = check_origin(req, *client, ctx_, peer_, stream_.secure());
    if (checked.refusal) return reply(std::move(*checked.refusal));
    if (*client != transport::ws) cors_ = std::move(checked.grant);
  }
  if (!slot_) {
    reply(error_response(http_status::service_unavailable, "overloaded",
                         "too many connections (--max-connections)", req));
    return;
  }
  if (ctx_.draining()) {
    reply(draining_response(req, ctx_.settings().drain));
    return;
  }
  // A name this server does not have: a page whose DNS name was rebound to our address.
  if (!(route.found && route.found->answers_any_host()) &&
      !host_allowed(ctx_.settings().allowed_hosts, req[http::field::host])) {
    ++ctx_.stats().refused_host;
    reply(error_response(http_status::misdirected_request, "host",
                         "this server does not answer to that Host (--allowed-hosts)", req));
    return;
  }
  if (cors_ && is_preflight(req)) return reply(preflight_response(req, *cors_));
  if (pusher_door) return connect_pusher(std::move(req));
  if (client) return connect(std::move(req), *client);
  ctx_.routes().answer(
      route, {req, route.rest, ctx_,
              [self = shared_from_this()](http_response res) { self->reply(std::move(res)); }});
}

void http_connection::reply(http_response res) {
  if (cors_) add_cors_headers(res, *cors_);  // the request's, if it was to /sse or /poll
  cors_.reset();
  if (ctx_.draining()) res.keep_alive(false);
  announce_keep_alive(res, ctx_.settings().keepalive_timeout);
  announce_hsts(res, ctx_.settings().hsts_max_age);
  auto shared = std::make_shared<http_response>(std::move(res));
  // A client that does not read its reply is closed at the write deadline (the timer closes the
  // stream, which ends the write with an error).
  waiting_ = waiting::reply_written;
  arm_at(ctx_.now() + ctx_.settings().write_timeout);
  http::async_write(stream_, *shared,
                    [self = shared_from_this(), shared](beast::error_code ec, std::size_t n) {
                      self->ctx_.stats().bytes_written += n;
                      if (ec || self->closing_) return self->close();
                      if (self->refused_) return self->close_after_reply();
                      if (!shared->keep_alive()) return self->close();
                      self->arm_deadline(waiting::next_request);
                      self->read_request();
                    });
}

}  // namespace ringcast
