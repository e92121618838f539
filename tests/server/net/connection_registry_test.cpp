// The loop's connection registry (net/connection_registry.hpp): connections register under their
// kind, change state, and leave when they are destroyed; the walks see exactly what is open.
#include "net/connection_registry.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <vector>

namespace ringcast {
namespace {

class fake_connection final : public registered_connection {
 public:
  fake_connection(connection_registry& r, connection_kind kind, int number,
                  connection_state state = connection_state::busy)
      : registered_connection(r, kind, state), id(number) {}
  void move_to(connection_state s) { set_state(s); }
  int id;
};

std::vector<int> ids(connection_registry& r, connection_kind kind) {
  std::vector<int> out;
  r.for_each<fake_connection>(kind, [&](fake_connection& c) { out.push_back(c.id); });
  std::sort(out.begin(), out.end());
  return out;
}

TEST(ConnectionRegistryTest, KeepsEachKindApartAndForgetsTheDestroyed) {
  connection_registry r;
  auto a = std::make_unique<fake_connection>(r, connection_kind::http, 1);
  auto b = std::make_unique<fake_connection>(r, connection_kind::ws, 2);
  auto c = std::make_unique<fake_connection>(r, connection_kind::http, 3);
  auto d = std::make_unique<fake_connection>(r, connection_kind::poll, 4);
  EXPECT_EQ(ids(r, connection_kind::http), (std::vector<int>{1, 3}));
  EXPECT_EQ(ids(r, connection_kind::ws), (std::vector<int>{2}));
  EXPECT_EQ(ids(r, connection_kind::sse), std::vector<int>{});
  EXPECT_EQ(ids(r, connection_kind::poll), (std::vector<int>{4}));
  EXPECT_EQ(a->kind(), connection_kind::http);
  EXPECT_EQ(d->kind(), connection_kind::poll);

  a.reset();  // the first registered, in the middle of its list's order
  EXPECT_EQ(ids(r, connection_kind::http), (std::vector<int>{3}));
  c.reset();
  b.reset();
  EXPECT_EQ(ids(r, connection_kind::http), std::vector<int>{});
  EXPECT_EQ(ids(r, connection_kind::ws), std::vector<int>{});
  EXPECT_EQ(ids(r, connection_kind::poll), (std::vector<int>{4}));
}

TEST(ConnectionRegistryTest, CountsAndListsByState) {
  connection_registry r;
  fake_connection a(r, connection_kind::http, 1, connection_state::idle);
  fake_connection b(r, connection_kind::http, 2);
  fake_connection c(r, connection_kind::http, 3, connection_state::idle);
  fake_connection p(r, connection_kind::poll, 4, connection_state::idle);
  EXPECT_EQ(r.count(connection_kind::http, connection_state::idle), 2u);
  EXPECT_EQ(r.count(connection_kind::http, connection_state::busy), 1u);
  EXPECT_EQ(r.count(connection_kind::http, connection_state::parked), 0u);
  EXPECT_EQ(r.count(connection_kind::poll, connection_state::idle), 1u);

  a.move_to(connection_state::parked);
  p.move_to(connection_state::busy);
  EXPECT_EQ(a.state(), connection_state::parked);
  EXPECT_EQ(r.count(connection_kind::http, connection_state::idle), 1u);
  EXPECT_EQ(r.count(connection_kind::http, connection_state::parked), 1u);
  EXPECT_EQ(r.count(connection_kind::poll, connection_state::busy), 1u);
  const auto parked = r.in_state<fake_connection>(connection_kind::http, connection_state::parked);
  ASSERT_EQ(parked.size(), 1u);
  EXPECT_EQ(parked[0]->id, 1);
}

// A walk's step may end the connection it is given (a drained connection that closes), and a
// connection opened during a walk is not met by it.
TEST(ConnectionRegistryTest, AWalkSurvivesItsStepsEndingAndOpeningConnections) {
  connection_registry r;
  std::vector<std::unique_ptr<fake_connection>> open;
  for (int i = 0; i < 5; ++i)
    open.push_back(std::make_unique<fake_connection>(r, connection_kind::http, i));
  std::vector<int> met;
  r.for_each<fake_connection>(connection_kind::http, [&](fake_connection& c) {
    const int id = c.id;  // `c` is gone once its owner is reset
    met.push_back(id);
    if (id % 2 == 0) open[static_cast<std::size_t>(id)].reset();
    open.push_back(std::make_unique<fake_connection>(r, connection_kind::http, 100 + id));
  });
  std::sort(met.begin(), met.end());
  EXPECT_EQ(met, (std::vector<int>{0, 1, 2, 3, 4}));
  EXPECT_EQ(ids(r, connection_kind::http), (std::vector<int>{1, 3, 100, 101, 102, 103, 104}));
}

}  // namespace
}  // namespace ringcast
