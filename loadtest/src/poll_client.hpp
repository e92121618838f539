#pragma once

#include <memory>

#include "client.hpp"

namespace ringcast::load {

// GET /poll on one keep-alive connection: each reply is booked, then the next poll goes out
// with since=<last id seen>; a `reconnect` reply (timeout) is honoured by waiting retry_ms.
class poll_client final : public client {
 public:
  using client::client;

 private:
  struct connection;
  void open() override;
  void drop() override;
  void poll(std::shared_ptr<connection> c);

  std::shared_ptr<connection> conn_;
};

}  // namespace ringcast::load
