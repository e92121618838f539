// An upgrade in place, as an HTTP connection takes part in it (docs/operations.md, "Upgrading"):
// the loop's connections park at rest, are counted while busy, and move with their bytes.
#include <algorithm>

#include "http_connection.hpp"

namespace ringcast {

thread_local std::unordered_set<http_connection*> http_connection::loop_connections_;
thread_local bool http_connection::handing_over_ = false;

bool http_connection::waiting_for_request() const {
  return (waiting_ == waiting::first_request || waiting_ == waiting::next_request) && !closing_ &&
         !refused_ && !handshaking_ && !(parser_ && parser_->got_some());
}

// TLS connections cannot move (their OpenSSL state does not cross exec): they are left alone.
void http_connection::begin_handover() {
  handing_over_ = true;
  for (http_connection* c : loop_connections_) {
    if (c->stream_.secure() || c->parked_ || !c->waiting_for_request()) continue;
    boost::system::error_code ignored;
    c->stream_.socket().cancel(ignored);  // its read ends now, with what it has read
  }
}

std::size_t http_connection::requests_in_flight() {
  return static_cast<std::size_t>(std::count_if(loop_connections_.begin(), loop_connections_.end(),
                                                [](auto* c) { return c->busy(); }));
}

// A request of it is being read, handled or answered; or it is a plain one that has yet to park
// (its read, cut short, has not come back). A TLS connection waiting for a request is not parked
// (it cannot move; it serves on until the exec closes it) and is not busy.
bool http_connection::busy() const {
  if (closing_ || waiting_ == waiting::linger || handshaking_) return false;
  if (!waiting_for_request()) return true;
  return !parked_ && !stream_.secure();
}

void http_connection::end_handover() {
  handing_over_ = false;
  std::vector<http_connection*> parked;
  for (http_connection* c : loop_connections_) {
    if (c->parked_) parked.push_back(c);
  }
  for (http_connection* c : parked) {
    const auto self = std::move(c->parked_self_);  // until its read holds it
    c->parked_ = false;
    c->read_header_bytes();
  }
}

// No operation is pending on a parked connection: it holds itself until it is read on or closed.
void http_connection::park() {
  parked_ = true;
  parked_self_ = shared_from_this();
}

// Only a plain connection waiting for a request of which nothing is parsed yet moves: every byte
// of it is in the buffer (a header is gathered whole before the parser sees it).
std::optional<moved_http> http_connection::hand_over() {
  if (!waiting_for_request() || stream_.secure()) return std::nullopt;
  moved_http m;
  m.fd = stream_.socket().native_handle();
  boost::system::error_code ec;
  m.v6 = stream_.socket().local_endpoint(ec).address().is_v6();
  if (ec) return std::nullopt;
  const auto read = buffer_.data();
  m.unread.assign(static_cast<const char*>(read.data()), read.size());
  return m;
}

}  // namespace ringcast
