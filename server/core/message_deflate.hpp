// A published message's WebSocket permessage-deflate frame: deflated once per node, lazily, by
// the first loop whose recipient negotiated the extension, and shared by every such recipient as
// the plain frame is (docs/protocol.md, "Compression"). Loops that need it at the same time wait
// for the one building it.
#pragma once

#include <string>

#include "loop_stats.hpp"
#include "message.hpp"

namespace ringcast {

// The compressed frame (header with RSV1, then the deflated `json`), or an empty string when it
// would not be shorter than the plain frame. The loop that builds it counts it in `stats`.
const std::string& ws_deflated_frame(const message& m, loop_stats& stats);

}  // namespace ringcast
