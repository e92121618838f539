#pragma once

#include <cstdint>
#include <optional>
#include <span>
#include <vector>

namespace ringcast::load {

// What one client received, by message id, across all its connections. Ids are strictly
// increasing (docs/protocol.md, "Message ids and resume") but not dense (the server may derive them
// from a clock), so the set is a sorted vector that almost always grows at its end. The base is the
// last_id the client's first hello reported. Every broadcast published with a larger id must arrive
// exactly once; ones at or below the base were published before the client existed.
class id_tracker {
 public:
  // The first call fixes the base; later hellos (reconnects) do not move it.
  void set_base(std::uint64_t last_id);
  bool has_base() const { return base_.has_value(); }
  std::uint64_t base() const { return base_.value_or(0); }

  enum class outcome { fresh, duplicate, before_base };
  outcome record(std::uint64_t id);

  struct tally {
    std::uint64_t expected = 0;  // published ids above the base
    std::uint64_t received = 0;  // of those, how many arrived
    std::uint64_t lost = 0;      // expected - received
  };
  // `published` is every id the publisher got back, sorted ascending. Ids this client got that are
  // not in it (someone else's publish) count neither as expected nor as received.
  tally count(std::span<const std::uint64_t> published) const;

  std::uint64_t duplicates() const { return duplicates_; }

 private:
  bool seen(std::uint64_t id) const;

  std::optional<std::uint64_t> base_;
  std::vector<std::uint64_t> received_;  // ascending, each id once
  std::uint64_t duplicates_ = 0;
};

}  // namespace ringcast::load
