#pragma once

#include <memory>

#include "client.hpp"

namespace ringcast::load {

// GET /ws: reads envelopes frame by frame; unless idle, sends {"type":"ping"} every
// --ping-interval so that only the idle clients meet the server's idle expiry.
// --server-kind nchan: /sub/<channel>, silent; pusher: /app/<key>, subscribed to --channel, and
// pusher:ping instead (the server's pusher:ping is answered by idle clients too, as pusher-js
// does).
class ws_client final : public client {
 public:
  using client::client;
  void add_wire(client_result& into) const override;

 private:
  struct connection;
  void open() override;
  void drop() override;
  void read(std::shared_ptr<connection> c);
  void schedule_ping(std::shared_ptr<connection> c);
  bool pusher_frame(const std::shared_ptr<connection>& c, std::string_view text);
  // When the message just read reached the client (Unix µs): the kernel's receive time with
  // --arrival kernel, else now.
  std::int64_t arrival(const connection& c);
  void send(const std::shared_ptr<connection>& c, std::string text);
  void write_next(const std::shared_ptr<connection>& c);

  std::shared_ptr<connection> conn_;
};

}  // namespace ringcast::load
