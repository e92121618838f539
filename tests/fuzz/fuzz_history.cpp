// history against a model that keeps every id ever appended. Each input byte either appends a
// message with a larger id or asks for a resume after some id. A resume gets exactly the retained
// messages after `since`, oldest first, and `gap` is set exactly when a message after `since` was
// evicted, `since` predates this run (below the floor) or was never issued (above the newest).
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "core/history.hpp"
#include "fuzz_check.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size < 2) return 0;
  const std::size_t capacity = 1 + data[0] % 16;
  const std::uint64_t floor_id = data[1];
  ringcast::history h(capacity, floor_id);
  std::vector<std::uint64_t> appended;  // every id, oldest first

  for (std::size_t i = 2; i < size; ++i) {
    const std::uint8_t op = data[i];
    const std::uint64_t newest = appended.empty() ? floor_id : appended.back();
    if (op & 0x80) {
      const std::uint64_t id = newest + 1 + (op & 0x07);  // ids may skip (other loops' users)
      h.append(ringcast::make_message(id, 0, {ringcast::audience::broadcast, ""}, "null"));
      appended.push_back(id);
      continue;
    }
    // since: anywhere from well below the floor to a little past the newest id.
    const std::uint64_t since = std::max<std::int64_t>(
        0, static_cast<std::int64_t>(newest) + 4 - static_cast<std::int64_t>(op));
    const auto span = h.after(since);
    FUZZ_CHECK(h.newest_id() == newest);

    const std::size_t kept = std::min(capacity, appended.size());
    const auto retained_begin = appended.end() - static_cast<std::ptrdiff_t>(kept);
    std::vector<std::uint64_t> expected;
    if (since <= newest)
      std::copy_if(retained_begin, appended.end(), std::back_inserter(expected),
                   [&](std::uint64_t id) { return id > since; });
    std::vector<std::uint64_t> got;
    for (auto it = span.begin; it != span.end; ++it)
      got.push_back((*it)->id);
    FUZZ_CHECK(got == expected);

    const bool evicted_after_since =
        std::any_of(appended.begin(), retained_begin, [&](std::uint64_t id) { return id > since; });
    FUZZ_CHECK(span.gap == (evicted_after_since || since < floor_id || since > newest));
  }
  return 0;
}
