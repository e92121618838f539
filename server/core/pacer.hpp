// One loop's paced delivery (docs/protocol.md, "Paced publish"; docs/architecture.md, "Paced
// delivery"): a publish with "spread" reaches each live session at its own turn (core/pacing.hpp),
// walked a tick at a time over the index of live sessions by place; a session that comes back is
// sent what it is owed exactly once (resume_backlog).
#pragma once

#include <cstdint>
#include <utility>
#include <vector>

#include "config/config.hpp"
#include "core/history.hpp"
#include "core/loop_stats.hpp"
#include "core/loop_timers.hpp"
#include "core/message.hpp"
#include "core/pacing.hpp"
#include "core/ring_index.hpp"
#include "core/session.hpp"

namespace ringcast {

class pacer {
 public:
  using time_point = timing_wheel::time_point;

  pacer(const config& cfg, loop_timers& timers, loop_stats& stats)
      : cfg_(cfg), stats_(stats), timer_(*this, timers) {}
  ~pacer() { index_.clear(); }  // before the sessions linked into it are destroyed

  // `m` (paced, in history, its live audience counted) starts its window now: the sessions
  // whose offset is 0 get it at once.
  void publish(const message_ptr& m, time_point now);
  // Hands every turn that came by `now` to its live session, and re-arms for the next tick while
  // a message is in flight.
  void walk(time_point now);

  // A live session joins the ring; one that leaves it is owed the turns that come while it is away.
  void join(session& s) { index_.insert(s); }
  void leave(session& s) {
    index_.erase(s);
    s.paced_until_ = log_.walked_to();
  }

  // Whether `m` reaches `s` at its turn: addressed to it, not expired, and published after the
  // session started (or sticky).
  bool paced_for(const session& s, const message& m) const;
  // Whether `m` may have reached `s`, for its expiry notice: `s` was there before it (or
  // resumed), and a paced m's turn came.
  bool reached(const session& s, const message& m) const;
  // Whether `s`'s turn for `m` has come (always, for a message that is not paced).
  bool turn_came(const session& s, const message& m) const;
  // What a session that resumes after `since` is owed: see pacer.cpp. `span`: history after
  // `since`; `new_here`: the session was created by this connect.
  std::vector<message_ptr> resume_backlog(const session& s, std::uint64_t since,
                                          history::resume_span span, bool new_here,
                                          const history& h) const;

  time_point walked_to() const { return log_.walked_to(); }
  std::size_t in_flight() const { return log_.in_flight(); }
  // The paced message with this id while the log holds it, else null.
  message_ptr find(std::uint64_t id) const {
    const pacing::paced_message* p = log_.find(id);
    return p ? p->msg : nullptr;
  }

 private:
  friend class hub;  // capture and restore (core/loop_handover.cpp) read and refill the log
  time_point left_at_estimate(const session& s, std::uint64_t since, const history& h) const;

  class pacing_timer final : public loop_timer {
   public:
    pacing_timer(pacer& p, loop_timers& timers) : loop_timer(timers), pacer_(p) {}
    void on_timer(time_point now) override { pacer_.walk(now); }

   private:
    pacer& pacer_;
  };
  // Live sessions by their place on the pacing ring; a paced message walks it (core/pacing.hpp).
  using pacing_index = pacing::ring_index<session, &session::place_, &session::pacing_link_>;

  const config& cfg_;
  loop_stats& stats_;
  pacing::paced_log log_;
  pacing_index index_;
  pacing_timer timer_;
  // Reused by every walk: the (session, message) turns that came in this tick, and the messages
  // of one session when it has several.
  std::vector<std::pair<session*, const message_ptr*>> turns_;
  std::vector<message_ptr> batch_;
};

}  // namespace ringcast
