// Tests that count the heap with glibc's own accounting (mallinfo2), which sees every path
// (Asio allocates its operations with aligned new, OpenSSL with its own hooks).
#pragma once

#include <malloc.h>

#include <cstdlib>

namespace ringcast::test {

// Whether mallinfo2 sees this process's allocations (not when a sanitizer's allocator serves
// them): a 64 KiB block must show in the bytes in use.
inline bool glibc_counts_the_heap() {
  const std::size_t before = mallinfo2().uordblks;
  void* volatile block = std::malloc(64 * 1024);
  const bool counted = mallinfo2().uordblks >= before + 64 * 1024;
  std::free(block);
  return counted;
}

}  // namespace ringcast::test
