// The WebSocket upgrade of an admitted connect to /ws (RFC 6455, section 4.2), answered by
// ringcast rather than by Beast's handshake: the checks Beast's accept made (a refusal is an
// HTTP reply from the reading loop, like every other refusal of a connect: admission.hpp), and
// the 101 response's bytes, which go out in one write with the hello that follows them
// (docs/performance.md, section 15: a write and two deferred completions less per connect).
#pragma once

#include <optional>
#include <string>

#include "protocol/http_reply.hpp"

namespace ringcast {

// The refusal of an upgrade request that asks for a WebSocket (the caller checked
// websocket::is_upgrade) but that RFC 6455 does not accept: 400 without Host or a usable
// Sec-WebSocket-Key or version, 426 with `Sec-WebSocket-Version: 13` for another version.
std::optional<http_response> ws_upgrade_refusal(const http_request& req);

// The 101 Switching Protocols of an accepted upgrade; `extensions`: the negotiated
// permessage-deflate, if any (ws_deflate.hpp).
std::string ws_upgrade_response(const http_request& req,
                                const std::optional<std::string>& extensions);

}  // namespace ringcast
