#include "message_deflate.hpp"

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

}  // namespace ringcast
