// Whether this node should be sent clients, as /healthz and every 503 of the admin API that
// Redis is to blame for see it. Implemented by `server`.
#pragma once

#include <string>

namespace ringcast {

class node_health {
 public:
  // False when this node should not be sent new clients (with --redis: Redis is unreachable).
  virtual bool healthy() const = 0;
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
