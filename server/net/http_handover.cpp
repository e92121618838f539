// An upgrade in place, as an HTTP connection takes part in it (docs/operations.md, "Upgrading"):
// the loop's connections park at rest, are counted while busy, and move with their bytes.
#include "net/http_connection.hpp"

namespace ringcast {

bool http_connection::waiting_for_request() const {
  return (waiting_ == waiting::first_request || waiting_ == waiting::next_request) && !closing_ &&
         !refused_ && !handshaking_ && !(parser_ && parser_->got_some());
}

// TLS connections cannot move (their OpenSSL state does not cross exec): they are left alone.
void http_connection::begin_handover(connection_registry& loop) {
  loop.set_handing_over(true);
  loop.for_each<http_connection>(connection_kind::http, [](http_connection& c) {
    if (c.stream_.secure() || c.state() == connection_state::parked || !c.waiting_for_request())
      return;
    boost::system::error_code ignored;
    c.stream_.socket().cancel(ignored);  // its read ends now, with what it has read
  });
}

std::size_t http_connection::requests_in_flight(connection_registry& loop) {
  std::size_t n = 0;
  loop.for_each<http_connection>(connection_kind::http, [&](http_connection& c) { n += c.busy(); });
  return n;
}

// A request of it is being read, handled or answered; or it is a plain one that has yet to park
// (its read, cut short, has not come back). A TLS connection waiting for a request is not parked
// (it cannot move; it serves on until the exec closes it) and is not busy.
bool http_connection::busy() const {
  if (closing_ || waiting_ == waiting::linger || handshaking_) return false;
  if (!waiting_for_request()) return true;
  return state() != connection_state::parked && !stream_.secure();
}

void http_connection::end_handover(connection_registry& loop) {
  loop.set_handing_over(false);
  for (http_connection* c :
       loop.in_state<http_connection>(connection_kind::http, connection_state::parked))
    c->unpark();
}

// No operation is pending on a parked connection: it holds itself until it is read on or closed.
void http_connection::park() {
  set_state(connection_state::parked);
  parked_self_ = shared_from_this();
}

void http_connection::unpark() {
  const auto self = std::move(parked_self_);  // until its read holds it
  set_state(connection_state::idle);
  read_header_bytes();
}

// Those waiting for a request, parked or not (on_drain may end each).
void http_connection::drain_idle(connection_registry& loop) {
  auto waiting = loop.in_state<http_connection>(connection_kind::http, connection_state::idle);
  const auto parked =
      loop.in_state<http_connection>(connection_kind::http, connection_state::parked);
  waiting.insert(waiting.end(), parked.begin(), parked.end());
  for (http_connection* c : waiting)
    c->on_drain();
}

void http_connection::capture_loop(connection_registry& loop, std::vector<moved_http>& out) {
  loop.for_each<http_connection>(connection_kind::http, [&](http_connection& c) {
    if (c.state() == connection_state::busy) return;
    if (auto m = c.hand_over()) out.push_back(std::move(*m));
  });
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
