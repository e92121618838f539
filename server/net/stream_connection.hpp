// What WebSocket and SSE connections share: the session attachment, the bounded outbound queue,
// the write path, and the ending sequence (final notice, then close, with a grace timer for
// clients that never read).
//
// The write path holds no composed operation and no buffer of its own: a frame goes straight to
// the socket when nothing is waiting (one gathered write of the shared message bytes), only what
// the socket would not take stays queued, and frames that queued up while the client was behind
// go out together in one gathered write when the socket takes more. A client that falls
// --max-queue frames behind is closed `slow`, and one whose oldest frame has waited for the
// socket --write-timeout since its write began is closed (expirations.write_timeout).
#pragma once

#include <boost/asio/buffer.hpp>

#include <array>
#include <memory>
#include <optional>
#include <span>
#include <string>

#include "core/handover_messages.hpp"
#include "core/outbound_queue.hpp"
#include "net/connection_context.hpp"
#include "net/connection_parts.hpp"
#include "upgrade/process_handover.hpp"

namespace ringcast {

// registered_connection comes last, so that the flags that open the members fill its tail, and
// failed_ closes them, so that a transport's own flags fill this class's tail. Its one timer is
// a bare `timed` node armed on ctx_.timers() (a loop_timer would hold that reference twice): the
// layout keeps an idle WebSocket in a smaller heap block (docs/performance.md, "What an idle
// connection holds").
class stream_connection : public subscriber,
                          public timed,
                          public std::enable_shared_from_this<stream_connection>,
                          public registered_connection {
 public:
  void deliver(const message_ptr& m) final;
  void end(const ending_notice& notice) final;
  // The ending grace or the write deadline ran out: the client is not reading.
  void on_timer(time_point now) final;
  // Upgrade in place (server_upgrade.cpp), on a loop's thread while it is stopped: appends what
  // moves of each of this loop's streams that can move. One over native TLS cannot (OpenSSL's
  // state does not cross exec): it is sent the drain's reconnect now, and counted in the result.
  // The rest (ending, or in the middle of a client's WebSocket message) are closed by the exec.
  // A queued message goes by reference into `messages`, the loop's table (each message once).
  static std::size_t capture_loop(connection_registry& loop, std::vector<moved_stream>& out,
                                  queued_messages& messages);

 protected:
  stream_connection(connection_context& ctx, connection_parts parts, connection_kind kind);
  ~stream_connection();

  // Attaches to the session and queues hello and the resumed backlog; `head` (a WebSocket's 101),
  // if any, goes before them, in the same write.
  void attach(const client_params& params, bool known_elsewhere, std::string head = {});
  // In the new process of an upgrade: attaches to its session again without a hello (the client
  // had one), and queues first what the old process had not written yet (`queue`: queue_of()).
  void resume_moved(const moved_stream& m, std::vector<outbound> queue);
  // The transport's part of the capture; false if it cannot move now.
  virtual bool capture_transport(moved_stream& out) const = 0;
  // Queues a frame of this connection's own, already framed for the transport.
  void send_framed(std::string framed);
  // The client is leaving (or broke the protocol): the session starts its TTL, nothing more is
  // sent but `last_frame` (if any), then the connection closes.
  void finish(std::string last_frame);
  // The peer closed or the socket failed: the session starts its TTL, the socket is closed.
  void peer_gone();
  void activity();
  session* current_session() const { return session_; }
  connection_context& context() const { return ctx_; }
  net_stream& stream() { return stream_; }
  bool closing() const { return closing_; }

  using frame_buffers = std::array<boost::asio::const_buffer, 3>;
  // The bytes of a published message as this transport frames it (shared, never copied);
  // `unnumbered`: without its id (numbers_frames()).
  virtual std::size_t message_buffers(const message& m, bool unnumbered,
                                      frame_buffers& out) const = 0;
  // A published message was queued (before any message_buffers() of it): a transport may prepare
  // its shared bytes here and count them.
  virtual void queued(const message&, bool /*unnumbered*/) {}
  // Wraps a control envelope ("hello", "reconnect", "close", "error", "pong") for the transport.
  virtual std::string frame(std::string_view event, std::string_view json,
                            std::optional<std::uint32_t> retry_ms) const = 0;
  // Whether a message's frame carries its id, so that a paced message with an id below one
  // already sent goes unnumbered (docs/protocol.md, "Paced publish": an SSE client's
  // Last-Event-ID must stay at the highest id).
  virtual bool numbers_frames() const { return false; }
  // A frame that only moves the client's resume point to `id` (SSE: an `id:` line alone sets
  // Last-Event-ID without an event); empty where the transport has none.
  virtual std::string resume_point_frame(std::uint64_t) const { return {}; }
  // What follows the final notice (a WebSocket close frame); nothing by default.
  virtual std::string closing_frame(ending) const { return {}; }
  // The final notice: frame("reconnect" or "close", its envelope, a reconnect's delay) by default.
  virtual std::string ending_frame(const ending_notice& notice) const;
  // Everything, the final notice included, is written: end the stream.
  virtual void close_when_written() = 0;

 private:
  bool capture(moved_stream& out, queued_messages& messages);
  std::size_t buffers_of(const outbound& item, frame_buffers& out) const;
  // The buffers of `item` past its first `skip` bytes (what a write already took); `skip` is
  // lowered by the bytes passed over, so it carries across the items of a gathered write.
  std::size_t unwritten_buffers_of(const outbound& item, std::size_t& skip,
                                   frame_buffers& out) const;
  void push(outbound item);
  // Writes what the socket takes of `items` now (when nothing waits), queues the rest.
  void send(std::span<outbound> items);
  // One gathered write of `items`, `skip` bytes into the first; the bytes the socket took.
  std::size_t write_gathered(std::span<const outbound> items, std::size_t skip,
                             boost::system::error_code& ec);
  // How many of `items` the first `bytes` of them cover whole; `bytes` is left with the rest.
  std::size_t whole_items(std::span<const outbound> items, std::size_t& bytes) const;
  // When the oldest frame waiting for the socket must be written by (max: none is waiting).
  time_point write_due() const;
  // Arms this connection's one timer for the earlier of the ending grace and the write deadline.
  void arm_deadline();
  // Whether `m` goes unnumbered (see numbers_frames()); records its id as sent otherwise.
  bool number(const message& m);
  // The queue item of a published message (numbered or not).
  outbound numbered(message_ptr m);
  void drop_unstarted();
  void flush();
  void wait_until_writable();
  // The queue is full: the client is closed `slow`. True if so.
  bool falling_behind();

  bool closing_ = false;  // the final frames are queued: nothing else will be
  bool waiting_ = false;  // for the socket to take more
  connection_context& ctx_;
  connection_limit::slot slot_;
  address_limits::slot address_;
  net_stream stream_;
  session* session_ = nullptr;
  outbound_queue queue_;
  std::size_t written_ = 0;                     // bytes of the queue's first item already written
  std::uint64_t highest_id_ = 0;                // of the messages queued, or the client's `since`
  time_point grace_until_ = time_point::max();  // ending: the final notice is written by then
  bool failed_ = false;
};

}  // namespace ringcast
