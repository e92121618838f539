#include "protocol/http_framing.hpp"

#include <boost/beast/core/string.hpp>

namespace ringcast {

namespace http = boost::beast::http;

std::optional<std::size_t> header_block_end(std::string_view bytes, std::size_t from) {
  // The empty line ends with LF after an LF ("\n\n", or "\n\r\n"); bare LFs are left to Beast to
  // refuse.
  for (std::size_t i = from < 2 ? 0 : from - 2; i < bytes.size(); ++i) {
    if (bytes[i] != '\n') continue;
    if (i + 1 < bytes.size() && bytes[i + 1] == '\n') return i + 2;
    if (i + 2 < bytes.size() && bytes[i + 1] == '\r' && bytes[i + 2] == '\n') return i + 3;
  }
  return std::nullopt;
}

bool has_obs_fold(std::string_view header_block) {
  // Every line after the request line; the block's own empty line starts with CR or LF.
  for (std::size_t i = header_block.find('\n'); i != std::string_view::npos;
       i = header_block.find('\n', i + 1)) {
    if (i + 1 < header_block.size() && (header_block[i + 1] == ' ' || header_block[i + 1] == '\t'))
      return true;
  }
  return false;
}

std::optional<std::string_view> framing_error(const http::request_header<>& header) {
  const std::size_t codings = header.count(http::field::transfer_encoding);
  if (codings == 0) return std::nullopt;
  if (codings > 1 || !boost::beast::iequals(header[http::field::transfer_encoding], "chunked"))
    return "Transfer-Encoding other than exactly \"chunked\"";
  if (header.count(http::field::content_length) > 0)
    return "both Transfer-Encoding and Content-Length";
  return std::nullopt;
}

bool has_body(const http::request_header<>& header) {
  if (header.count(http::field::transfer_encoding) > 0) return true;
  const auto length = header[http::field::content_length];
  return !length.empty() && length.find_first_not_of("0") != std::string_view::npos;
}

}  // namespace ringcast
