// A held long-poll (docs/protocol.md, "Long-poll"): the subscriber of a /poll request that found
// nothing to return at once. It answers with the first message, or the `reconnect`/`close` notice
// that ends it, then hands the connection back to HTTP for its next request (keep-alive).
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "net/admission.hpp"
#include "net/connection_parts.hpp"
#include "upgrade/process_handover.hpp"

namespace ringcast {

class poll_connection final : public subscriber,
                              public loop_timer,
                              public registered_connection,
                              public std::enable_shared_from_this<poll_connection> {
 public:
  // Answers at once when `since` finds retained messages (or a gap); otherwise holds the poll.
  static void start(connection_context& ctx, connection_parts parts, admission admitted,
                    bool known_elsewhere, http_resume resume);

  poll_connection(connection_context& ctx, connection_parts parts, http_request request,
                  http_resume resume);
  ~poll_connection();

  // On the loop's thread, stopped for an upgrade (docs/operations.md, "Upgrading"): every poll
  // this loop holds over plain TCP goes to `out` as its request again, its `since` set to where
  // the poll stands, for the new binary to hold anew; one over native TLS cannot move and is
  // answered the drain's reconnect. Returns how many were told to reconnect. Nothing of a plain
  // poll changes: if the exec fails the loop goes on holding it.
  static std::size_t capture_loop(connection_registry& loop, std::vector<moved_http>& out);
  // How much longer a request written again by capture can be than the one read: `&since=` and
  // 20 digits, and Beast writes each header line as "Name: value" (a byte more per line than
  // "Name:value", at most one line per 4 bytes of 8 KiB).
  static constexpr std::size_t rewrite_growth = 27 + 8 * 1024 / 4;
  // Replies of this loop's polls being written: an upgrade waits for them (the connection then
  // goes back to HTTP, which parks it: http_connection::begin_handover).
  static std::size_t replies_in_flight(const connection_registry& loop);

  // subscriber
  transport kind() const override { return transport::poll; }
  void deliver(const message_ptr& m) override;
  void deliver_many(std::span<const message_ptr> messages) override;
  void heartbeat() override {}
  void end(const ending_notice& notice) override;
  // timed: the reply was not written within --write-timeout.
  void on_timer(time_point now) override;

 private:
  void hold(session& s);
  // This held poll as the request the new binary reads (see capture_loop); none if its target
  // cannot be written again (it was admitted, so it can).
  std::optional<moved_http> capture();
  void watch_for_hangup();
  void abandon();  // the client hung up while held
  // Writes the reply: this connection's head, then `body`, which `keep` holds (shared bytes of a
  // message, or a string of this reply's own).
  // `gzip`: the body is gzip (Content-Encoding says so).
  void reply(std::string_view body, std::shared_ptr<const void> keep, bool gzip = false);
  // The one-message reply: the message's prebuilt `poll_body`, or its gzip form.
  void reply_one(const message_ptr& m);
  // A `messages` reply gathered from the messages' shared bytes (or their shared gzip pieces):
  // nothing of them is copied.
  void reply_messages(std::vector<message_ptr> messages, std::uint64_t last_id, bool gap,
                      bool more);
  struct gathered;
  // With gzip accepted: the reply's buffers as a gzip member, when that pays; false (nothing
  // added) when the reply is too short or not shorter compressed.
  bool gather_gzipped(gathered& g, std::string_view tail);
  // Writes the head (with the body's length) and then the gathered buffers.
  void write_gathered(std::shared_ptr<gathered> g, bool gzip);
  // The head of a reply: status, keep-alive, and the connection's deadline for writing it.
  http_response begin_reply();
  // `written`: the bytes of the reply written (all of them, unless `ec`).
  void after_reply(boost::system::error_code ec, std::size_t written, bool keep_alive);

  connection_context& ctx_;
  connection_parts parts_;
  http_request request_;  // for the reply's version and keep-alive
  cors_grant cors_;       // the reply's CORS headers (origin_check.hpp)
  http_resume resume_;
  std::uint64_t since_ = 0;  // the request's; a reply never tells the client to go back before it
  session* held_ = nullptr;
  std::shared_ptr<poll_connection> keep_alive_while_held_;  // nothing else owns a held poll
  bool watching_ = false;                                   // a hang-up watch is pending
  bool replied_ = false;
  bool gzip_ = false;  // Accept-Encoding admits gzip: a reply may go gzipped
};

}  // namespace ringcast
