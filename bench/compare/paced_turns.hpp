// The paced floor's turns (bare_sender.cpp; docs/performance.md, section 9): a publish with a
// spread gives every recipient the turn ringcast gives its session (pacing::offset_of, from the
// session's place on the ring), and each walk, one a tick, sends the frame to the recipients whose
// turn has come — what ringcast's loop does at that tick, with nothing else around it. The turns
// are a vector sorted once per publish, walked by a cursor (the memory per recipient is not what
// this floor is for).
#pragma once

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "core/pacing.hpp"

namespace bare {

using steady = std::chrono::steady_clock;

// A connection as the walk knows it: its descriptor, which accepted connection held it when the
// turn was drawn (descriptors are reused), and its session's place on the ring.
struct recipient {
  int fd;
  std::uint64_t serial;
  std::uint64_t place;
};

class paced_turns {
 public:
  explicit paced_turns(std::chrono::milliseconds tick) : tick_(tick) {}

  // Every recipient's turn for message `id`; `frame` goes to each at its turn. Call walk() next:
  // the turns at offset 0 are due at once.
  void add(std::uint64_t id, std::string frame, std::chrono::milliseconds spread,
           const std::vector<recipient>& to, steady::time_point now) {
    message m{std::move(frame), now, {}, 0};
    m.turns.reserve(to.size());
    for (const recipient& r : to)
      m.turns.push_back({ringcast::pacing::offset_of(r.place, id, spread), r});
    std::sort(m.turns.begin(), m.turns.end(),
              [](const turn& a, const turn& b) { return a.offset < b.offset; });
    messages_.push_back(std::move(m));
  }

  bool walk_due(steady::time_point now) const { return !messages_.empty() && now >= next_walk_; }

  // Calls send(recipient, frame) for every turn that has come by `now`, oldest message first;
  // the next walk is due a tick later.
  template <class Send>
  void walk(steady::time_point now, Send&& send) {
    for (message& m : messages_) {
      for (; m.next < m.turns.size() && m.start + m.turns[m.next].offset <= now; ++m.next)
        send(m.turns[m.next].to, std::string_view(m.frame));
    }
    std::erase_if(messages_, [](const message& m) { return m.next == m.turns.size(); });
    next_walk_ = now + tick_;
  }

  // epoll_wait's timeout in ms: until the next walk while turns are to come, else -1 (none).
  int timeout_ms(steady::time_point now) const {
    if (messages_.empty()) return -1;
    const auto left = std::chrono::ceil<std::chrono::milliseconds>(next_walk_ - now);
    return static_cast<int>(std::max<std::int64_t>(left.count(), 0));
  }

 private:
  struct turn {
    ringcast::pacing::duration offset;
    recipient to;
  };
  struct message {
    std::string frame;
    steady::time_point start;
    std::vector<turn> turns;  // by offset
    std::size_t next;         // the first turn not yet come
  };

  std::chrono::milliseconds tick_;
  std::vector<message> messages_;  // with turns to come, oldest first
  steady::time_point next_walk_{};
};

}  // namespace bare
