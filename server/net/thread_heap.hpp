// The event loop thread's heap, grown once before the loop serves anything. glibc gives each thread
// an arena of its own, whose heap it extends with an mprotect() whenever an allocation reaches the
// top: while connections arrive that was about one connect in six at 2,000/s, a system call on the
// connect's path that also changes the process's memory map under its lock, which the other loop's
// page faults wait for (docs/performance.md §23). glibc never takes back that extension when it
// gives the top of the heap back to the kernel (madvise), so allocating and freeing `bytes` once
// here leaves nothing resident, and the loop's first `bytes` of growth need no mprotect().
#pragma once

#include <cstddef>

namespace ringcast {

// At most the size of one glibc heap (64 MiB on 64-bit); more is simply not reserved.
void reserve_thread_heap(std::size_t bytes);

}  // namespace ringcast
