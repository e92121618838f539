// Promotions in force (docs/protocol.md, "Promotions in force"): the sticky messages a client that
// connects without `since` is sent first.
//
// sticky_set is one loop's: the messages themselves (message_ptr, the same immutable object every
// loop and every queue holds), in id order; a connect walks it, nothing is copied per client. A
// message leaves it when its ttl passes or it is taken down, whatever --history has evicted.
// sticky_quota is the node's count for --max-sticky, kept by the publisher under its lock.
#pragma once

#include <cstddef>
#include <cstdint>
#include <map>
#include <vector>

#include "core/message.hpp"

namespace ringcast {

inline constexpr std::size_t default_max_sticky = 100;

class sticky_set {
 public:
  // Ids reach a loop in increasing order; an id already held is ignored.
  void add(const message_ptr& m);
  // Removes the message with this id if held; true if it was.
  bool remove(std::uint64_t id);
  message_ptr find(std::uint64_t id) const;
  const std::vector<message_ptr>& in_force() const { return messages_; }
  std::size_t size() const { return messages_.size(); }

 private:
  std::vector<message_ptr> messages_;  // by id; at most --max-sticky (a few hundred bytes)
};

// The sticky messages in force on the node (with --redis: in the cluster, as this node has read
// them), by id with their expiry (Unix ms, 0: none), so that a sticky publish beyond the limit is
// refused before it gets an id. Not synchronized: the caller holds its lock.
class sticky_quota {
 public:
  explicit sticky_quota(std::size_t limit) : limit_(limit) {}
  // Forgets those whose expiry has passed by `now_ms`, then: is there room for one more?
  bool has_room(std::int64_t now_ms);
  void add(std::uint64_t id, std::int64_t expires_ms) { expires_[id] = expires_ms; }
  void remove(std::uint64_t id) { expires_.erase(id); }
  std::size_t in_force(std::int64_t now_ms);
  // Every entry, by id (the handover to a new binary adds them again).
  const std::map<std::uint64_t, std::int64_t>& entries() const { return expires_; }

 private:
  void forget_expired(std::int64_t now_ms);
  std::size_t limit_;
  std::map<std::uint64_t, std::int64_t> expires_;
};

}  // namespace ringcast
