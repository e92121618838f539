// Promotions waiting to be published (docs/protocol.md, "Scheduled publish"): each waits on its
// loop's timing wheel, not on a timer of its own, and is handed to `publish` when it comes due.
//
// Entries live in a slab of fixed chunks (so they never move) reused through a free list: a
// waiting promotion costs its wheel node, its time, its slot's generation and the posted request
// (96 bytes), and no allocation of its own beyond a request too long for std::string's inline
// buffer. bench/promotion_bench.cpp measures it. A schedule id names a slot and its
// generation, so an id whose slot has since been reused is unknown, not a different promotion.
// Used from one event loop only.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "core/loop_timers.hpp"
#include "upgrade/handover_state.hpp"
#include "upgrade/promotion_record.hpp"

namespace ringcast {

class schedule {
 public:
  using time_point = timing_wheel::time_point;
  // Called with the posted request when a promotion comes due (it has left the schedule by then).
  using publish_fn = std::function<void(const std::string& request_json)>;

  // `timers`: the owning loop's. Its wheel runs on the steady clock, so a promotion that comes due
  // there checks the wall clock (timers.unix_ms()) too: one set back while it waited waits the
  // difference again, and is never published early.
  schedule(std::size_t limit, loop_timers& timers, publish_fn publish);
  ~schedule();
  schedule(const schedule&) = delete;
  schedule& operator=(const schedule&) = delete;

  // Waits `request_json` until `due` (`at_ms`: the same instant as Unix ms, for listing).
  // nullopt: `limit` promotions are already waiting.
  std::optional<std::string> add(std::int64_t at_ms, time_point due, std::string request_json);
  // True if it was waiting (it will not be published); false for an unknown id.
  bool cancel(std::string_view id);

  struct waiting_view {
    std::string id;
    std::int64_t at_ms;
    std::string_view request_json;
  };
  // Every waiting promotion, earliest `at` first.
  std::vector<waiting_view> list() const;
  std::size_t size() const { return size_; }
  std::size_t limit() const { return limit_; }

  // The handover to a new binary (schedule_handover.cpp): every slot's generation and the
  // promotions waiting, each due as far after `now` as it was on the timers' wheel. restore: into
  // a schedule that never held anything; the ids
  // issued before mean the same promotions (or none) after.
  upgrade::schedule_state capture(time_point now) const;
  void restore(const upgrade::schedule_state& state, time_point now);

 private:
  // A slot: its promotion's record (upgrade/promotion_record.hpp; request_json empty: the slot
  // is free), its node in the wheel (its tag is the slot) and its generation.
  struct entry final : timed, upgrade::promotion_record {
    void on_timer(time_point now) override;
    schedule* owner_ = nullptr;
    std::uint32_t generation = 0;  // bumped when the slot is freed
  };
  static std::string id_of(std::uint32_t slot, std::uint32_t generation);
  entry* find(std::string_view id);
  entry& at(std::uint32_t slot) { return chunks_[slot / chunk_size][slot % chunk_size]; }
  const entry& at(std::uint32_t slot) const {
    return chunks_[slot / chunk_size][slot % chunk_size];
  }
  void release(entry& e);
  void fire(entry& e, time_point now);

  std::size_t limit_;
  loop_timers& timers_;
  publish_fn publish_;
  // One allocation per 1,024 entries: a deque's 512-byte blocks would add ~4 bytes per entry.
  static constexpr std::uint32_t chunk_size = 1024;
  std::vector<std::unique_ptr<entry[]>> chunks_;
  std::uint32_t slots_used_ = 0;  // slots ever handed out
  std::vector<std::uint32_t> free_;
  std::size_t size_ = 0;
};

}  // namespace ringcast
