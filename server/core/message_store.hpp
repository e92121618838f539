// What one loop holds of the published messages: the history a resume reads (core/history.hpp),
// the sticky messages in force (core/sticky.hpp), each message's ttl on the loop's wheel and its
// take-down, the seeding of a node that joins a cluster, and what a connect is sent before live
// messages (message_store_backlog.cpp: a resume, a first connect's sticky and rewound messages).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <optional>
#include <unordered_map>
#include <vector>

#include "config/config.hpp"
#include "core/history.hpp"
#include "core/loop_stats.hpp"
#include "core/loop_timers.hpp"
#include "core/message.hpp"
#include "core/session.hpp"
#include "core/sticky.hpp"
#include "protocol/client_params.hpp"
#include "upgrade/expiry_record.hpp"

namespace ringcast {

class audience_index;
class pacer;

class message_store {
 public:
  using time_point = timing_wheel::time_point;

  // `floor_id`: ids at or below it were issued before this run (see history). The expired notice
  // goes to the live sessions `audience` finds that `pacer` says it reached.
  message_store(const config& cfg, loop_timers& timers, loop_stats& stats, std::uint64_t floor_id,
                audience_index& audience, const pacer& pacer);

  // A published message: into history, the sticky set if it is sticky and in force, and with
  // expires_ms, a timer for its ttl from `now`.
  void keep(const message_ptr& m, time_point now);
  // The message with this id if it is still in history, else null.
  message_ptr find(std::uint64_t id) const;
  // ... if this loop still holds it (history, the sticky set or the paced log), else null.
  message_ptr find_held(std::uint64_t id) const;
  bool claim_take_down(const message_ptr& m);
  void take_down(const message_ptr& m, time_point now);
  std::vector<message_ptr> retained() const;
  std::vector<message_ptr> newest(std::size_t n) const;
  void seed_history(const std::vector<message_ptr>& retained, time_point now, std::int64_t now_ms);
  void seed_in_force(const std::vector<message_ptr>& in_force, time_point now, std::int64_t now_ms);

  std::uint64_t newest_id() const { return history_.newest_id(); }
  std::size_t sticky_in_force() const { return sticky_.size(); }
  const std::vector<message_ptr>& sticky_messages() const { return sticky_.in_force(); }
  const history& messages() const { return history_; }

  // message_store_backlog.cpp. What a connect without `since` gets first: the sticky messages in
  // force and what it rewinds, addressed to it, in id order. `history_after`: history's messages
  // after this id are part of it (where its rewind starts; without one, the newest id).
  std::vector<message_ptr> first_connect_backlog(session& s, const client_params& params,
                                                 std::uint64_t& history_after) const;
  // The rest of a first connect's backlog whose long-poll reply was cut (`more`), for a connect
  // of the same session with `since`, in id order after the paced messages owed from before it
  // (their number in `owed`); `gap` as a resume from the backlog's history part says it.
  std::vector<message_ptr> first_backlog_rest(const session& s, std::uint64_t since,
                                              std::size_t& owed, bool& gap) const;
  // Cuts a long-poll's backlog to one reply after its first `owed` messages, which are never cut;
  // true if messages were left for the next poll (last_id is then the last id it carries).
  bool bound_poll_batch(std::vector<message_ptr>& backlog, std::size_t owed, std::uint64_t since,
                        std::uint64_t& last_id) const;

 private:
  friend class hub;  // capture and restore (core/loop_handover.cpp)

  // A message's ttl on this loop's wheel: its record (upgrade/expiry_record.hpp), armed at `due`.
  class expiry final : public loop_timer, public upgrade::expiry_record<message_ptr, time_point> {
   public:
    using record = upgrade::expiry_record<message_ptr, time_point>;
    expiry(message_store& owner, record r)
        : loop_timer(owner.timers_), record(std::move(r)), owner_(owner) {}
    void on_timer(time_point now) override;

   private:
    message_store& owner_;
  };
  // A timer for the message's ttl, unless it has one already.
  void expire_at(expiry::record r);
  void expire(expiry& e, time_point now);
  // `m` is marked expired: it leaves the sticky set, and the sessions that have it are told.
  void expire_now(const message_ptr& m, time_point now);

  const config& cfg_;
  loop_timers& timers_;
  loop_stats& stats_;
  audience_index& audience_;
  const pacer& pacer_;
  history history_;
  std::unordered_map<std::uint64_t, std::unique_ptr<expiry>> expiring_;  // by message id
  sticky_set sticky_;  // the sticky messages in force on this loop
};

}  // namespace ringcast
