#include "ws_codec.hpp"

#include "ws_deflate.hpp"

namespace ringcast::ws {
namespace {

enum opcode : std::uint8_t {
  continuation = 0x0,
  text = 0x1,
  binary = 0x2,
  close = 0x8,
  ping = 0x9,
  pong = 0xa,
};

constexpr std::size_t max_control_payload = 125;

bool is_control(std::uint8_t op) {
  return op >= close;
}

// ---- UTF-8 (RFC 3629), one byte at a time ----
// A state says what the next byte of a character must be; a byte no valid text can continue with
// fails at once, as Beast's checker does ("fail fast").
enum utf8_state : std::uint8_t {
  utf8_accept,  // between characters
  tail1,        // one more 80-BF
  tail2,        // two more 80-BF
  tail3,        // three more 80-BF
  after_e0,     // A0-BF, then one more (no overlong 3-byte form)
  after_ed,     // 80-9F, then one more (no surrogates)
  after_f0,     // 90-BF, then two more (no overlong 4-byte form)
  after_f4,     // 80-8F, then two more (nothing past U+10FFFF)
  utf8_reject,
};

utf8_state utf8_lead(std::uint8_t b) {
  if (b < 0x80) return utf8_accept;
  if (b >= 0xc2 && b <= 0xdf) return tail1;
  if (b == 0xe0) return after_e0;
  if (b == 0xed) return after_ed;
  if (b >= 0xe1 && b <= 0xef) return tail2;
  if (b == 0xf0) return after_f0;
  if (b >= 0xf1 && b <= 0xf3) return tail3;
  if (b == 0xf4) return after_f4;
  return utf8_reject;
}

utf8_state utf8_step(std::uint8_t state, std::uint8_t b) {
  const auto in = [b](int lo, int hi) { return b >= lo && b <= hi; };
  switch (state) {
    case utf8_accept:
      return utf8_lead(b);
    case tail1:
      return in(0x80, 0xbf) ? utf8_accept : utf8_reject;
    case tail2:
      return in(0x80, 0xbf) ? tail1 : utf8_reject;
    case tail3:
      return in(0x80, 0xbf) ? tail2 : utf8_reject;
    case after_e0:
      return in(0xa0, 0xbf) ? tail1 : utf8_reject;
    case after_ed:
      return in(0x80, 0x9f) ? tail1 : utf8_reject;
    case after_f0:
      return in(0x90, 0xbf) ? tail2 : utf8_reject;
    case after_f4:
      return in(0x80, 0x8f) ? tail2 : utf8_reject;
    default:
      return utf8_reject;
  }
}

// Goes on from `state` over `bytes`; utf8_reject as soon as they cannot be valid.
std::uint8_t utf8_run(std::uint8_t state, std::string_view bytes) {
  for (const char c : bytes) {
    state = utf8_step(state, static_cast<std::uint8_t>(c));
    if (state == utf8_reject) break;
  }
  return state;
}

// Close codes a peer may send (RFC 6455 section 7.4), as Beast's is_valid_close_code has them:
// 3000 and above are all accepted.
bool valid_close_code(std::uint16_t code) {
  if (code < 1000) return false;
  if (code >= 3000) return true;
  switch (code) {
    case 1004:  // reserved
    case 1005:  // no status (never sent)
    case 1006:  // abnormal closure (never sent)
    case 1014:
    case 1015:  // TLS failure (never sent)
      return false;
    default:
      return code <= 1013;
  }
}

std::string control_frame(std::uint8_t op, std::string_view payload) {
  payload = payload.substr(0, max_control_payload);
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
  h.bytes[0] = static_cast<char>(0x80 | text);
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

std::string compressed_text_frame(std::string_view compressed) {
  frame_header h = text_frame_header(compressed.size());
  h.bytes[0] = static_cast<char>(h.bytes[0] | 0x40);  // RSV1: "Per-Message Compressed"
  std::string frame(h.view());
  frame += compressed;
  return frame;
}

std::string ping_frame(std::string_view payload) {
  return control_frame(ping, payload);
}

std::string pong_frame(std::string_view payload) {
  return control_frame(pong, payload);
}

std::string close_frame(std::uint16_t code, std::string_view reason) {
  if (reason.size() > max_control_payload - 2) {
    reason = reason.substr(0, max_control_payload - 2);
    // Do not cut a character in two: drop its continuation bytes and its lead byte.
    while (!reason.empty() && (static_cast<std::uint8_t>(reason.back()) & 0xc0) == 0x80)
      reason.remove_suffix(1);
    if (!reason.empty() && static_cast<std::uint8_t>(reason.back()) >= 0xc0)
      reason.remove_suffix(1);
  }
  std::string payload{static_cast<char>(code >> 8), static_cast<char>(code & 0xff)};
  payload.append(reason);
  return control_frame(close, payload);
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

// ---- reader ----

bool reader::header_complete() const {
  if (header_size_ < 2) return false;
  const std::uint8_t len7 = header_[1] & 0x7f;
  std::size_t need = 2 + (len7 == 126 ? 2 : len7 == 127 ? 8 : 0);
  if (header_[1] & 0x80) need += 4;
  return header_size_ == need;
}

// The checks, and their order, are those of Beast's stream::parse_fh: a header is judged only once
// it is complete.
bool reader::accept_header(event& failed) {
  const std::uint8_t op = header_[0] & 0x0f;
  const bool reserved = (header_[0] & 0x70) != 0;
  const bool masked = (header_[1] & 0x80) != 0;
  const std::uint8_t len7 = header_[1] & 0x7f;
  fin_ = (header_[0] & 0x80) != 0;
  opcode_ = op;

  const auto refuse = [&failed, this](error e) {
    failed = fail(e);
    return false;
  };
  if (op == text || op == binary) {
    if (in_message_) return refuse(error::unexpected_data_frame);
    // RSV1 on a message's first frame: compressed (RFC 7692 section 6), if negotiated.
    compressed_ = deflate_ && (header_[0] & 0x70) == 0x40;
    if (reserved && !compressed_) return refuse(error::reserved_bits);
  } else if (op == continuation) {
    if (!in_message_) return refuse(error::unexpected_continuation);
    if (reserved) return refuse(error::reserved_bits);
  } else {
    if (op != close && op != ping && op != pong) return refuse(error::reserved_opcode);
    if (!fin_) return refuse(error::fragmented_control);
    if (len7 > max_control_payload) return refuse(error::control_too_big);
    if (reserved) return refuse(error::reserved_bits);
  }
  if (!masked) return refuse(error::unmasked_frame);

  std::uint64_t length = len7;
  std::size_t at = 2;
  if (len7 >= 126) {
    const std::size_t bytes = len7 == 126 ? 2 : 8;
    length = 0;
    for (std::size_t i = 0; i < bytes; ++i)
      length = (length << 8) | header_[at++];
    if (length < (bytes == 2 ? 126u : 65536u)) return refuse(error::non_minimal_length);
  }
  for (auto& m : mask_)
    m = header_[at++];
  mask_offset_ = 0;
  remaining_ = length;
  if (is_control(op)) return true;

  if (op != continuation) {
    text_ = op == text;
    message_frames_ = 0;
  }
  if (++message_frames_ > max_frames_) return refuse(error::too_many_frames);
  // A 64-bit length with its top bit set (RFC 6455 section 5.2 forbids it) exceeds any 32-bit
  // limit, so it fails here too, as in Beast.
  // Compressed, a message may come out a little larger than it went in (stored blocks): its
  // compressed bytes get that slack; inflated, it has the plain limit.
  const std::uint32_t limit = compressed_ ? max_message_ + max_message_ / 64 + 64 : max_message_;
  if (length > limit - message_size_) return refuse(error::message_too_big);
  in_message_ = !fin_;
  buffer_.reserve(message_size_ + length);
  return true;
}

// Unmasks what `input` holds of the current payload into buffer_.
std::size_t reader::take_payload(std::string_view& input) {
  const std::size_t n = remaining_ < input.size() ? remaining_ : input.size();
  const std::size_t start = buffer_.size();
  buffer_.append(input.data(), n);
  for (std::size_t i = start; i < buffer_.size(); ++i) {
    buffer_[i] = static_cast<char>(buffer_[i] ^ mask_[mask_offset_]);
    mask_offset_ = (mask_offset_ + 1) & 3;
  }
  input.remove_prefix(n);
  remaining_ -= n;
  if (!is_control(opcode_)) message_size_ += static_cast<std::uint32_t>(n);
  return start;
}

event reader::fail(error e) {
  stage_ = stage::done;
  event failed;
  failed.type = event_type::failed;
  failed.why = e;
  failed.code = close_code_for(e);
  return failed;
}

event reader::finish_control() {
  event e;
  e.payload = std::string_view(buffer_).substr(message_size_);
  control_pending_ = true;
  if (opcode_ == ping || opcode_ == pong) {
    e.type = opcode_ == ping ? event_type::ping : event_type::pong;
    return e;
  }
  // A close: nothing, or a code and a UTF-8 reason (RFC 6455 section 5.5.1).
  if (e.payload.size() == 1) return fail(error::bad_close_size);
  e.type = event_type::close;
  e.code = no_status;
  if (e.payload.size() >= 2) {
    e.code = static_cast<std::uint16_t>(static_cast<std::uint8_t>(e.payload[0]) << 8 |
                                        static_cast<std::uint8_t>(e.payload[1]));
    if (!valid_close_code(e.code)) return fail(error::bad_close_code);
    e.payload.remove_prefix(2);
    if (utf8_run(utf8_accept, e.payload) != utf8_accept) return fail(error::bad_close_reason);
  }
  stage_ = stage::done;
  return e;
}

// The current frame's payload is all there.
event reader::finish_frame() {
  stage_ = stage::header;
  if (is_control(opcode_)) return finish_control();
  if (!fin_) return {event_type::fragment};
  event e;
  if (compressed_) {
    std::string inflated;
    switch (inflate_message(buffer_, max_message_, inflated)) {
      case inflate_result::over_limit:
        return fail(error::message_too_big);
      case inflate_result::corrupt:
        return fail(error::bad_compression);
      case inflate_result::ok:
        break;
    }
    if (text_ && utf8_run(utf8_accept, inflated) != utf8_accept) return fail(error::invalid_utf8);
    e.message = std::move(inflated);
    compressed_ = false;
  } else {
    if (text_ && utf8_state_ != utf8_accept) return fail(error::invalid_utf8);
    e.message = std::move(buffer_);
  }
  e.type = text_ ? event_type::text : event_type::binary;
  buffer_ = std::string();
  message_size_ = 0;
  utf8_state_ = utf8_accept;
  return e;
}

event reader::next(std::string_view& input) {
  if (control_pending_) {
    // The control payload handed out last time is no longer needed.
    control_pending_ = false;
    buffer_.resize(message_size_);
    if (message_size_ == 0) std::string().swap(buffer_);
  }
  while (stage_ != stage::done && !input.empty()) {
    if (stage_ == stage::header) {
      header_[header_size_++] = static_cast<std::uint8_t>(input.front());
      input.remove_prefix(1);
      if (!header_complete()) continue;
      header_size_ = 0;
      event failed;
      if (!accept_header(failed)) return failed;
      stage_ = stage::payload;
    } else {
      const std::size_t start = take_payload(input);
      if (text_ && !compressed_ && !is_control(opcode_)) {
        utf8_state_ = utf8_run(utf8_state_, std::string_view(buffer_).substr(start));
        if (utf8_state_ == utf8_reject) return fail(error::invalid_utf8);
      }
    }
    if (stage_ == stage::payload && remaining_ == 0) {
      event e = finish_frame();
      if (e.type != event_type::need_more) return e;
    }
  }
  return {};
}

}  // namespace ringcast::ws
