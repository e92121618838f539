#include "gzip_stream.hpp"

#include <zlib.h>

#include <cctype>

namespace ringcast::gzip {
namespace {

// Raw deflate (window_bits -15) or with the gzip wrapper (16 + 15).
struct deflater {
  z_stream z{};
  explicit deflater(int window_bits) {
    deflateInit2(&z, Z_DEFAULT_COMPRESSION, Z_DEFLATED, window_bits, 8, Z_DEFAULT_STRATEGY);
  }
  ~deflater() { deflateEnd(&z); }
};

std::string run(deflater& d, std::string_view text, int flush) {
  deflateReset(&d.z);
  std::string out(deflateBound(&d.z, text.size()) + 16, '\0');
  d.z.next_in = reinterpret_cast<Bytef*>(const_cast<char*>(text.data()));
  d.z.avail_in = static_cast<uInt>(text.size());
  d.z.next_out = reinterpret_cast<Bytef*>(out.data());
  d.z.avail_out = static_cast<uInt>(out.size());
  deflate(&d.z, flush);
  out.resize(out.size() - d.z.avail_out);
  return out;
}

std::string_view trim(std::string_view s) {
  while (!s.empty() && (s.front() == ' ' || s.front() == '\t'))
    s.remove_prefix(1);
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t'))
    s.remove_suffix(1);
  return s;
}

bool iequals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (std::tolower(static_cast<unsigned char>(a[i])) !=
        std::tolower(static_cast<unsigned char>(b[i])))
      return false;
  return true;
}

// A q value of zero ("q=0", "q=0.0", "q=0.000") refuses the coding (RFC 9110 section 12.4.2).
bool refused(std::string_view params) {
  while (!params.empty()) {
    const auto semi = params.find(';');
    const std::string_view param = trim(params.substr(0, semi));
    params = semi == std::string_view::npos ? std::string_view{} : params.substr(semi + 1);
    if (param.size() < 2 || std::tolower(static_cast<unsigned char>(param[0])) != 'q' ||
        param[1] != '=')
      continue;
    const std::string_view q = trim(param.substr(2));
    return !q.empty() && q.find_first_not_of("0.") == std::string_view::npos;
  }
  return false;
}

}  // namespace

bool accepted(std::string_view accept_encoding) {
  while (!accept_encoding.empty()) {
    const auto comma = accept_encoding.find(',');
    const std::string_view item = accept_encoding.substr(0, comma);
    accept_encoding =
        comma == std::string_view::npos ? std::string_view{} : accept_encoding.substr(comma + 1);
    const auto semi = item.find(';');
    const std::string_view coding = trim(item.substr(0, semi));
    if ((iequals(coding, "gzip") || iequals(coding, "x-gzip")) &&
        !(semi != std::string_view::npos && refused(item.substr(semi + 1))))
      return true;
  }
  return false;
}

std::string_view header() {
  static constexpr char bytes[10] = {'\x1f', '\x8b', 8, 0, 0, 0, 0, 0, 0, '\xff'};
  return {bytes, sizeof bytes};
}

std::string piece(std::string_view text) {
  thread_local deflater d(-MAX_WBITS);
  return run(d, text, Z_FULL_FLUSH);
}

std::string whole(std::string_view body) {
  thread_local deflater d(16 + MAX_WBITS);
  return run(d, body, Z_FINISH);
}

measured_piece measure(std::string_view text) {
  measured_piece p;
  p.deflated = piece(text);
  p.crc = static_cast<std::uint32_t>(
      crc32(0, reinterpret_cast<const Bytef*>(text.data()), static_cast<uInt>(text.size())));
  p.size = text.size();
  return p;
}

std::string member_end(std::span<const measured_piece* const> pieces) {
  // After a full flush the stream is byte-aligned, so a fixed-Huffman block with BFINAL set and
  // only its end code (bits 1, 01, 0000000) ends it in two bytes.
  static constexpr char final_block[2] = {'\x03', '\x00'};
  std::string out(final_block, sizeof final_block);
  uLong crc = crc32(0, nullptr, 0);
  std::uint64_t size = 0;
  for (const measured_piece* p : pieces) {
    crc = crc32_combine(crc, p->crc, static_cast<z_off_t>(p->size));
    size += p->size;
  }
  for (const std::uint64_t v : {static_cast<std::uint64_t>(crc), size})
    for (int i = 0; i < 4; ++i)  // little-endian; ISIZE is the size modulo 2^32
      out.push_back(static_cast<char>((v >> (8 * i)) & 0xff));
  return out;
}

}  // namespace ringcast::gzip
