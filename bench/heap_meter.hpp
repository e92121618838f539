// Measures the heap a piece of code leaves allocated, from glibc's own accounting (mallinfo2),
// so that every path counts: Asio allocates its wait operations with std::aligned_alloc, which a
// replaced operator new would not see. Includes the allocator's per-chunk overhead, as the
// process pays it. Single-threaded use only (the main arena).
#pragma once

#include <malloc.h>

#include <cstddef>
#include <cstdint>

namespace ringcast::bench {

class heap_meter {
 public:
  heap_meter() : start_(in_use()) {}
  std::int64_t live_bytes() const { return in_use() - start_; }

 private:
  static std::int64_t in_use() {
    const struct mallinfo2 info = mallinfo2();
    return static_cast<std::int64_t>(info.uordblks + info.hblkhd);
  }

  std::int64_t start_;
};

}  // namespace ringcast::bench
