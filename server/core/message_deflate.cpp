#include "message_deflate.hpp"

#include "gzip_stream.hpp"
#include "ws_codec.hpp"
#include "ws_deflate.hpp"

namespace ringcast {

const std::string& ws_deflated_frame(const message& m, loop_stats& stats) {
  std::call_once(m.ws_deflate_once, [&m, &stats] {
    std::string frame = ws::compressed_text_frame(ws::deflate_message(m.json));
    ++stats.messages_compressed;
    if (frame.size() < m.ws_header.size + m.json.size()) m.ws_deflated = std::move(frame);
  });
  return m.ws_deflated;
}

const std::string& sse_gzip_piece(const message& m, loop_stats& stats) {
  std::call_once(m.sse_gzip_once, [&m, &stats] {
    std::string event = m.sse_prefix;
    event.append(m.json).append("\n\n");
    m.sse_gzip = gzip::piece(event);
    ++stats.messages_compressed;
  });
  return m.sse_gzip;
}

const std::string& sse_gzip_unnumbered_piece(const message& m, loop_stats& stats) {
  std::call_once(m.sse_gzip_unnumbered_once, [&m, &stats] {
    std::string event(sse_unnumbered_prefix);
    event.append(m.json).append("\n\n");
    m.sse_gzip_unnumbered = gzip::piece(event);
    ++stats.messages_compressed;
  });
  return m.sse_gzip_unnumbered;
}

const std::string& poll_gzip_body(const message& m, loop_stats& stats) {
  std::call_once(m.poll_gzip_once, [&m, &stats] {
    std::string body = gzip::whole(m.poll_body);
    ++stats.messages_compressed;
    if (body.size() < m.poll_body.size()) m.poll_gzip = std::move(body);
  });
  return m.poll_gzip;
}

const gzip::measured_piece& poll_json_piece(const message& m, loop_stats& stats) {
  std::call_once(m.poll_json_once, [&m, &stats] {
    m.poll_json_piece = gzip::measure(m.json);
    ++stats.messages_compressed;
  });
  return m.poll_json_piece;
}

}  // namespace ringcast
