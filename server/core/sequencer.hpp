// The node's one sequencer: the last id, how many messages the node delivered, and the sticky
// quota (--max-sticky), under one lock. Every message reaches the loops through it, in id order:
// numbered here by the local backplane (number), or numbered elsewhere and handed over in the
// shared stream's order by the Redis one (take). Whatever runs under the lock (`hand_over`) posts
// the message to every loop, so each loop's queue holds the messages in id order too.
#pragma once

#include <cstdint>
#include <functional>
#include <mutex>
#include <vector>

#include "core/message.hpp"
#include "core/sticky.hpp"
#include "upgrade/handover_state.hpp"

namespace ringcast {

class sequencer {
 public:
  // `floor_id`: ids of this run start above it. `max_sticky`: --max-sticky.
  sequencer(std::uint64_t floor_id, std::size_t max_sticky)
      : last_id_(floor_id), quota_(max_sticky) {}

  // Numbers the message `make(id)` builds with the next id, counts it, and runs `hand_over(m)`
  // with the lock held. Returns the message.
  template <class Make, class HandOver>
  message_ptr number(Make&& make, HandOver&& hand_over) {
    std::lock_guard lock(mutex_);
    message_ptr m = make(last_id_ + 1);
    count(*m);
    hand_over(m);
    return m;
  }
  // `m` was numbered elsewhere (Redis): counted, and `hand_over(m)` run with the lock held.
  template <class HandOver>
  void take(const message_ptr& m, HandOver&& hand_over) {
    std::lock_guard lock(mutex_);
    count(*m);
    hand_over(m);
  }
  // Runs `f` with numbering held: none is numbered or taken until it returns.
  void hold(const std::function<void()>& f) {
    std::lock_guard lock(mutex_);
    f();
  }

  // A sticky publish, before it gets an id: false (and counted as refused) when --max-sticky are
  // in force (with --redis: as far as this node has read the stream).
  bool admit_sticky(std::int64_t now_ms);
  // At start-up: the sticky messages in force among `messages` count against the quota.
  void seed(const std::vector<message_ptr>& messages);
  // A sticky message was taken down: it no longer counts.
  void forget_sticky(std::uint64_t id);

  struct figures {
    std::uint64_t published = 0;  // messages delivered by this node
    std::uint64_t last_id = 0;
    std::uint64_t sticky_refused = 0;
  };
  figures read() const;

  // Upgrade in place: the last id, the count and the quota into `state`, and back. raise_floor:
  // ids go on above `id` (a new process started without the node's state).
  void capture(upgrade::handover_state& state) const;
  void restore(const upgrade::handover_state& state);
  void raise_floor(std::uint64_t id);

 private:
  void count(const message& m);  // under mutex_

  mutable std::mutex mutex_;
  std::uint64_t last_id_;
  std::uint64_t published_ = 0;
  sticky_quota quota_;
  std::uint64_t sticky_refused_ = 0;
};

}  // namespace ringcast
