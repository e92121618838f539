// RFC 6455 framing without sockets: the frames a server sends, and an incremental reader of the
// frames a client sends. Beast does the HTTP upgrade; after it a connection reads client frames
// with `reader` and writes server frames straight to its socket. Server frames are unmasked, so a
// published message's header and payload are the same bytes for every recipient.
//
// What the reader accepts and refuses, and the close code of each refusal, follow Beast's
// websocket::stream (server role, no extensions), which tests/fuzz/fuzz_ws_codec.cpp checks. With
// permessage-deflate (accept_compressed(), ws_deflate.hpp) RSV1 marks a compressed message,
// checked against zlib by tests/fuzz/fuzz_ws_deflate.cpp.
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>

namespace ringcast::ws {

// Close codes (RFC 6455 section 7.4.1).
inline constexpr std::uint16_t normal = 1000;
inline constexpr std::uint16_t protocol_error = 1002;
inline constexpr std::uint16_t no_status = 1005;  // never on the wire: a close frame without a code
inline constexpr std::uint16_t bad_payload = 1007;
inline constexpr std::uint16_t policy_error = 1008;
inline constexpr std::uint16_t too_big = 1009;

// ---- Server to client ----

// The 2-10 byte header of an unmasked, final text frame.
struct frame_header {
  std::array<char, 10> bytes{};
  std::uint8_t size = 0;

  std::string_view view() const { return {bytes.data(), size}; }
};
frame_header text_frame_header(std::size_t payload_size);
// A whole unmasked, final text frame of `payload`: its header, then the payload.
std::string text_frame(std::string_view payload);
// A whole text frame of a permessage-deflate message (ws_deflate.hpp): RSV1 set, then `compressed`.
std::string compressed_text_frame(std::string_view compressed);

// Whole control frames. A control payload is at most 125 bytes: a longer pong payload or close
// reason is cut (the reason at a UTF-8 character boundary).
std::string ping_frame(std::string_view payload = {});
std::string pong_frame(std::string_view payload);
// `code` must be one a peer accepts (1000, 1001, 1002, 1007, 1008, 1009, 1011, 3000-4999...).
std::string close_frame(std::uint16_t code, std::string_view reason = {});

// ---- Client to server ----

// Why the reader failed the connection.
enum class error : std::uint8_t {
  unmasked_frame,           // a client frame without a mask
  reserved_bits,            // RSV1-3 set, but for RSV1 on a first frame with permessage-deflate
  bad_compression,          // a compressed message that does not inflate
  reserved_opcode,          // opcode 3-7 or 11-15
  fragmented_control,       // a control frame without FIN
  control_too_big,          // a control payload over 125 bytes
  non_minimal_length,       // a 16-bit length under 126 or a 64-bit one under 65536
  unexpected_continuation,  // a continuation frame with no message in progress
  unexpected_data_frame,    // a text or binary frame while a message is in progress
  message_too_big,          // the message would exceed the reader's limit
  too_many_frames,          // a fragmented message of more frames than the reader's limit
  invalid_utf8,             // a text message that is not UTF-8
  bad_close_size,           // a close payload of 1 byte
  bad_close_code,           // a close code a peer may not send
  bad_close_reason,         // a close reason that is not UTF-8
};
// The code to close with: 1009 for message_too_big and too_many_frames, 1007 for invalid_utf8,
// else 1002.
std::uint16_t close_code_for(error e);
std::string_view describe(error e);

enum class event_type : std::uint8_t {
  need_more,  // every byte given was consumed; feed more
  fragment,   // a whole data frame that does not end its message: nothing to act on but its cost
  text,
  binary,
  ping,
  pong,
  close,
  failed,
};

struct event {
  event_type type = event_type::need_more;
  std::string message;       // text, binary: the whole message
  std::string_view payload;  // ping, pong: payload; close: reason. Valid until the next call.
  std::uint16_t code = 0;    // close: the peer's code (no_status when it gave none)
  error why{};               // failed
};

// Reads client frames from byte chunks of any size. Every frame is an event (a data frame that
// does not end its message a `fragment`), so that a caller can charge each one. An idle reader
// (between frames, no message in progress) holds no heap memory; a message in progress holds its
// bytes so far, and a control frame split across chunks its payload.
class reader {
 public:
  // A message is at most `max_message_size` bytes in at most `max_message_frames` frames (empty
  // continuations would otherwise make one message endless).
  reader(std::uint32_t max_message_size, std::uint32_t max_message_frames)
      : max_message_(max_message_size), max_frames_(max_message_frames) {}

  // permessage-deflate was negotiated (ws_deflate.hpp): a message whose first frame has RSV1 set
  // is inflated when whole. The inflated message is bounded by the same limit as a plain one.
  void accept_compressed() { deflate_ = true; }

  // Consumes bytes from the front of `input` until it has an event, and returns it; `need_more`
  // when `input` ran out first. After close or failed the reader consumes nothing more.
  event next(std::string_view& input);
  // Nothing of a frame is held: what the client sends next starts a new message (an upgrade in
  // place moves a WebSocket only then).
  bool between_messages() const {
    return stage_ == stage::header && header_size_ == 0 && !in_message_;
  }

 private:
  enum class stage : std::uint8_t { header, payload, done };

  bool header_complete() const;
  // Returns true when the header is valid (else sets `failed`).
  bool accept_header(event& failed);
  // Returns where in buffer_ the bytes taken start.
  std::size_t take_payload(std::string_view& input);
  event finish_frame();
  event finish_control();
  event fail(error e);

  // The message in progress (first message_size_ bytes), then the control frame in progress.
  std::string buffer_;
  std::uint64_t remaining_ = 0;  // payload bytes of the current frame still to come
  std::uint32_t message_size_ = 0;
  std::uint32_t max_message_;
  std::uint32_t max_frames_;
  std::uint32_t message_frames_ = 0;  // frames of the message in progress so far
  std::array<std::uint8_t, 14> header_{};
  std::array<std::uint8_t, 4> mask_{};
  std::uint8_t header_size_ = 0;
  std::uint8_t mask_offset_ = 0;  // position in the mask of the next payload byte
  std::uint8_t opcode_ = 0;       // of the current frame
  bool fin_ = false;
  bool in_message_ = false;       // a text or binary message awaits continuations
  bool text_ = false;             // the message in progress is text
  bool control_pending_ = false;  // a control payload sits after the message in buffer_
  bool deflate_ = false;          // permessage-deflate negotiated
  bool compressed_ = false;       // the message in progress is compressed (RSV1)
  std::uint8_t utf8_state_ = 0;   // of the text message in progress
  stage stage_ = stage::header;
};

}  // namespace ringcast::ws
