// Whether this node should be sent clients, as /healthz and every 503 of the admin API that
// Redis is to blame for see it. Implemented by the node (core/node.hpp).
#pragma once

#include <string>

namespace ringcast {

class node_health {
 public:
  // Empty when this node should be sent new clients; else why not (with --redis: Redis cannot be
  // used, or the node is still reading the cluster's history and promotions in force at start-up).
  virtual std::string why_unhealthy() const = 0;
  // Why Redis cannot be used now ("redis 127.0.0.1:6379: auth failed (WRONGPASS …)"), as the bus
  // last saw it; empty when it can, or without --redis.
  virtual std::string redis_problem() const = 0;

 protected:
  ~node_health() = default;
};

// The message of a 503 that Redis is to blame for: why, when the bus knows.
inline std::string redis_unavailable(const node_health& node) {
  auto why = node.redis_problem();
  return why.empty() ? "redis is unreachable" : why;
}

}  // namespace ringcast
