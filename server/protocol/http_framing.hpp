// Strict HTTP/1.1 request framing (RFC 9112), checked before Boost.Beast reads a body: anything a
// proxy in front could read differently from us is refused with 400 and the connection closed,
// so that no byte of one request can become another (request smuggling).
#pragma once

#include <boost/beast/http/message.hpp>

#include <cstddef>
#include <optional>
#include <string_view>

namespace ringcast {

// Where the header block that starts `bytes` ends (just past its empty line), or none while it
// is incomplete. `from`: where the previous look stopped, so that a header arriving a byte at a
// time is scanned once in all.
std::optional<std::size_t> header_block_end(std::string_view bytes, std::size_t from = 0);

// A header line continued on the next line by leading space or tab (obs-fold, RFC 9112 §5.2):
// Beast would join them, another parser might not.
bool has_obs_fold(std::string_view header_block);

// Why the framing of a request is refused, or none: Transfer-Encoding other than exactly
// `chunked` (one field, one coding), or Transfer-Encoding together with Content-Length.
std::optional<std::string_view> framing_error(const boost::beast::http::request_header<>& header);

// The request carries a body: Content-Length above 0, or any Transfer-Encoding.
bool has_body(const boost::beast::http::request_header<>& header);

}  // namespace ringcast
