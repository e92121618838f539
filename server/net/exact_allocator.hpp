// An allocator for the handler of an operation that stays pending for long (an idle connection's
// wait for its socket to become readable): the operation gets a block of its own size. Without an
// allocator of its own a handler gets asio's recycling allocator, which hands the operation the
// block its thread freed last if that is large enough (an accept's, a connection's hand-off to its
// session's loop: up to ~630 bytes), and an idle connection keeps that block as long as it idles
// (docs/performance.md, section 16, "The connect path, second pass").
#pragma once

#include <cstddef>
#include <new>

namespace ringcast {

template <class T>
struct exact_allocator {
  using value_type = T;
  exact_allocator() = default;
  template <class U>
  exact_allocator(const exact_allocator<U>&) noexcept {}  // NOLINT(google-explicit-constructor)
  T* allocate(std::size_t n) { return static_cast<T*>(::operator new(n * sizeof(T))); }
  void deallocate(T* p, std::size_t) noexcept { ::operator delete(p); }
  template <class U>
  bool operator==(const exact_allocator<U>&) const noexcept {
    return true;
  }
};

}  // namespace ringcast
