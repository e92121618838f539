// reserve_thread_heap against the process's memory map: a new thread's heap is writable only as
// far as it has grown; once reserved, it stays writable that far (so growing into it needs no
// mprotect) while none of it stays resident.
#include "net/thread_heap.hpp"

#include <cstdint>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <thread>

#include <gtest/gtest.h>

#include "glibc_heap.hpp"

namespace ringcast {
namespace {

struct mapping {
  std::uintptr_t begin = 0, end = 0;
  bool writable = false;
  std::size_t resident_kb = 0;
};

// The mapping of /proc/self/smaps that holds `address`.
mapping mapping_of(const void* address) {
  const auto at = reinterpret_cast<std::uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  mapping found;
  bool inside = false;
  while (std::getline(smaps, line)) {
    std::uintptr_t begin = 0, end = 0;
    char dash = 0;
    std::string perms;
    std::istringstream fields(line);
    if (fields >> std::hex >> begin >> dash >> end >> perms && dash == '-') {
      if (inside) break;
      inside = begin <= at && at < end;
      if (inside) found = {begin, end, perms.size() > 1 && perms[1] == 'w', 0};
    } else if (inside && line.starts_with("Rss:")) {
      found.resident_kb = std::stoul(line.substr(4));
    }
  }
  return found;
}

TEST(ThreadHeap, AReservedHeapStaysWritableThatFarWithNothingOfItResident) {
  if (!test::glibc_counts_the_heap()) GTEST_SKIP() << "the heap is not glibc's (a sanitizer's)";
  constexpr std::size_t reserve = 16 * 1024 * 1024;
  mapping before, after;
  // A thread of its own: its first allocation makes it an arena and a heap.
  std::thread([&] {
    void* volatile first = std::malloc(64);
    before = mapping_of(first);
    reserve_thread_heap(reserve);
    after = mapping_of(first);
    std::free(first);
  }).join();
  ASSERT_TRUE(before.writable);
  EXPECT_LT(before.end - before.begin, reserve / 2);  // not grown yet
  ASSERT_TRUE(after.writable);
  EXPECT_EQ(after.begin, before.begin);
  EXPECT_GE(after.end - after.begin, reserve);
  EXPECT_LT(after.resident_kb, 1024u);  // given back: address space, not memory
}

}  // namespace
}  // namespace ringcast
