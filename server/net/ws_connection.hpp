// A WebSocket client (docs/protocol.md, "WebSocket"): hello, resumed and live messages out; ping,
// ack, subscribe and unsubscribe in. Frames over 4 KiB are refused with close code 1009.
#pragma once

#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/websocket/stream.hpp>

#include <memory>

#include "admission.hpp"
#include "connection_parts.hpp"
#include "stream_connection.hpp"

namespace ringcast {

class ws_connection final : public stream_connection,
                            public std::enable_shared_from_this<ws_connection> {
 public:
  static constexpr std::size_t max_client_frame = 4 * 1024;
  static constexpr std::size_t read_step = 256;

  static void start(connection_context& ctx, connection_parts parts, admission admitted,
                    bool known_elsewhere);
  ws_connection(connection_context& ctx, connection_parts parts);

  transport kind() const override { return transport::ws; }
  void heartbeat() override;

 private:
  void on_accept(boost::system::error_code ec, const client_params& params, bool known_elsewhere);
  void read();
  void on_message();
  void write(const outbound& item) override;
  void close_after_notice(ending why) override;
  void abort() override;
  std::string frame(std::string_view event, std::string_view json,
                    std::optional<std::uint32_t> retry_ms) override;

  boost::beast::websocket::stream<net_stream> ws_;
  boost::beast::flat_buffer in_;
  bool ping_in_flight_ = false;
  bool closing_ = false;
};

}  // namespace ringcast
