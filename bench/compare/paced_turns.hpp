// The paced floor's turns (bare_sender.cpp; docs/performance.md, section 9): a publish with a
// spread gives every recipient a turn drawn uniformly in [0, spread), and each walk, one a tick,
// sends the frame to the recipients whose turn has come — what ringcast's loop does at that tick,
// with nothing else around it. The turns are a vector sorted once per publish, walked by a cursor
// (the memory per recipient is not what this floor is for).
#pragma once

#include <algorithm>
#include <charconv>
#include <chrono>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace bare {

using steady = std::chrono::steady_clock;

// "<N>ms" or "<N>s", N > 0 (what ringcast-load sends); nullopt otherwise.
inline std::optional<std::chrono::milliseconds> spread_of(std::string_view text) {
  std::int64_t n = 0;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), n);
  const std::string_view unit(end, text.data() + text.size() - end);
  if (ec != std::errc{} || n <= 0) return std::nullopt;
  if (unit == "ms") return std::chrono::milliseconds(n);
  if (unit == "s") return std::chrono::seconds(n);
  return std::nullopt;
}

// A connection as the walk knows it: its descriptor, and which accepted connection held it when
// the turn was drawn (descriptors are reused).
struct recipient {
  int fd;
  std::uint64_t serial;
};

class paced_turns {
 public:
  explicit paced_turns(std::chrono::milliseconds tick) : tick_(tick) {}

  // Draws every recipient's turn for message `id`; `frame` goes to each at its turn. Call walk()
  // next: the turns at offset 0 are due at once.
  void add(std::uint64_t id, std::string frame, std::chrono::milliseconds spread,
           const std::vector<recipient>& to, steady::time_point now) {
    message m{std::move(frame), now, {}, 0};
    m.turns.reserve(to.size());
    const auto window = std::chrono::duration_cast<std::chrono::nanoseconds>(spread).count();
    for (const recipient& r : to) {
      // Uniform in [0, window): 53 uniform bits as a fraction of the window.
      const double fraction =
          static_cast<double>(mix(r.serial * 0x9e3779b97f4a7c15ULL ^ id) >> 11) * 0x1p-53;
      m.turns.push_back({std::chrono::nanoseconds(
                             static_cast<std::int64_t>(fraction * static_cast<double>(window))),
                         r});
    }
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
  // A uniform 64-bit value from a 64-bit key (SplitMix64's finalizer).
  static std::uint64_t mix(std::uint64_t x) {
    x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
    x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
    return x ^ (x >> 31);
  }

  struct turn {
    std::chrono::nanoseconds offset;
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
