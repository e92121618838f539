#include "protocol/deflater.hpp"

#include <zlib.h>

namespace ringcast::zlib {
namespace {

struct deflater {
  z_stream z{};
  explicit deflater(framing f) {
    const int window_bits = f == framing::gzip ? 16 + MAX_WBITS : -MAX_WBITS;
    deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY);
  }
  ~deflater() { deflateEnd(&z); }
  deflater(const deflater&) = delete;
  deflater& operator=(const deflater&) = delete;
};

deflater& of_this_thread(framing f) {
  thread_local deflater raw(framing::raw);
  thread_local deflater gzip(framing::gzip);
  return f == framing::gzip ? gzip : raw;
}

}  // namespace

std::string deflate_fresh(std::string_view text, framing f, ending e) {
  deflater& d = of_this_thread(f);
  deflateReset(&d.z);
  const int flush = e == ending::sync ? Z_SYNC_FLUSH : e == ending::full ? Z_FULL_FLUSH : Z_FINISH;
  // deflateBound covers the blocks and a gzip wrapper of one deflate() call; a flush adds one
  // empty stored block (5 bytes, and up to 6 of bits pending): the 16 spare bytes hold it.
  std::string out(deflateBound(&d.z, text.size()) + 16, '\0');
  d.z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  d.z.avail_in = static_cast<uInt>(text.size());
  d.z.next_out = reinterpret_cast<Bytef*>(out.data());
  d.z.avail_out = static_cast<uInt>(out.size());
  deflate(&d.z, flush);
  out.resize(out.size() - d.z.avail_out);
  return out;
}

}  // namespace ringcast::zlib
