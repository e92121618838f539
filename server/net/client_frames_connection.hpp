// What both WebSocket doors (ws_connection: docs/protocol.md; pusher_connection: docs/pusher.md)
// share on the way in: the client's frames are read with ws::reader (RFC 6455, checked against
// Beast by tests/fuzz/fuzz_ws_codec.cpp) from a small buffer on the stack, only when the socket
// is readable, so an idle connection holds no pending composed operation and no frame buffer;
// every frame costs a --client-message-rate token; a ping is answered, a close echoed, a broken
// frame closed with its code; a whole text or binary message goes to the door (on_message).
//
// The reader is held only while it is needed: from the first byte the client sends until the
// reader is between messages again, so that a client that sent its subscribe and now only
// listens holds no more than one that sent nothing (tests/server/net/idle_memory_test.cpp). The
// rate bucket is 8 bytes and stays (core/token_bucket.hpp).
#pragma once

#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>

#include "core/token_bucket.hpp"
#include "net/stream_connection.hpp"
#include "protocol/http_reply.hpp"
#include "protocol/ws_codec.hpp"

namespace ringcast {

class client_frames_connection : public stream_connection {
 public:
  // Frames of one fragmented client message at most (each also costs a --client-message-rate
  // token); a message in more is closed with 1009.
  static constexpr std::uint32_t max_client_frames = 32;

 protected:
  using stream_connection::stream_connection;

  // An upgrade both doors take the same way (the 101 goes with the door's first frame: see
  // ws_handshake.hpp): the parts the connection is made of (without the request's buffer), the
  // bytes the client sent after its request (its first frames, for consume()) and the 101 with
  // `extensions`, for begin(). Nullopt when Beast would refuse the upgrade: Beast answers it.
  struct accepted_upgrade {
    connection_parts parts;
    std::string early_bytes;
    std::string switching;
  };
  static std::optional<accepted_upgrade> accept_upgrade(
      connection_context& ctx, connection_parts parts, const http_request& request,
      const std::optional<std::string>& extensions);

  void read();
  // The first read after the 101 (and the bytes that came with the request), which a client's
  // first frame reaches a round trip later: see client_frames_connection.cpp.
  void read_after_upgrade();
  // Hands the client's bytes to the reader and acts on what it finds; false once the connection
  // is closed and reading must stop.
  bool consume(std::string_view bytes);
  // Drops the reader if it is between messages; never while a message is being handled.
  void release_idle_input();
  // A client's message is being read (the upgrade in place cannot move it now).
  bool mid_message() const { return input_ && !input_->reader.between_messages(); }
  // The door's part: the longest client message it takes (1009 beyond it), and a whole message
  // of the client (text or binary).
  virtual std::uint32_t client_message_limit() const = 0;
  virtual void on_message(std::string_view text) = 0;
  // The client sent frames faster than --client-message-rate: the door says so and closes (the
  // reader is already done and the refusal counted).
  virtual void over_rate(double rate) = 0;

  // Our close frame is out: half-close, and keep reading until the client closes too (the
  // ending grace timer bounds the wait).
  void close_when_written() final;

  // Flags first: they fill stream_connection's tail.
  bool reader_done_ = false;  // the client's close arrived, or it broke the protocol
  bool shut_down_ = false;    // our side of the TCP connection is closed
  // permessage-deflate negotiated (ws_deflate.hpp): the reader inflates compressed messages, and
  // the door sends a message compressed when it is at least compress_min_ bytes (--compress-min-
  // bytes as at the upgrade): all the state compression keeps per connection (no zlib stream).
  bool deflate_ = false;
  std::uint32_t compress_min_ = 0;

 private:
  struct client_input {
    ws::reader reader;
    bool reading = false;  // in consume(): a message is handled in the reader's buffer
  };
  client_input& input();
  void wait_readable();
  // False once the client has sent frames faster than --client-message-rate (it is closed).
  bool within_rate();
  std::shared_ptr<client_frames_connection> self() {
    return std::static_pointer_cast<client_frames_connection>(shared_from_this());
  }

  std::unique_ptr<client_input> input_;
  token_bucket rate_;  // the client's frames
};

}  // namespace ringcast
