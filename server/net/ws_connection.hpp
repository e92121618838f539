// A WebSocket client (docs/protocol.md, "WebSocket"): hello, resumed and live messages out; ping,
// ack, subscribe and unsubscribe in.
//
// Beast answers the upgrade; after it the connection is a bare net_stream. Client frames are read
// with ws::reader (RFC 6455, checked against Beast by tests/fuzz/fuzz_ws_codec.cpp) from a small
// buffer on the stack, only when the socket is readable, so an idle connection holds no pending
// composed operation and no frame buffer. A published message goes out as its shared header and
// payload; messages over 4 KiB or 32 frames from a client close the connection with 1009. With
// permessage-deflate negotiated, a message goes as its shared compressed frame instead, and a
// compressed client message is inflated (still at most 4 KiB).
#pragma once

#include <memory>

#include "core/token_bucket.hpp"
#include "net/admission.hpp"
#include "net/connection_parts.hpp"
#include "net/stream_connection.hpp"
#include "protocol/ws_codec.hpp"

namespace ringcast {

class ws_connection final : public stream_connection {
 public:
  static constexpr std::uint32_t max_client_message = 4 * 1024;
  // Frames of one fragmented client message at most (each also costs a --client-message-rate
  // token); a message in more is closed with 1009.
  static constexpr std::uint32_t max_client_frames = 32;

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
  void begin(const client_params& params, bool known_elsewhere, std::string_view early_bytes);
  void read();
  void wait_readable();
  // Hands the client's bytes to the reader and acts on what it finds; false once the connection
  // is closed and reading must stop.
  bool consume(std::string_view bytes);
  void on_message(std::string_view text);
  // False once the client has sent frames faster than --client-message-rate (it is closed).
  bool within_rate();
  std::shared_ptr<ws_connection> self() {
    return std::static_pointer_cast<ws_connection>(shared_from_this());
  }

  bool capture_transport(moved_stream& out) const override;
  // WebSocket frames carry no id: `unnumbered` changes nothing.
  std::size_t message_buffers(const message& m, bool unnumbered, frame_buffers& out) const override;
  void queued(const message& m, bool unnumbered) override;
  bool sends_compressed(const message& m) const;
  std::string frame(std::string_view event, std::string_view json,
                    std::optional<std::uint32_t> retry_ms) const override;
  std::string closing_frame(ending why) const override;
  void close_when_written() override;

  // What reading the client's frames takes, held only while it is needed: from the first byte
  // the client sends until the reader is between messages and the rate bucket is full again (a
  // new bucket starts full, so dropping a full one changes nothing). A client that sends nothing
  // holds none of it.
  struct client_input {
    ws::reader reader{max_client_message, max_client_frames};
    token_bucket rate;  // the client's frames
  };
  client_input& input();
  // Drops the input state if nothing in it is needed now.
  void release_idle_input();

  // Flags first: they fill stream_connection's tail.
  bool reader_done_ = false;  // the client's close arrived, or it broke the protocol
  bool shut_down_ = false;    // our side of the TCP connection is closed
  bool deflate_ = false;      // permessage-deflate negotiated
  // --compress-min-bytes as at the upgrade; with deflate_, all the state compression keeps per
  // connection (no zlib stream).
  std::uint32_t compress_min_ = 0;
  std::unique_ptr<client_input> input_;
};

}  // namespace ringcast
