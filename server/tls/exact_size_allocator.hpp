// An allocator for Asio operations that takes each operation's memory from the heap at its own
// size. Asio's default (and std::allocator, which Asio treats as the default) recycles the last
// blocks its thread freed, handing a later operation any block at least as large: the ~1 KB
// operation that writes an upgrade's 101 was then kept by the idle wait of the connection that
// followed, ~850 bytes more than the wait needs, for as long as the connection lived
// (docs/performance.md, section 17). One-off operations this large use this allocator, so that
// what the thread recycles stays the size of the operations that come and go; so does every
// readiness wait of net_stream, the one operation an idle connection keeps pending.
#pragma once

#include <cstddef>
#include <new>

namespace ringcast {

template <class T>
struct exact_size_allocator {
  using value_type = T;
  exact_size_allocator() = default;
  template <class U>
  exact_size_allocator(const exact_size_allocator<U>&) noexcept {}
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T))); }
  void deallocate(T* p, std::size_t) noexcept { ::operator delete(p); }
  template <class U>
  bool operator==(const exact_size_allocator<U>&) const noexcept {
    return true;
  }
};

}  // namespace ringcast
