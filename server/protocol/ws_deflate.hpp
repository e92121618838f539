// WebSocket permessage-deflate (RFC 7692) without sockets: the negotiation of the extension, the
// compression of one message on its own, and the inflater of client messages.
//
// ringcast always negotiates no context takeover in both directions, so every message is
// compressed on its own: a published message is deflated once per node and the same frame bytes
// go to every recipient, and no connection holds a zlib stream. The deflater and the inflater are
// one per thread (per event loop), reset for every message.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace ringcast::ws {

// The Sec-WebSocket-Extensions value to answer an upgrade with, given the request's (all its
// Sec-WebSocket-Extensions headers joined by ','): the first permessage-deflate offer ringcast can
// honour, answered "permessage-deflate; server_no_context_takeover; client_no_context_takeover"
// (plus "server_max_window_bits=15" when the offer names it). None when no offer can be honoured:
// a malformed offer, an unknown or repeated parameter, or server_max_window_bits under 15 (every
// message is compressed once, with a 32 KiB window, for every recipient).
std::optional<std::string> negotiate_deflate(std::string_view offers);

// `payload` compressed on its own as RFC 7692 section 7.2.1 says: raw deflate, sync-flushed, the
// final 00 00 ff ff removed. Uses this thread's deflater.
std::string deflate_message(std::string_view payload);

enum class inflate_result { ok, over_limit, corrupt };

// Inflates a client message (RFC 7692 section 7.2.2: 00 00 ff ff appended) into `out`, at most
// `limit` bytes: past it, inflating stops and the result is over_limit. Uses this thread's
// inflater, reset for every message; the inflater's window is allocated on the thread's first
// compressed message and kept (one per event loop, not per connection).
inflate_result inflate_message(std::string_view compressed, std::size_t limit, std::string& out);

}  // namespace ringcast::ws
