// One TCP connection speaking HTTP/1.1, over TLS with --tls-cert: reads requests (the TLS handshake
// and the first request within the handshake timeout), routes them, holds long-polls, and hands
// WebSocket and SSE streams to their own objects.
#pragma once

#include <boost/asio/ip/tcp.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/parser.hpp>

#include <memory>
#include <optional>

#include "http_reply.hpp"
#include "net_stream.hpp"
#include "server.hpp"

namespace ringcast {

class http_connection final : public timed,
                              public subscriber,
                              public idle_connection,
                              public std::enable_shared_from_this<http_connection> {
 public:
  using slot_type = std::optional<server::connection_slot>;  // none: over --max-connections

  static void start(event_loop& loop, boost::asio::ip::tcp::socket socket, slot_type slot);

  http_connection(event_loop& loop, net_stream stream, slot_type slot,
                  boost::beast::flat_buffer buffer);
  ~http_connection();

  // timed: the handshake (or keep-alive wait) timed out.
  void on_timer(time_point now) override;
  // subscriber: a held long-poll.
  transport kind() const override { return transport::poll; }
  void deliver(const message_ptr& m) override;
  void heartbeat() override {}
  void end(const ending_notice& notice) override;
  // idle_connection
  void close_now() override;

 private:
  void arm_handshake_deadline();
  void handshake();
  void on_handshake(boost::system::error_code ec);
  void refuse_plaintext();  // plain HTTP arrived on the TLS port
  void discard_until_eof();
  void read_request();
  void on_read(boost::system::error_code ec);
  void handle(http_request req);
  void handle_client_endpoint(http_request req, std::string_view path);
  enum class endpoint { ws, sse, poll };
  // The request is valid and on its session's loop: serve it.
  void admit(http_request req, const client_params& params, endpoint which, bool known_elsewhere);
  void hold_poll(http_request req, const client_params& params, bool known_elsewhere);
  void watch_for_hangup();
  void abandon_poll();  // the client of a held poll hung up
  void hand_off(event_loop& home, http_request req);
  void reply(http_response res);
  void close();

  event_loop& loop_;
  net_stream stream_;
  boost::beast::flat_buffer buffer_;
  std::optional<boost::beast::http::request_parser<boost::beast::http::string_body>> parser_;
  slot_type slot_;
  session* held_ = nullptr;    // the session of the long-poll being held
  http_request held_request_;  // its request, for the reply's version and keep-alive
  std::shared_ptr<http_connection> keep_alive_while_held_;
  bool watching_ = false;  // a hang-up watch is pending
  bool closing_ = false;
};

}  // namespace ringcast
