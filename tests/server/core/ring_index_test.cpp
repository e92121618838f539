// The index of live sessions by place (server/core/ring_index.hpp): a range visits exactly the
// nodes whose place is inside it, across bucket growth and erasure, checked against a plain scan.
#include "core/ring_index.hpp"

#include <algorithm>
#include <cstdint>
#include <list>
#include <random>
#include <vector>

#include <gtest/gtest.h>

namespace ringcast::pacing {
namespace {

struct node {
  std::uint64_t place = 0;
  ring_link<node> link;
};
using index = ring_index<node, &node::place, &node::link>;

std::vector<const node*> visited(const index& ix, ring_pos first, ring_pos end) {
  std::vector<const node*> out;
  ix.visit_range(first, end, [&](node& n) { out.push_back(&n); });
  std::sort(out.begin(), out.end());
  return out;
}

std::vector<const node*> expected(const std::list<node>& all, const std::vector<bool>& in,
                                  ring_pos first, ring_pos end) {
  std::vector<const node*> out;
  std::size_t i = 0;
  for (const node& n : all) {
    if (in[i++] && n.place >= first && n.place < end) out.push_back(&n);
  }
  std::sort(out.begin(), out.end());
  return out;
}

TEST(RingIndex, RangesHoldExactlyTheirPlacesWhileItGrowsAndShrinks) {
  std::mt19937_64 rng(11);
  std::list<node> all;  // stable addresses
  std::vector<bool> in;
  index ix;
  const std::size_t first_buckets = ix.bucket_count();
  for (int i = 0; i < 5'000; ++i) {
    // Duplicated places too: sessions may share one.
    const std::uint64_t place = i % 10 == 9 ? all.back().place : rng();
    all.emplace_back().place = place;
    ix.insert(all.back());
    in.push_back(true);
  }
  EXPECT_GT(ix.bucket_count(), first_buckets);
  EXPECT_LE(ix.size(), 2 * ix.bucket_count());
  std::size_t i = 0;
  for (node& n : all) {
    if (i % 3 == 0) {
      ix.erase(n);
      in[i] = false;
    }
    ++i;
  }
  EXPECT_EQ(ix.size(), static_cast<std::size_t>(std::count(in.begin(), in.end(), true)));
  const ring_pos whole = ring_pos{1} << 64;
  EXPECT_EQ(visited(ix, 0, whole), expected(all, in, 0, whole));
  for (int k = 0; k < 300; ++k) {
    const ring_pos a = rng(), b = k % 2 ? ring_pos{rng()} : a + (rng() >> (k % 60));
    const ring_pos first = std::min(a, b), end = std::min(std::max(a, b), whole);
    ASSERT_EQ(visited(ix, first, end), expected(all, in, first, end)) << k;
  }
  // A node at either end of the ring, and empty ranges.
  all.emplace_back().place = 0;
  ix.insert(all.back());
  all.emplace_back().place = ~std::uint64_t{0};
  ix.insert(all.back());
  in.push_back(true);
  in.push_back(true);
  EXPECT_EQ(visited(ix, 0, 1).size(), std::size_t{1});
  EXPECT_EQ(visited(ix, whole - 1, whole).size(), std::size_t{1});
  EXPECT_TRUE(visited(ix, 5, 5).empty());
  ix.clear();
  EXPECT_TRUE(visited(ix, 0, whole).empty());
}

}  // namespace
}  // namespace ringcast::pacing
