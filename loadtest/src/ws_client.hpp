#pragma once

#include <memory>

#include "client.hpp"

namespace ringcast::load {

// GET /ws: reads envelopes frame by frame; unless idle, sends {"type":"ping"} every
// --ping-interval so that only the idle clients meet the server's idle expiry.
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

  std::shared_ptr<connection> conn_;
};

}  // namespace ringcast::load
