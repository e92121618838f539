// ws_codec.hpp's reader of client frames: its checks, and their order, follow Beast's stream.
#include "protocol/utf8_check.hpp"
#include "protocol/ws_codec.hpp"
#include "protocol/ws_deflate.hpp"
#include "protocol/ws_opcodes.hpp"

namespace ringcast::ws {
namespace {

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

}  // namespace

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
  if (op == opcode::text || op == opcode::binary) {
    if (in_message_) return refuse(error::unexpected_data_frame);
    // RSV1 on a message's first frame: compressed (RFC 7692 section 6), if negotiated.
    compressed_ = deflate_ && (header_[0] & 0x70) == 0x40;
    if (reserved && !compressed_) return refuse(error::reserved_bits);
  } else if (op == opcode::continuation) {
    if (!in_message_) return refuse(error::unexpected_continuation);
    if (reserved) return refuse(error::reserved_bits);
  } else {
    if (op != opcode::close && op != opcode::ping && op != opcode::pong)
      return refuse(error::reserved_opcode);
    if (!fin_) return refuse(error::fragmented_control);
    if (len7 > opcode::max_control_payload) return refuse(error::control_too_big);
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
  if (opcode::is_control(op)) return true;

  if (op != opcode::continuation) {
    text_ = op == opcode::text;
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
  if (!opcode::is_control(opcode_)) message_size_ += static_cast<std::uint32_t>(n);
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
  if (opcode_ == opcode::ping || opcode_ == opcode::pong) {
    e.type = opcode_ == opcode::ping ? event_type::ping : event_type::pong;
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
    if (!utf8::valid(e.payload)) return fail(error::bad_close_reason);
  }
  stage_ = stage::done;
  return e;
}

// The current frame's payload is all there.
event reader::finish_frame() {
  stage_ = stage::header;
  if (opcode::is_control(opcode_)) return finish_control();
  event e;
  if (!fin_) {
    e.type = event_type::fragment;
    return e;
  }
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
    if (text_ && !utf8::valid(inflated)) return fail(error::invalid_utf8);
    e.message = std::move(inflated);
    compressed_ = false;
  } else {
    if (text_ && utf8_state_ != utf8::accept) return fail(error::invalid_utf8);
    e.message = std::move(buffer_);
  }
  e.type = text_ ? event_type::text : event_type::binary;
  buffer_ = std::string();
  message_size_ = 0;
  utf8_state_ = utf8::accept;
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
      if (text_ && !compressed_ && !opcode::is_control(opcode_)) {
        utf8_state_ = utf8::run(utf8_state_, std::string_view(buffer_).substr(start));
        if (utf8_state_ == utf8::reject) return fail(error::invalid_utf8);
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
