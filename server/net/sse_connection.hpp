// A Server-Sent Events client (docs/protocol.md, "Server-Sent Events"): an HTTP response that
// never ends on its own, carrying `hello`, then `id:`/`event: message` events, `: hb` comments,
// and a final `reconnect` or `close` event. A message goes out as its shared prefix and envelope.
#pragma once

#include <memory>

#include "net/admission.hpp"
#include "net/connection_parts.hpp"
#include "net/stream_connection.hpp"

namespace ringcast {

class sse_connection final : public stream_connection {
 public:
  static void start(connection_context& ctx, connection_parts parts, const admission& admitted,
                    bool known_elsewhere);
  sse_connection(connection_context& ctx, connection_parts parts);
  // In the new process of an upgrade in place: an event stream the old one handed over.
  // `queue`: what the old process had not written yet (queue_of()).
  static void adopt(connection_context& ctx, connection_parts parts, const moved_stream& m,
                    std::vector<outbound> queue);

  transport kind() const override { return transport::sse; }
  void heartbeat() override;

 private:
  // A client has nothing to say on an event stream: what it sends is dropped until it hangs up.
  void watch_for_close();
  std::shared_ptr<sse_connection> self() {
    return std::static_pointer_cast<sse_connection>(shared_from_this());
  }

  bool capture_transport(moved_stream& out) const override;
  std::size_t message_buffers(const message& m, bool unnumbered, frame_buffers& out) const override;
  void queued(const message& m, bool unnumbered) override;
  bool numbers_frames() const override { return true; }
  std::string frame(std::string_view event, std::string_view json,
                    std::optional<std::uint32_t> retry_ms) const override;
  std::string resume_point_frame(std::uint64_t id) const override;
  std::string encoded(std::string text) const;
  void close_when_written() override;

  bool shut_down_ = false;
  bool gzip_ = false;  // Accept-Encoding: gzip (gzip_stream.hpp): every event is a gzip piece
};

}  // namespace ringcast
