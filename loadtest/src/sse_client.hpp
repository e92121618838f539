#pragma once

#include <memory>

#include "client.hpp"

namespace ringcast::load {

// GET /sse: one long response whose events are envelopes; resumes with Last-Event-ID.
class sse_client final : public client {
 public:
  using client::client;

 private:
  struct connection;
  void open() override;
  void drop() override;
  void read_body(std::shared_ptr<connection> c);

  std::shared_ptr<connection> conn_;
};

}  // namespace ringcast::load
