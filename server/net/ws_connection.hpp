// A WebSocket client (docs/protocol.md, "WebSocket"): hello, resumed and live messages out; ping,
// ack, subscribe and unsubscribe in.
//
// ringcast writes the upgrade's 101 with the hello (ws_handshake.hpp; Beast answers only an
// upgrade it refuses); the connection is a bare net_stream, read as client_frames_connection
// reads it. A published message goes out as its shared header and
// payload; messages over 4 KiB or 32 frames from a client close the connection with 1009. With
// permessage-deflate negotiated, a message goes as its shared compressed frame instead, and a
// compressed client message is inflated (still at most 4 KiB).
#pragma once

#include <memory>

#include "net/admission.hpp"
#include "net/client_frames_connection.hpp"
#include "net/connection_parts.hpp"
#include "protocol/ws_codec.hpp"

namespace ringcast {

class ws_connection final : public client_frames_connection {
 public:
  static constexpr std::uint32_t max_client_message = 4 * 1024;

  static void start(connection_context& ctx, connection_parts parts, admission admitted,
                    bool known_elsewhere);
  // `deflate`: permessage-deflate was negotiated (ws_deflate.hpp).
  ws_connection(connection_context& ctx, connection_parts parts, bool deflate = false);
  // In the new process of an upgrade in place: a WebSocket the old one handed over.
  // `queue`: what the old process had not written yet (queue_of()).
  static void adopt(connection_context& ctx, connection_parts parts, const moved_stream& m,
                    std::vector<outbound> queue);

  transport kind() const override { return transport::ws; }
  void heartbeat() override;

 private:
  // `switching`: the 101, written with the hello.
  void begin(const client_params& params, bool known_elsewhere, std::string_view early_bytes,
             std::string switching);
  // client_frames_connection
  std::uint32_t client_message_limit() const override { return max_client_message; }
  void on_message(std::string_view text) override;
  void over_rate(double rate) override;  // 1008

  bool capture_transport(moved_stream& out) const override;
  // WebSocket frames carry no id: `unnumbered` changes nothing.
  std::size_t message_buffers(const message& m, bool unnumbered, frame_buffers& out) const override;
  void queued(const message& m, bool unnumbered) override;
  bool sends_compressed(const message& m) const;
  std::string frame(std::string_view event, std::string_view json,
                    std::optional<std::uint32_t> retry_ms) const override;
  std::string closing_frame(ending why) const override;
};

}  // namespace ringcast
