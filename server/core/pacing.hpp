// Paced delivery of a publish with "spread" (docs/protocol.md, "Paced publish"; the design is in
// docs/architecture.md, "Paced delivery").
//
// Every session has a fixed place on a ring of 2^64 positions (a hash of its key); a paced message
// turns the ring by a hash of its id. A session's turn for the message is
//   published + offset,  offset = (place + turn of the ring) mod 2^64 scaled onto [0, spread)
// so it is a pure function of (session key, message id), uniform over the window, the same on
// every node and after every reconnect. Each loop keeps its live sessions in one index by place
// (core/ring_index.hpp, intrusive: no allocation); a paced message is a cursor over that index, so
// it costs the same whether it has ten recipients or a million, and nothing per recipient while
// they wait.
#pragma once

#include <chrono>
#include <cstdint>
#include <deque>
#include <string_view>

#include "core/message.hpp"
#include "ringcast/wheel/timing_wheel.hpp"
#include "upgrade/paced_record.hpp"

namespace ringcast::pacing {

using time_point = timing_wheel::time_point;
using duration = time_point::duration;
__extension__ typedef unsigned __int128 u128;  // positions on the ring, and 2^64 itself
inline constexpr u128 whole_ring = u128{1} << 64;

// A session's place on the ring: a hash of its key "user/sid", fixed for its life.
std::uint64_t place_of(std::string_view session_key);
// How far a message turns the ring: a hash of its id.
std::uint64_t turn_of(std::uint64_t message_id);
// Where position `x` falls in a window of `spread`: floor(x * spread / 2^64), in [0, spread).
duration offset_at(std::uint64_t x, duration spread);
// The session's offset for the message (place + turn, wrapping).
inline duration offset_of(std::uint64_t place, std::uint64_t message_id, duration spread) {
  return offset_at(place + turn_of(message_id), spread);
}
// The first position whose turn has not come `elapsed` into the window: every x below it has
// offset_at(x) <= elapsed. whole_ring once the window has passed.
u128 frontier(duration elapsed, duration spread);

// One paced message on one loop: its record (upgrade/paced_record.hpp: the message, when its
// window opened here, how far its cursor has walked the ring), and what is made of its message.
struct paced_message : upgrade::paced_record<message_ptr, time_point, u128> {
  using record = upgrade::paced_record<message_ptr, time_point, u128>;
  duration spread{};
  std::uint64_t turn = 0;

  // Its spread and turn, from `msg` (a message added to the log, or restored).
  void complete() {
    spread = std::chrono::duration_cast<duration>(msg->spread);
    turn = turn_of(msg->id);
  }

  bool settled() const { return walked == whole_ring; }
  time_point due_for(std::uint64_t place) const { return start + offset_at(place + turn, spread); }
};

// The paced messages a loop knows of, oldest first: in flight until every turn has come, then
// kept (settled) while a session that was away during the window may still come back for it.
class paced_log {
 public:
  void add(message_ptr m, time_point now);
  // Walks every in-flight message up to `now`: for each, the ranges of the ring whose turn came
  // since the last walk are passed to `visit(first_place, end_place, message)` (end exclusive,
  // as u128; the range may wrap: first + length > 2^64 is passed as two calls).
  template <typename Visit>
  void walk(time_point now, Visit&& visit);
  // The log of the binary this one replaced (core/loop_handover.cpp), oldest first; only into an
  // empty log.
  void restore(std::deque<paced_message> messages, time_point walked_to) {
    messages_ = std::move(messages);
    walked_to_ = walked_to;
  }
  // Forgets settled messages whose window ended before `horizon`.
  void forget_settled_before(time_point horizon);

  time_point walked_to() const { return walked_to_; }
  std::size_t in_flight() const;
  bool any_in_flight() const { return in_flight() > 0; }
  const std::deque<paced_message>& messages() const { return messages_; }
  const paced_message* find(std::uint64_t id) const;

 private:
  std::deque<paced_message> messages_;
  time_point walked_to_{};
};

template <typename Visit>
void paced_log::walk(time_point now, Visit&& visit) {
  walked_to_ = std::max(walked_to_, now);
  for (paced_message& p : messages_) {
    if (p.settled()) continue;
    const u128 reached = frontier(walked_to_ - p.start, p.spread);
    if (reached <= p.walked) continue;
    // Positions x in [walked, reached) are places u = x - turn, wrapping round the ring.
    const u128 first = static_cast<std::uint64_t>(static_cast<std::uint64_t>(p.walked) - p.turn);
    const u128 end = first + (reached - p.walked);
    if (end <= whole_ring) {
      visit(first, end, p);
    } else {
      visit(first, whole_ring, p);
      visit(u128{0}, end - whole_ring, p);
    }
    p.walked = reached;
  }
}

}  // namespace ringcast::pacing
