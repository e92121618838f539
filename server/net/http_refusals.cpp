// How an HTTP connection refuses: a request it cannot read (malformed, too large, ambiguous
// framing) or plain HTTP on the TLS port is answered, then the connection closes without a reset
// that could overtake the answer (the client's last bytes are read and dropped).
#include <boost/beast/http/write.hpp>

#include "net/http_connection.hpp"

namespace ringcast {

namespace beast = boost::beast;
namespace http = beast::http;
using tcp = boost::asio::ip::tcp;

namespace {

// How long a connection refused for a malformed request reads and drops what the client still
// sends before it is closed (see close_after_reply).
constexpr auto linger = std::chrono::seconds(2);

}  // namespace

// A browser or curl pointed at http:// on the TLS port gets a readable answer (as nginx gives
// one) instead of a reset: the request is still unread, so the reply goes out in plaintext.
void http_connection::refuse_plaintext() {
  ++ctx_.stats().tls_failed;
  set_state(connection_state::busy);
  http_request plain;
  plain.version(11);
  plain.keep_alive(false);
  auto res = std::make_shared<http_response>(
      error_response(http_status::bad_request, "bad_request",
                     "this port speaks TLS: use https:// or wss://", plain));
  http::async_write(stream_.socket(), *res,
                    [self = shared_from_this(), res](beast::error_code ec, std::size_t n) {
                      self->ctx_.stats().bytes_written += n;
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

void http_connection::refuse_request(http_status status, std::string_view code,
                                     std::string_view message, std::string_view allow) {
  http_request bad;  // no request to echo: answer HTTP/1.1 and close
  bad.version(11);
  auto res = error_response(status, code, message, bad);
  if (!allow.empty()) res.set(http::field::allow, allow);
  refuse(std::move(res));
}

void http_connection::refuse(http_response res) {
  set_state(connection_state::busy);
  disarm();
  refused_ = true;
  res.keep_alive(false);
  reply(std::move(res));
}

void http_connection::refuse_header_too_large() {
  refuse_request(http_status::request_header_fields_too_large, "too_large",
                 "request line and headers over 8 KiB");
}

// Closing with bytes of the client still unread would reset the connection, and the reset can
// overtake the reply: so our side is shut, and what the client still sends is read and dropped
// until it closes, for at most `linger`.
void http_connection::close_after_reply() {
  beast::error_code ignored;
  stream_.socket().shutdown(tcp::socket::shutdown_send, ignored);
  waiting_ = waiting::linger;
  arm_at(ctx_.now() + linger);
  set_state(connection_state::idle);
  discard_until_eof();
}

}  // namespace ringcast
