// One TCP connection speaking HTTP/1.1, over TLS with --tls-cert: reads requests (the TLS
// handshake and the first request within --handshake-timeout, later ones within
// --keepalive-timeout, each reply within --write-timeout), looks each up once in the route table
// (route_table.hpp), which answers the admin API and the pages, and gives admitted client
// connects to their transport (client_start). Nothing here holds a client. A request's body is
// read only once its header has been judged (route_table::judge_body). Connect handling is in
// http_connect.cpp, the refusals in http_refusals.cpp, the upgrade's part in http_handover.cpp.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/http/parser.hpp>

#include <memory>
#include <optional>
#include <variant>

#include "net/accepted_socket.hpp"
#include "net/admission.hpp"
#include "net/connection_parts.hpp"
#include "protocol/http_reply.hpp"
#include "tls/stream_socket.hpp"

namespace ringcast {

class http_connection final : public loop_timer,
                              public registered_connection,
                              public std::enable_shared_from_this<http_connection> {
 public:
  using slot_type = std::optional<connection_limit::slot>;  // none: over --max-connections

  // A freshly accepted socket, counted against its address (none from a trusted proxy: counted
  // under its client once a request head names it).
  static void start(connection_context& ctx, stream_socket socket, slot_type slot, accepted how);
  // A connection whose long-poll was answered, reading its next request (keep-alive).
  static void resume(connection_context& ctx, connection_parts parts);
  // A connection handed over by an upgrade in place: as resume, but its first request may be
  // `allowance` bytes over the header limit (a held poll's, rewritten: poll_connection::capture).
  static void adopt(connection_context& ctx, connection_parts parts, std::size_t allowance);
  // A connect refused on its session's loop: the refusal is written, then as after any reply.
  static void answer(connection_context& ctx, connection_parts parts, http_response res);

  http_connection(connection_context& ctx, net_stream stream, slot_type slot,
                  address_limits::slot address, boost::asio::ip::address peer,
                  boost::beast::flat_buffer buffer);

  // An upgrade in place on this loop's thread (docs/operations.md, "Upgrading"), in three steps:
  // from begin_handover on, a plain connection that waits for a request parks instead of reading
  // it (one reading now is cut short and parks with what it has), and one in the middle of a
  // request parks once it is answered; requests_in_flight() counts those still in the middle
  // (over TLS too: those serve on, and cannot move); after a failed exec, or a drain that calls
  // the upgrade off, end_handover() sets the parked ones reading again.
  static void begin_handover(connection_registry& loop);
  static std::size_t requests_in_flight(connection_registry& loop);
  static void end_handover(connection_registry& loop);
  // With the loop stopped for an upgrade: every connection of the loop that moves, as the new
  // binary takes it over (see hand_over).
  static void capture_loop(connection_registry& loop, std::vector<moved_http>& out);
  // When the server drains (docs/operations.md, "Drain"), every connection of the loop waiting
  // for a request: see on_drain.
  static void drain_idle(connection_registry& loop);

  // timed: the handshake, the keep-alive wait or the reply's write ran out.
  void on_timer(time_point now) override;

 private:
  // reply_written: a reply is being written (--write-timeout); linger: the reply that closes the
  // connection is written and the client's last bytes are dropped.
  enum class waiting { first_request, next_request, reply_written, linger };
  void arm_deadline(waiting what);
  void handshake();
  void on_handshake(boost::system::error_code ec);
  void refuse_plaintext();  // plain HTTP arrived on the TLS port
  void discard_until_eof();
  void read_request();
  void read_header_bytes();
  bool read_header_in_place();
  void wait_for_header_bytes();
  std::size_t parse_header(boost::asio::const_buffer bytes, boost::system::error_code& ec);
  // One with nothing of a request read yet closes at once; one in the middle of a request reads it
  // and answers it 503.
  void on_drain();
  // The connection as the new binary takes it over, or none if it cannot move (it is then closed
  // by the exec). Nothing of it changes: if the exec fails the loop goes on with it.
  std::optional<moved_http> hand_over();
  void park();    // waits, reading nothing, for the upgrade to take it (or to read on)
  void unpark();  // reads on
  bool waiting_for_request() const;
  bool busy() const;  // see requests_in_flight
  void on_header(boost::system::error_code ec);
  void on_read(boost::system::error_code ec);
  // A request that cannot be read (malformed, too large, ambiguous framing): the reply, then
  // the connection closes.
  void refuse_request(http_status status, std::string_view code, std::string_view message,
                      std::string_view allow = {});
  void refuse(http_response res);  // as refuse_request, with a reply of the caller's
  void refuse_header_too_large();  // 431
  void close_after_reply();
  // A whole request: refused (a connect's Origin, --max-connections, drain, --allowed-hosts), a
  // CORS preflight answered, or its route's.
  void handle(http_request req);
  void connect(http_request req, transport which);
  // A connect to the Pusher door's /app/{key} (http_connect.cpp).
  void connect_pusher(http_request req);
  // The client's address (client_address.hpp): the peer, or the client a trusted proxy names.
  boost::asio::ip::address client_of(const http_request& req) const;
  // From a --trusted-proxy: the connection counted under the client its request head names
  // (--max-connections-per-ip); false when refused (answered).
  bool count_proxied_client(const http_request& header);
  // --connect-rate-per-ip; false when refused (answered).
  bool within_connect_rate(const http_request& req);
  // The admission (start the client) or the refusal (reply), after the connect hook if any.
  void proceed(std::variant<admission, http_response> outcome);
  void reply(http_response res);
  void close();
  // Bytes of a request (not of the TLS handshake) have arrived on this connection's current wait.
  bool request_started() const;
  // The connection ends on the first deadline or the client's hang-up: why, for the counters.
  void count_first_wait_ended();

  connection_context& ctx_;
  net_stream stream_;
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  slot_type slot_;
  address_limits::slot address_;      // this connection counted against its address
  boost::asio::ip::address peer_;     // the TCP peer, as accepted
  std::size_t scanned_ = 0;           // bytes of the buffer already searched for the header's end
  std::size_t header_allowance_ = 0;  // over the header limit, for the first request (adopt)
  waiting waiting_ = waiting::first_request;
  bool handshaking_ = false;  // the TLS handshake has begun and not finished
  bool closing_ = false;
  bool refused_ = false;  // a request the parser refused: the reply closes the connection
  std::shared_ptr<http_connection> parked_self_;  // state parked: see begin_handover
  // The CORS grant of the request being answered, when it is to /sse or /poll (origin_check.hpp):
  // every reply to it carries the grant's headers.
  std::optional<cors_grant> cors_;
};

}  // namespace ringcast
