// The reach of a message (GET /admin/messages/<id>) summed over the nodes of a cluster (with
// --redis; docs/scaling.md, "Reach").
//
//   {ringcast}:reach:<message id>   hash: node id -> "recipients delivered acked" on that node
//
// Each node counts its own clients (message.hpp's counters) and writes the counts that changed
// since its last write every `flush_period`, for all of them in one script (batched, never per
// delivery); each write renews the key's expiry (`record_life`). A query sums the other nodes'
// fields with this node's own counts, read fresh: what another node counted shows within one
// flush period. Runs on the bus's io_context.
#pragma once

#include <boost/asio/io_context.hpp>
#include <boost/asio/steady_timer.hpp>

#include <chrono>
#include <cstdint>
#include <functional>
#include <optional>
#include <unordered_map>
#include <vector>

#include "core/message.hpp"

namespace ringcast {

class redis_bus;

class redis_reach {
 public:
  static constexpr std::chrono::milliseconds flush_period{500};
  static constexpr std::chrono::hours record_life{24};

  // `retained`: the messages in this node's history (on the bus's io_context).
  using retained_fn = std::function<std::vector<message_ptr>()>;
  redis_reach(boost::asio::io_context& ctx, redis_bus& bus, retained_fn retained);
  void start();
  void stop();

  struct counts {
    std::uint64_t recipients = 0, delivered = 0, acked = 0;
    bool operator==(const counts&) const = default;
  };
  // Every node's counts for `m` (this node's fresh); nullopt: Redis is unreachable.
  void sum(const message_ptr& m, std::function<void(std::optional<counts>)> done);

 private:
  void flush();
  void flush_later();

  redis_bus& bus_;
  retained_fn retained_;
  boost::asio::steady_timer timer_;
  std::unordered_map<std::uint64_t, counts> written_;  // what Redis has from this node, by id
};

}  // namespace ringcast
