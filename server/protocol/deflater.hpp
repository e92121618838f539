// Deflate (RFC 1951) of one piece of text from a fresh state, with zlib: what gzip_stream.hpp
// (SSE pieces, whole replies) and ws_deflate.hpp (permessage-deflate) compress with. A deflater
// is kept per thread (per event loop) and per framing, reset for every call: nothing of one call
// is carried into the next, and no connection holds a zlib stream.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>

namespace ringcast::zlib {

// Raw deflate, or inside a gzip member's header and trailer (RFC 1952). Both: level 6, a 32 KiB
// window.
enum class framing : std::uint8_t { raw, gzip };

// How the output ends: `sync` and `full` flush to a byte boundary with an empty stored block
// (00 00 ff ff); `full` also forgets the window (a piece that can be spliced anywhere); `finish`
// ends the stream (a final block, and the gzip trailer).
enum class ending : std::uint8_t { sync, full, finish };

std::string deflate_fresh(std::string_view text, framing f, ending e);

}  // namespace ringcast::zlib
