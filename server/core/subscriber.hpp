// What the hub needs from a live connection, whatever its transport.
#pragma once

#include <cstdint>
#include <string_view>

#include "envelope.hpp"
#include "message.hpp"

namespace ringcast {

enum class transport : std::uint8_t { ws, sse, poll };
std::string_view name_of(transport t);

class subscriber {
 public:
  virtual ~subscriber() = default;
  virtual transport kind() const = 0;
  // Queues a message for the client. A subscriber whose queue is full ends itself (close/slow)
  // through hub::end_connection; a long-poll answers at once and detaches.
  virtual void deliver(const message_ptr& m) = 0;
  // Nothing was sent for a heartbeat interval: a WebSocket ping, an SSE comment.
  virtual void heartbeat() = 0;
  // Last words: the hub has already detached this subscriber from its session. It sends the
  // notice (if it still can) and closes.
  virtual void end(const ending_notice& notice) = 0;
};

}  // namespace ringcast
