// What the hub needs from a live connection, whatever its transport.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>

#include "core/envelope.hpp"
#include "core/message.hpp"
#include "core/transport.hpp"

namespace ringcast {

class subscriber {
 public:
  virtual ~subscriber() = default;
  // The bytes from a connection's start that a delivery reads (its fields up to the socket and the
  // send queue): a broadcast fetches them into the cache a few recipients ahead
  // (audience_index::for_each_live_addressee). Each streaming connection asserts it is no larger
  // (a held long-poll, answered once, reads past it).
  static constexpr std::size_t delivery_bytes = 384;
  virtual transport kind() const = 0;
  // Whether a message the hub addressed to the session goes to this client (the Pusher door
  // sends only channel messages, never back to their sender); every one by default. One it does
  // not want is neither sent nor counted (recipients, delivered).
  virtual bool wants(const message&) const { return true; }
  // Queues a message for the client. A subscriber whose queue is full ends itself (close/slow)
  // through hub::end_connection; a long-poll answers at once and detaches.
  virtual void deliver(const message_ptr& m) = 0;
  // Paced turns that came in the same tick, in id order. A long-poll answers them in one reply.
  virtual void deliver_many(std::span<const message_ptr> messages) {
    for (const auto& m : messages)
      deliver(m);
  }
  // Nothing was sent for a heartbeat interval: a WebSocket ping, an SSE comment.
  virtual void heartbeat() = 0;
  // The hub is about to detach this subscriber from its session (its client left, or the hub
  // ends it), before the session's observers hear it go offline: what the connection holds
  // elsewhere for the session goes first (the Pusher door's presence members leave before
  // presence vacates their channel, so that member_removed comes before channel_vacated).
  virtual void detaching() {}
  // Last words: the hub has already detached this subscriber from its session. It sends the
  // notice (if it still can) and closes.
  virtual void end(const ending_notice& notice) = 0;
};

}  // namespace ringcast
