// A Server-Sent Events client (docs/protocol.md, "Server-Sent Events"): an HTTP response that never
// ends on its own, carrying `hello`, then `id:`/`event: message` events, `: hb` comments, and a
// final `reconnect` or `close` event.
#pragma once

#include <array>
#include <memory>

#include "admission.hpp"
#include "connection_parts.hpp"
#include "stream_connection.hpp"

namespace ringcast {

class sse_connection final : public stream_connection,
                             public std::enable_shared_from_this<sse_connection> {
 public:
  static void start(connection_context& ctx, connection_parts parts, const admission& admitted,
                    bool known_elsewhere);
  sse_connection(connection_context& ctx, connection_parts parts);

  transport kind() const override { return transport::sse; }
  void heartbeat() override { send_text(": hb\n\n"); }

 private:
  void watch_for_close();
  void write(const outbound& item) override;
  void close_after_notice(ending why) override;
  void abort() override;
  std::string frame(std::string_view event, std::string_view json,
                    std::optional<std::uint32_t> retry_ms) override;

  net_stream stream_;
  std::array<char, 512> discard_{};  // a client has nothing to say on an event stream
};

}  // namespace ringcast
