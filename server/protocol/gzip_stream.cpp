#include "protocol/gzip_stream.hpp"

#include <zlib.h>
#include <boost/beast/core/string.hpp>

#include <cctype>

#include "protocol/deflater.hpp"
#include "protocol/header_list.hpp"

namespace ringcast::gzip {
namespace {

// A q value of zero ("q=0", "q=0.0", "q=0.000") among a coding's parameters refuses it (RFC 9110
// section 12.4.2).
bool refused(const std::vector<std::string_view>& item) {
  for (std::size_t i = 1; i < item.size(); ++i) {
    const std::string_view param = item[i];
    if (param.size() < 2 || std::tolower(static_cast<unsigned char>(param[0])) != 'q' ||
        param[1] != '=')
      continue;
    const std::string_view q = trim_ows(param.substr(2));
    return !q.empty() && q.find_first_not_of("0.") == std::string_view::npos;
  }
  return false;
}

}  // namespace

bool accepted(std::string_view accept_encoding) {
  for (const std::string_view item : split_trimmed(accept_encoding, ',')) {
    const auto params = split_trimmed(item, ';');
    if ((boost::beast::iequals(params.front(), "gzip") ||
         boost::beast::iequals(params.front(), "x-gzip")) &&
        !refused(params))
      return true;
  }
  return false;
}

std::string_view header() {
  static constexpr char bytes[10] = {'\x1f', '\x8b', 8, 0, 0, 0, 0, 0, 0, '\xff'};
  return {bytes, sizeof bytes};
}

std::string piece(std::string_view text) {
  return zlib::deflate_fresh(text, zlib::framing::raw, zlib::ending::full);
}

std::string whole(std::string_view body) {
  return zlib::deflate_fresh(body, zlib::framing::gzip, zlib::ending::finish);
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
