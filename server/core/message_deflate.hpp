// A published message's compressed forms, the WebSocket permessage-deflate frame and the SSE gzip
// piece: each made once per node, lazily, by the first loop whose client needs it, and shared by
// every such client as the plain bytes are (docs/protocol.md). Loops that need it at the same
// time wait for the one building it.
#pragma once

#include <string>

#include "core/loop_stats.hpp"
#include "core/message.hpp"

namespace ringcast {

// The compressed frame (header with RSV1, then the deflated `json`), or an empty string when it
// would not be shorter than the plain frame. The loop that builds it counts it in `stats`.
const std::string& ws_deflated_frame(const message& m, loop_stats& stats);

// The message's SSE event as a piece of a gzip stream (gzip_stream.hpp), built once per node.
const std::string& sse_gzip_piece(const message& m, loop_stats& stats);

// The message's SSE event without its `id:` line as a gzip piece, built once per node.
const std::string& sse_gzip_unnumbered_piece(const message& m, loop_stats& stats);

// The message's one-message long-poll reply body gzipped, built once per node; empty when it
// would not be shorter than `poll_body`.
const std::string& poll_gzip_body(const message& m, loop_stats& stats);

// The message's `json` as a measured gzip piece, built once per node: what a long-poll reply of
// several messages is spliced from.
const gzip::measured_piece& poll_json_piece(const message& m, loop_stats& stats);

}  // namespace ringcast
