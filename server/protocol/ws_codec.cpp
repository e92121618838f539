#include "protocol/ws_codec.hpp"
#include "protocol/ws_opcodes.hpp"

namespace ringcast::ws {
namespace {

std::string control_frame(std::uint8_t op, std::string_view payload) {
  payload = payload.substr(0, opcode::max_control_payload);
  std::string frame;
  frame.reserve(2 + payload.size());
  frame.push_back(static_cast<char>(0x80 | op));
  frame.push_back(static_cast<char>(payload.size()));
  frame.append(payload);
  return frame;
}

}  // namespace

frame_header text_frame_header(std::size_t payload_size) {
  frame_header h;
  h.bytes[0] = static_cast<char>(0x80 | opcode::text);
  if (payload_size < 126) {
    h.bytes[1] = static_cast<char>(payload_size);
    h.size = 2;
    return h;
  }
  // RFC 6455 section 5.2: the shortest length form, big-endian.
  const int length_bytes = payload_size <= 0xffff ? 2 : 8;
  h.bytes[1] = static_cast<char>(length_bytes == 2 ? 126 : 127);
  for (int i = 0; i < length_bytes; ++i) {
    h.bytes[2 + i] = static_cast<char>(payload_size >> (8 * (length_bytes - 1 - i)));
  }
  h.size = static_cast<std::uint8_t>(2 + length_bytes);
  return h;
}

std::string text_frame(std::string_view payload) {
  std::string out(text_frame_header(payload.size()).view());
  out += payload;
  return out;
}

std::string compressed_text_frame(std::string_view compressed) {
  frame_header h = text_frame_header(compressed.size());
  h.bytes[0] = static_cast<char>(h.bytes[0] | 0x40);  // RSV1: "Per-Message Compressed"
  std::string frame(h.view());
  frame += compressed;
  return frame;
}

std::string ping_frame(std::string_view payload) {
  return control_frame(opcode::ping, payload);
}

std::string pong_frame(std::string_view payload) {
  return control_frame(opcode::pong, payload);
}

std::string close_frame(std::uint16_t code, std::string_view reason) {
  if (reason.size() > opcode::max_control_payload - 2) {
    reason = reason.substr(0, opcode::max_control_payload - 2);
    // Do not cut a character in two: drop its continuation bytes and its lead byte.
    while (!reason.empty() && (static_cast<std::uint8_t>(reason.back()) & 0xc0) == 0x80)
      reason.remove_suffix(1);
    if (!reason.empty() && static_cast<std::uint8_t>(reason.back()) >= 0xc0)
      reason.remove_suffix(1);
  }
  std::string payload{static_cast<char>(code >> 8), static_cast<char>(code & 0xff)};
  payload.append(reason);
  return control_frame(opcode::close, payload);
}

std::uint16_t close_code_for(error e) {
  switch (e) {
    case error::message_too_big:
    case error::too_many_frames:
      return too_big;
    case error::invalid_utf8:
      return bad_payload;
    default:
      return protocol_error;
  }
}

std::string_view describe(error e) {
  switch (e) {
    case error::unmasked_frame:
      return "unmasked client frame";
    case error::reserved_bits:
      return "reserved bits set";
    case error::bad_compression:
      return "compressed message does not inflate";
    case error::reserved_opcode:
      return "reserved opcode";
    case error::fragmented_control:
      return "fragmented control frame";
    case error::control_too_big:
      return "control frame over 125 bytes";
    case error::non_minimal_length:
      return "length not in its shortest form";
    case error::unexpected_continuation:
      return "continuation frame without a message";
    case error::unexpected_data_frame:
      return "data frame inside a fragmented message";
    case error::message_too_big:
      return "message too big";
    case error::too_many_frames:
      return "message in too many frames";
    case error::invalid_utf8:
      return "text message is not UTF-8";
    case error::bad_close_size:
      return "close payload of 1 byte";
    case error::bad_close_code:
      return "invalid close code";
    case error::bad_close_reason:
      return "close reason is not UTF-8";
  }
  return "unknown";
}

}  // namespace ringcast::ws
