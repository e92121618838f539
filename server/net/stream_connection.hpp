// What WebSocket and SSE connections share: the session attachment, the bounded outbound queue
// (one write in flight; a client that falls --max-queue messages behind is closed `slow`), and
// the ending sequence (final notice, then close, with a grace timer for clients that never read).
#pragma once

#include <optional>
#include <string>

#include "connection_context.hpp"
#include "connection_limit.hpp"
#include "outbound_queue.hpp"

namespace ringcast {

class stream_connection : public subscriber, public timed {
 public:
  void deliver(const message_ptr& m) final;
  void end(const ending_notice& notice) final;
  void on_timer(time_point now) final;  // the ending grace ran out: the client is not reading

 protected:
  stream_connection(connection_context& ctx, connection_limit::slot slot);
  ~stream_connection();

  // Attaches to the session and queues hello and the resumed backlog.
  void attach(const client_params& params, bool known_elsewhere);
  void send_text(std::string text);
  // The derived class reports each finished write here.
  void write_done(boost::system::error_code ec);
  // The peer closed or the socket failed: the session starts its TTL.
  void peer_gone();
  void activity();
  session* current_session() const { return session_; }
  connection_context& context() { return ctx_; }

  virtual void write(const outbound& item) = 0;     // start one asynchronous write
  virtual void close_after_notice(ending why) = 0;  // everything is written: close now
  virtual void abort() = 0;                         // close without ceremony
  // Wraps a control envelope ("hello", "reconnect", "close", "error", "pong") for the transport.
  virtual std::string frame(std::string_view event, std::string_view json,
                            std::optional<std::uint32_t> retry_ms) = 0;

 private:
  void write_next();
  // The queue is full: the client is closed `slow`. True if so.
  bool falling_behind();

  connection_context& ctx_;
  connection_limit::slot slot_;
  session* session_ = nullptr;
  outbound_queue queue_;               // waiting to be written
  std::optional<outbound> in_flight_;  // being written
  std::optional<ending> ending_;
  bool failed_ = false;
};

}  // namespace ringcast
