// A gzip response body that never ends on its own (an SSE stream), made of pieces deflated each
// on its own: after the 10-byte gzip header, every event is raw deflate from a fresh state, ended
// with a full flush (byte-aligned, no reference to earlier bytes), so one message's piece is
// shared by every gzip subscriber and spliced in wherever its turn comes. A reader inflating the
// stream gets each event as soon as its piece arrives. The stream has no gzip trailer: it ends
// when the connection closes, as the uncompressed one does.
#pragma once

#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace ringcast::gzip {

// Whether an Accept-Encoding header value admits gzip (a "gzip" or "x-gzip" coding without q=0).
bool accepted(std::string_view accept_encoding);

// The stream's first bytes: gzip magic, deflate, no flags, no time, unknown OS.
std::string_view header();

// `text` as a self-contained, byte-aligned run of deflate blocks (raw deflate, full flush). Uses
// this thread's deflater.
std::string piece(std::string_view text);

// `body` as a whole gzip member (header, deflate, CRC-32 and size): a reply's body.
std::string whole(std::string_view body);

// A piece with what a gzip trailer needs of its text, so that a member can be spliced from
// pieces deflated apart (a long-poll reply from each message's piece, made once per node).
struct measured_piece {
  std::string deflated;  // piece(text)
  std::uint32_t crc = 0;
  std::uint64_t size = 0;  // of the text
};
measured_piece measure(std::string_view text);

// What ends a gzip member whose body is header() and then the pieces' deflated bytes in order:
// an empty final block and the trailer (their CRC-32s combined, their sizes summed). No deflating
// here, and nothing of the pieces is copied: a reply is written as header(), each piece's shared
// bytes, then these 10 bytes of its own.
std::string member_end(std::span<const measured_piece* const> pieces);

}  // namespace ringcast::gzip
