#include "net/thread_heap.hpp"

#include <cstdlib>
#include <vector>

namespace ringcast {

void reserve_thread_heap(std::size_t bytes) {
  // Pieces below glibc's mmap threshold (128 KiB), so that they come from the thread's heap.
  constexpr std::size_t piece = 64 * 1024;
  std::vector<void*> taken;
  taken.reserve(bytes / piece);
  for (std::size_t total = 0; total + piece <= bytes; total += piece) {
    void* p = std::malloc(piece);
    if (!p) break;
    taken.push_back(p);
  }
  // From the top down: each free joins the top, which goes back to the kernel as it grows.
  for (auto it = taken.rbegin(); it != taken.rend(); ++it)
    std::free(*it);
}

}  // namespace ringcast
