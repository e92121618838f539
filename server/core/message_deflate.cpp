#include "core/message_deflate.hpp"

#include "protocol/gzip_stream.hpp"
#include "protocol/ws_codec.hpp"
#include "protocol/ws_deflate.hpp"

namespace ringcast {
namespace {

// Builds a compressed form once per node: the first loop to ask runs `build` and counts it, any
// other asking at the same time waits for it.
template <class Build>
void build_once(std::once_flag& once, loop_stats& stats, Build build) {
  std::call_once(once, [&build, &stats] {
    build();
    ++stats.messages_compressed;
  });
}

// A compressed form is kept only when it is shorter than the plain bytes it stands for.
void keep_if_shorter(std::string built, std::size_t plain_size, std::string& kept) {
  if (built.size() < plain_size) kept = std::move(built);
}

// An SSE event ("<prefix><json>\n\n") as a gzip piece.
std::string sse_event_piece(std::string_view prefix, std::string_view json) {
  std::string event(prefix);
  event.append(json).append("\n\n");
  return gzip::piece(event);
}

}  // namespace

const std::string& ws_deflated_frame(const message& m, loop_stats& stats) {
  build_once(m.ws_deflate_once, stats, [&m] {
    keep_if_shorter(ws::compressed_text_frame(ws::deflate_message(m.json)), m.ws_frame.size(),
                    m.ws_deflated);
  });
  return m.ws_deflated;
}

const std::string& sse_gzip_piece(const message& m, loop_stats& stats) {
  build_once(m.sse_gzip_once, stats, [&m] { m.sse_gzip = sse_event_piece(m.sse_prefix, m.json); });
  return m.sse_gzip;
}

const std::string& sse_gzip_unnumbered_piece(const message& m, loop_stats& stats) {
  build_once(m.sse_gzip_unnumbered_once, stats,
             [&m] { m.sse_gzip_unnumbered = sse_event_piece(sse_unnumbered_prefix, m.json); });
  return m.sse_gzip_unnumbered;
}

const std::string& poll_gzip_body(const message& m, loop_stats& stats) {
  build_once(m.poll_gzip_once, stats,
             [&m] { keep_if_shorter(gzip::whole(m.poll_body), m.poll_body.size(), m.poll_gzip); });
  return m.poll_gzip;
}

const gzip::measured_piece& poll_json_piece(const message& m, loop_stats& stats) {
  build_once(m.poll_json_once, stats, [&m] { m.poll_json_piece = gzip::measure(m.json); });
  return m.poll_json_piece;
}

}  // namespace ringcast
