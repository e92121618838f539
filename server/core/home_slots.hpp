// Which event loop holds a user's sessions. All of a user's sessions live on one loop, because
// its per-user limit, presence and kicks are counted there; but that loop need not be fixed by a
// hash of the name. A user's name falls in one of a fixed number of slots, and a slot belongs to
// the loop that read the first connect of any of its users, for as long as the slot counts a
// session or a connect on its way to one. So a connect is served on the loop that accepted it,
// unless another user of its slot (or the user's own earlier session) lives elsewhere: then it is
// handed there, as every connect of another loop's user was before (docs/performance.md §20).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <optional>
#include <string_view>
#include <utility>
#include <vector>

namespace ringcast {

class home_slots {
 public:
  // 2^17 slots of 8 bytes: 1 MiB, touched here once, so it is the process's and no connection's.
  // Users in one slot share a loop, as users hashing to one loop did: with 20,000 users, about
  // one new user in 13 finds its slot held, half of those by another loop.
  static constexpr std::size_t slot_count = std::size_t{1} << 17;

  explicit home_slots(std::size_t loops);

  // A connect's hold on its user's slot, from the loop that read it until its session exists (the
  // session counts itself) or the connect is refused or fails. Released when it goes.
  class ticket {
   public:
    ticket() = default;
    ticket(ticket&& o) noexcept : slots_(std::exchange(o.slots_, nullptr)), slot_(o.slot_) {}
    ticket& operator=(ticket&& o) noexcept {
      std::swap(slots_, o.slots_);
      std::swap(slot_, o.slot_);
      return *this;
    }
    ~ticket() {
      if (slots_) slots_->release_slot(slot_);
    }

   private:
    friend class home_slots;
    ticket(home_slots* s, std::size_t slot) : slots_(s), slot_(slot) {}
    home_slots* slots_ = nullptr;
    std::size_t slot_ = 0;
  };
  struct home {
    std::size_t loop;
    ticket held;
  };
  // The loop `user`'s sessions live on: the slot's, or `here` when the slot is free.
  home hold(std::string_view user, std::size_t here);

  // A session of `user` made on loop `here` counts in its slot: true if the slot is now held by
  // `here` (always, after a ticket of that loop). False if another loop holds it: the session
  // does not count, and nothing else of the user's is on `here`'s word.
  bool count_session(std::string_view user, std::size_t here);
  void uncount_session(std::string_view user) { release_slot(slot_of(user)); }

  // The loop that holds `user`'s slot, or nullopt when no session or connect of its users is
  // anywhere.
  std::optional<std::size_t> holder(std::string_view user) const;

 private:
  // A slot's word: its holder in the low 16 bits, and above them how many sessions and connects
  // on their way count in it. Zero is a free slot.
  static constexpr unsigned loop_bits = 16;
  static constexpr std::uint64_t loop_mask = (std::uint64_t{1} << loop_bits) - 1;
  static constexpr std::uint64_t one = std::uint64_t{1} << loop_bits;

  static std::size_t slot_of(std::string_view user);
  // One more count in `slot`, by `here` if it is free; the holder either way.
  std::size_t take(std::size_t slot, std::size_t here);
  void release_slot(std::size_t slot);

  std::vector<std::atomic<std::uint64_t>> slots_;
};

}  // namespace ringcast
