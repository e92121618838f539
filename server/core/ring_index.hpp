// The live sessions of one loop by their place on the pacing ring (core/pacing.hpp), for the paced
// walk: which sessions have a place in [first, end)?
//
// The ring is cut into 2^k equal buckets by the top bits of the place; each bucket is an intrusive
// doubly linked list through the nodes themselves (no allocation per node), and the bucket heads
// are one contiguous array. Insert and erase are O(1) (a long-poll enters and leaves at every
// poll); a range visits its buckets, all of whose nodes but those of the two end buckets are
// inside it. The buckets double when there are more than two nodes a bucket on average (places
// are uniform hashes, so buckets stay short), and never shrink: 8 bytes a bucket, at most 8 bytes
// per node of the loop's busiest moment. Within a range, nodes come in no particular order.
#pragma once

#include <algorithm>
#include <cstdint>
#include <vector>

namespace ringcast::pacing {

__extension__ typedef unsigned __int128 ring_pos;  // a position, or 2^64 itself

template <class Node>
struct ring_link {
  Node* prev = nullptr;
  Node* next = nullptr;
};

// `Node` has a `std::uint64_t` member `Place` (fixed while it is in the index) and a
// `ring_link<Node>` member `Link`.
template <class Node, std::uint64_t Node::*Place, ring_link<Node> Node::*Link>
class ring_index {
 public:
  ring_index() : heads_(std::size_t{1} << initial_bits, nullptr) {}
  ring_index(const ring_index&) = delete;
  ring_index& operator=(const ring_index&) = delete;

  void insert(Node& n) {
    if (size_ >= 2 * heads_.size()) grow();
    link(n);
    ++size_;
  }
  void erase(Node& n) {
    ring_link<Node>& l = n.*Link;
    if (l.prev) {
      (l.prev->*Link).next = l.next;
    } else {
      heads_[bucket_of(n.*Place)] = l.next;
    }
    if (l.next) (l.next->*Link).prev = l.prev;
    l = {};
    --size_;
  }
  void clear() {
    std::fill(heads_.begin(), heads_.end(), nullptr);
    size_ = 0;
  }
  std::size_t size() const { return size_; }
  std::size_t bucket_count() const { return heads_.size(); }

  // Calls visit(Node&) for every node whose place p has first <= p < end (end at most 2^64). The
  // index must not change during the visit.
  template <class Visit>
  void visit_range(ring_pos first, ring_pos end, Visit&& visit) const {
    if (end <= first) return;
    const std::size_t last = bucket_of(static_cast<std::uint64_t>(end - 1));
    for (std::size_t b = bucket_of(static_cast<std::uint64_t>(first)); b <= last; ++b) {
      // Every node of a bucket strictly between the end buckets is in the range.
      const bool inner = b != bucket_of(static_cast<std::uint64_t>(first)) && b != last;
      for (Node* n = heads_[b]; n; n = (n->*Link).next) {
        const std::uint64_t p = n->*Place;
        if (inner || (p >= first && p < end)) visit(*n);
      }
    }
  }

 private:
  static constexpr unsigned initial_bits = 6;

  std::size_t bucket_of(std::uint64_t place) const { return place >> shift_; }
  void link(Node& n) {
    Node*& head = heads_[bucket_of(n.*Place)];
    n.*Link = {nullptr, head};
    if (head) (head->*Link).prev = &n;
    head = &n;
  }
  void grow() {
    std::vector<Node*> old(heads_.size() * 2, nullptr);
    old.swap(heads_);
    --shift_;
    for (Node* head : old) {
      for (Node* n = head; n;) {
        Node* next = (n->*Link).next;
        link(*n);
        n = next;
      }
    }
  }

  std::vector<Node*> heads_;
  unsigned shift_ = 64 - initial_bits;
  std::size_t size_ = 0;
};

}  // namespace ringcast::pacing
