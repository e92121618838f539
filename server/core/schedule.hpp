// Promotions waiting to be published (docs/protocol.md, "Scheduled publish"): each waits on its
// loop's timing wheel, not on a timer of its own, and is handed to `publish` when it comes due.
//
// Entries live in a slab (a deque, so they never move) reused through a free list: a waiting
// promotion costs its wheel node, its time, its slot's generation and the posted request, and no
// allocation of its own beyond the request's text. A schedule id names a slot and its
// generation, so an id whose slot has since been reused is unknown, not a different promotion.
// Used from one event loop only.
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "session.hpp"

namespace ringcast {

class schedule {
 public:
  using time_point = timing_wheel::time_point;
  // Called with the posted request when a promotion comes due (it has left the schedule by then).
  using publish_fn = std::function<void(const std::string& request_json)>;
  // Arms or disarms a node on the owning loop's wheel (hub::arm / hub::disarm).
  using arm_fn = std::function<void(timed&, time_point)>;
  using disarm_fn = std::function<void(timed&)>;

  schedule(std::size_t limit, arm_fn arm, disarm_fn disarm, publish_fn publish);
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

 private:
  struct entry final : timed {
    explicit entry(schedule& owner) : owner_(&owner) {}
    void on_timer(time_point now) override;
    schedule* owner_;
    std::int64_t at_ms = 0;
    std::uint32_t generation = 0;  // bumped when the slot is freed
    std::string request_json;      // empty: the slot is free
  };
  static std::string id_of(std::uint32_t slot, std::uint32_t generation);
  entry* find(std::string_view id);
  void release(entry& e);
  void fire(entry& e);

  std::size_t limit_;
  arm_fn arm_;
  disarm_fn disarm_;
  publish_fn publish_;
  std::deque<entry> slots_;
  std::vector<std::uint32_t> free_;
  std::size_t size_ = 0;
};

}  // namespace ringcast
