// Kept-alive connections to one backend (the connect hook's), on one event loop: an answered POST
// gives its connection back instead of closing it, and the next POST takes it, so a connect costs
// the backend a request, not a TCP (and TLS) handshake. At most `max_idle` are kept; one the
// backend has closed meanwhile is found out when taken (http_exchange retries once on a fresh
// connection should it fail anyway).
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <vector>

#include "tls/net_stream.hpp"

namespace ringcast {

class backend_pool {
 public:
  explicit backend_pool(std::size_t max_idle) : max_idle_(max_idle) {}

  // The most recently given back connection that is still open, or none.
  std::optional<net_stream> take();
  // Kept for the next take() while fewer than max_idle wait, else closed.
  void give_back(net_stream stream);

  std::size_t idle() const { return idle_.size(); }
  std::uint64_t reused() const { return reused_; }

 private:
  std::size_t max_idle_;
  std::vector<net_stream> idle_;  // the last one is the most recently used
  std::uint64_t reused_ = 0;
};

}  // namespace ringcast
