// The node (core/node.hpp) on three simulated loops (test_loop: each its own thread and simulated
// clock), over the local backplane: the order of ids on every loop, the sticky quota, seeding and
// take-down. Nothing here opens a connection.
#include "core/node.hpp"

#include <boost/asio/post.hpp>

#include <algorithm>
#include <chrono>
#include <deque>
#include <future>
#include <memory>
#include <optional>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include <gtest/gtest.h>

#include "../net/test_loop.hpp"
#include "core/local_backplane.hpp"
#include "core/session_budget.hpp"
#include "upgrade/state_codec.hpp"

namespace ringcast {
namespace {

using namespace std::chrono_literals;

config node_config() {
  config cfg;
  cfg.history = 500;
  return cfg;
}

// A connection as the node's loops see it: writes down how it was ended (on its loop's thread; the
// test reads it after a run() on that loop).
class ended_connection final : public subscriber {
 public:
  transport kind() const override { return transport::ws; }
  void deliver(const message_ptr&) override {}
  void heartbeat() override {}
  void end(const ending_notice& notice) override { endings.push_back(notice.why); }

  std::vector<ending> endings;
};

class NodeTest : public ::testing::Test {
 protected:
  static constexpr std::uint64_t floor_id = 1'000'000;
  static constexpr std::size_t max_sticky = 2;

  NodeTest() {
    for (int i = 0; i < 3; ++i)
      loops.push_back(std::make_unique<test::test_loop>(cfg));
    the_node = node_on(loops, counts, nullptr, &homes);
  }
  // A node alone (the local backplane) on `on`.
  // `budget`: --max-sessions over every loop (null: each hub alone); `homes`: where each user's
  // sessions live (null: nobody asks).
  static std::unique_ptr<node> node_on(std::vector<std::unique_ptr<test::test_loop>>& on,
                                       presence_counts& presence, session_budget* budget = nullptr,
                                       home_slots* homes = nullptr) {
    node::parts parts{.loops = {},
                      .floor_id = floor_id,
                      .max_sticky = max_sticky,
                      .presence = presence,
                      .sessions = budget,
                      .homes = homes};
    for (auto& l : on)
      parts.loops.push_back({&l->io(), &l->sessions(), &l->timers()});
    return std::make_unique<node>(std::move(parts),
                                  [](backplane_node& self, sequencer& ids, const node_loop& home,
                                     const presence_counts& c) -> std::unique_ptr<backplane> {
                                    return std::make_unique<local_backplane>(self, ids,
                                                                             home.timers(), c, 10);
                                  });
  }
  ~NodeTest() override {
    the_node.reset();
    loops.clear();
  }

  // Publishes from the calling thread; the answer comes on loop 1.
  std::optional<node_messages::publish_receipt> publish(const std::string& body) {
    return publish_to(*the_node, loops, body);
  }
  static std::optional<node_messages::publish_receipt> publish_to(
      node& n, std::vector<std::unique_ptr<test::test_loop>>& on, const std::string& body) {
    auto req = parse_publish_request(body, 1h);
    EXPECT_TRUE(req) << req.error;
    std::promise<std::optional<node_messages::publish_receipt>> answered;
    n.publish(*req.value, on[1]->io().get_executor(), [&](auto r) { answered.set_value(r); });
    return answered.get_future().get();
  }
  promotion_outcome take_down(std::uint64_t id) {
    std::promise<promotion_outcome> answered;
    the_node->take_down(id, loops[2]->io().get_executor(),
                        [&](promotion_outcome o) { answered.set_value(o); });
    return answered.get_future().get();
  }
  // What each loop's hub holds, read on its own thread (behind everything posted to it so far).
  std::vector<std::vector<std::uint64_t>> history_ids() {
    std::vector<std::vector<std::uint64_t>> out;
    for (auto& l : loops) {
      out.push_back(l->run([&l] {
        std::vector<std::uint64_t> ids;
        for (const auto& m : l->sessions().retained())
          ids.push_back(m->id);
        return ids;
      }));
    }
    return out;
  }
  std::vector<std::size_t> sticky_in_force() {
    std::vector<std::size_t> out;
    for (auto& l : loops)
      out.push_back(l->run([&l] { return l->sessions().sticky_in_force(); }));
    return out;
  }

  // A session (user, sid) on loop `on`, live with `conn`, made on that loop's thread.
  static session* attach_on(test::test_loop& on, const std::string& user, const std::string& sid,
                            subscriber& conn) {
    client_params p;
    p.user = user;
    p.sid = sid;
    return on.run([&] { return on.sessions().attach(p, conn, on.now()).s; });
  }
  static std::size_t sessions_on(test::test_loop& on) {
    return on.run([&on] { return on.sessions().session_count(); });
  }

  config cfg = node_config();
  presence_counts counts;
  home_slots homes{3};
  // Connections outlive the loops, whose hubs end them when they stop.
  std::deque<ended_connection> connections;
  std::vector<std::unique_ptr<test::test_loop>> loops;
  std::unique_ptr<node> the_node;
};

// Four publishers at once: every id is given once, above the floor, and every loop's history
// holds the same messages in id order.
TEST_F(NodeTest, EveryLoopGetsEveryMessageInIdOrderWhoeverPublishes) {
  constexpr int publishers = 4, each = 25;
  std::vector<std::vector<std::uint64_t>> given(publishers);
  std::vector<std::thread> threads;
  for (int p = 0; p < publishers; ++p) {
    threads.emplace_back([&, p] {
      for (int i = 0; i < each; ++i) {
        const auto r = publish(R"({"data":1})");
        ASSERT_TRUE(r);
        EXPECT_FALSE(r->too_many);
        given[p].push_back(r->id);
      }
    });
  }
  for (auto& t : threads)
    t.join();
  std::set<std::uint64_t> all;
  for (const auto& ids : given) {
    EXPECT_TRUE(std::is_sorted(ids.begin(), ids.end()));  // one publisher's go up
    all.insert(ids.begin(), ids.end());
  }
  ASSERT_EQ(all.size(), std::size_t{publishers * each});
  EXPECT_EQ(*all.begin(), floor_id + 1);
  EXPECT_EQ(*all.rbegin(), floor_id + publishers * each);

  const std::vector<std::uint64_t> expected(all.begin(), all.end());
  for (const auto& held : history_ids())
    EXPECT_EQ(held, expected);
  const auto figures = the_node->figures();
  EXPECT_EQ(figures.last_id, floor_id + publishers * each);
  EXPECT_EQ(figures.published, std::uint64_t{publishers * each});
  EXPECT_EQ(the_node->why_unhealthy(), "");  // alone, the history is the loops' own
}

// --max-sticky 2: a third sticky publish is refused before it gets an id; room comes back when
// one is taken down, and when the ttl of those in force passes on the home loop's wall clock.
TEST_F(NodeTest, StickyQuotaRefusesBeyondItsLimitUntilOneGoes) {
  const auto first = publish(R"({"data":1,"sticky":true,"ttl":"10s"})");
  const auto second = publish(R"({"data":2,"sticky":true,"ttl":"10s"})");
  ASSERT_TRUE(first && second);
  EXPECT_FALSE(first->too_many || second->too_many);
  const auto refused = publish(R"({"data":3,"sticky":true,"ttl":"10s"})");
  ASSERT_TRUE(refused);
  EXPECT_TRUE(refused->too_many);
  EXPECT_EQ(refused->id, 0u);
  EXPECT_TRUE(publish(R"({"data":"plain"})"));  // not sticky: no quota
  auto figures = the_node->figures();
  EXPECT_EQ(figures.sticky_refused, 1u);
  EXPECT_EQ(figures.last_id, floor_id + 3);  // the refused one took no id

  EXPECT_EQ(take_down(first->id), promotion_outcome::ok);
  const auto after_take_down = publish(R"({"data":4,"sticky":true,"ttl":"10s"})");
  ASSERT_TRUE(after_take_down);
  EXPECT_FALSE(after_take_down->too_many);
  EXPECT_TRUE(publish(R"({"data":5,"sticky":true,"ttl":"10s"})")->too_many);

  loops[0]->advance(11s);  // the home loop's clock: both in force have expired
  const auto after_expiry = publish(R"({"data":6,"sticky":true,"ttl":"10s"})");
  ASSERT_TRUE(after_expiry);
  EXPECT_FALSE(after_expiry->too_many);
  EXPECT_EQ(the_node->figures().sticky_refused, 2u);
}

// At start-up the backplane hands the node its history and the sticky messages in force beyond
// it: every loop holds them, and the sticky ones count against the quota.
TEST_F(NodeTest, SeedsEveryLoopAndCountsTheSeededStickyMessages) {
  const std::int64_t now_ms = loops[0]->timers().unix_ms();
  const auto plain = make_message(floor_id - 5, now_ms, {}, R"("old")");
  const auto sticky = make_message(floor_id - 4, now_ms, {}, R"("held")", now_ms + 60'000,
                                   std::chrono::milliseconds{0}, true);
  const auto beyond = make_message(floor_id - 9, now_ms, {}, R"("beyond")", now_ms + 60'000,
                                   std::chrono::milliseconds{0}, true);
  the_node->seed_history({plain, sticky});
  the_node->seed_in_force({beyond});
  for (const auto& held : history_ids())
    EXPECT_EQ(held, (std::vector<std::uint64_t>{floor_id - 5, floor_id - 4}));
  EXPECT_EQ(sticky_in_force(), (std::vector<std::size_t>{2, 2, 2}));
  for (auto& l : loops)
    EXPECT_TRUE(l->run([&l, id = beyond->id] { return l->sessions().find_held(id) != nullptr; }));

  const auto refused = publish(R"({"data":1,"sticky":true})");
  ASSERT_TRUE(refused);
  EXPECT_TRUE(refused->too_many);  // the two seeded fill --max-sticky 2
  const auto next = publish(R"({"data":1})");
  ASSERT_TRUE(next);
  EXPECT_EQ(next->id, floor_id + 1);  // ids go on above the floor, not the seeded ones
}

// A take-down expires the message on every loop, once; what is not held is not found.
TEST_F(NodeTest, TakesAMessageDownOnEveryLoopOnce) {
  const auto promo = publish(R"({"data":"sale","sticky":true})");
  ASSERT_TRUE(promo);
  EXPECT_EQ(sticky_in_force(), (std::vector<std::size_t>{1, 1, 1}));
  EXPECT_EQ(take_down(promo->id), promotion_outcome::ok);
  EXPECT_EQ(sticky_in_force(), (std::vector<std::size_t>{0, 0, 0}));
  for (auto& l : loops) {
    EXPECT_TRUE(l->run([&l, id = promo->id] {
      const message_ptr m = l->sessions().find_held(id);
      return !m || m->expired.load();
    }));
    EXPECT_EQ(l->run([&l] { return l->stats().taken_down; }), l == loops[0] ? 1u : 0u);
  }
  EXPECT_EQ(take_down(promo->id), promotion_outcome::not_found);
  EXPECT_EQ(take_down(floor_id + 77), promotion_outcome::not_found);
}

// Upgrade in place: the node's state, captured with its loops idle and restored into a node of a
// new process (fresh loops and hubs), carries the sequencer (ids go on above the old ones, the
// published count, the sticky quota) and every loop's history; a state of another number of
// loops is refused.
TEST_F(NodeTest, HandsItsSequencerAndHubsToANewProcess) {
  const auto plain = publish(R"({"data":1})");
  const auto promo = publish(R"({"data":2,"sticky":true})");
  ASSERT_TRUE(plain && promo);
  history_ids();  // every loop has taken both
  handover_messages carried;
  const std::string bytes = upgrade::write_state(the_node->capture(carried));

  presence_counts fresh_counts;
  std::vector<std::unique_ptr<test::test_loop>> fresh_loops;
  for (int i = 0; i < 3; ++i)
    fresh_loops.push_back(std::make_unique<test::test_loop>(cfg));
  auto fresh = node_on(fresh_loops, fresh_counts);
  handover_messages restored;
  ASSERT_TRUE(fresh->restore(bytes, restored));
  for (auto& l : fresh_loops) {
    EXPECT_EQ(l->run([&l] { return l->sessions().retained().size(); }), 2u);
    EXPECT_EQ(l->run([&l] { return l->sessions().sticky_in_force(); }), 1u);
  }
  auto figures = fresh->figures();
  EXPECT_EQ(figures.last_id, promo->id);
  EXPECT_EQ(figures.published, 2u);
  const auto next = publish_to(*fresh, fresh_loops, R"({"data":3,"sticky":true})");
  ASSERT_TRUE(next);
  EXPECT_EQ(next->id, promo->id + 1);
  EXPECT_FALSE(next->too_many);
  EXPECT_TRUE(publish_to(*fresh, fresh_loops, R"({"data":4,"sticky":true})")->too_many);
  fresh.reset();

  std::vector<std::unique_ptr<test::test_loop>> two;
  for (int i = 0; i < 2; ++i)
    two.push_back(std::make_unique<test::test_loop>(cfg));
  auto smaller = node_on(two, fresh_counts);
  handover_messages none;
  EXPECT_FALSE(smaller->restore(bytes, none));
}

// A kick reaches every loop: each ends the user's connections with close/kicked and drops its
// sessions, and the answer sums them; another user's session stays.
TEST_F(NodeTest, KickEndsTheUsersConnectionsOnEveryLoopAndSumsThem) {
  ended_connection& alice_0 = connections.emplace_back();
  ended_connection& alice_2 = connections.emplace_back();
  ended_connection& bob_1 = connections.emplace_back();
  attach_on(*loops[0], "alice", "1", alice_0);
  attach_on(*loops[2], "alice", "2", alice_2);
  attach_on(*loops[1], "bob", "1", bob_1);
  std::promise<std::size_t> answered;
  the_node->kick("alice", loops[1]->io().get_executor(),
                 [&](std::size_t n) { answered.set_value(n); });
  EXPECT_EQ(answered.get_future().get(), 2u);
  EXPECT_EQ(sessions_on(*loops[0]), 0u);
  EXPECT_EQ(sessions_on(*loops[1]), 1u);
  EXPECT_EQ(sessions_on(*loops[2]), 0u);
  EXPECT_EQ(alice_0.endings, std::vector<ending>{ending::close_kicked});
  EXPECT_EQ(alice_2.endings, std::vector<ending>{ending::close_kicked});
  EXPECT_TRUE(bob_1.endings.empty());
}

// Another node took session "bob/1" (the backplane's evict): the loop that holds the user's
// sessions, whichever it is, ends its connection with close/replaced and drops it; the user's
// other session and a key that names no session are left alone.
TEST_F(NodeTest, EvictDropsTheSessionOnTheUsersHomeLoop) {
  test::test_loop& home = *loops[2];
  ended_connection& first = connections.emplace_back();
  ended_connection& second = connections.emplace_back();
  attach_on(home, "bob", "1", first);
  attach_on(home, "bob", "2", second);
  the_node->evict("bob/1");
  the_node->evict("bob/9");
  the_node->evict("no-session-key");
  // Behind the evicts posted to every loop (none may still be queued when the node goes).
  EXPECT_EQ(sessions_on(*loops[0]), 0u);
  EXPECT_EQ(sessions_on(*loops[1]), 0u);
  EXPECT_EQ(sessions_on(home), 1u);
  EXPECT_EQ(first.endings, std::vector<ending>{ending::close_replaced});
  EXPECT_TRUE(second.endings.empty());
  EXPECT_EQ(home.run([&home] { return home.stats().replaced; }), 1u);
}

// Each loop's sessions count in the node's home slots: the user's slot is held by the loop its
// sessions were made on while one lasts, and free once the last is kicked.
TEST_F(NodeTest, ALoopsSessionsHoldTheirUsersSlotWhileTheyLast) {
  ended_connection& first = connections.emplace_back();
  ended_connection& second = connections.emplace_back();
  attach_on(*loops[1], "frank", "1", first);
  attach_on(*loops[1], "frank", "2", second);
  EXPECT_EQ(homes.holder("frank"), 1u);
  std::promise<std::size_t> answered;
  the_node->kick("frank", loops[0]->io().get_executor(),
                 [&](std::size_t n) { answered.set_value(n); });
  EXPECT_EQ(answered.get_future().get(), 2u);
  EXPECT_EQ(homes.holder("frank"), std::nullopt);
}

// --max-sessions over the node: a loop whose sessions are all live has another loop drop its
// longest-idle session (the loops after it, in turn) when the node is full; with no idle session
// anywhere, the newcomer is refused.
TEST_F(NodeTest, AFullNodeDisplacesAnIdleSessionOfAnotherLoop) {
  session_budget budget(2);
  presence_counts fresh_counts;
  ended_connection carol, dave, erin;  // they outlive the loops
  std::vector<std::unique_ptr<test::test_loop>> on;
  for (int i = 0; i < 3; ++i)
    on.push_back(std::make_unique<test::test_loop>(cfg));
  auto n = node_on(on, fresh_counts, &budget);
  session* idle = attach_on(*on[0], "carol", "1", carol);
  on[0]->run([&] { on[0]->sessions().detach(*idle, carol, on[0]->now()); });
  attach_on(*on[1], "dave", "1", dave);
  ASSERT_EQ(budget.held(), 2u);

  // Loop 1 asks loop 2 (nothing idle), which asks loop 0.
  EXPECT_EQ(on[1]->run([&] { return on[1]->sessions().make_room("erin", "1"); }), hub::room::ok);
  attach_on(*on[1], "erin", "1", erin);
  on[2]->run([] {});
  EXPECT_EQ(sessions_on(*on[0]), 0u);
  EXPECT_EQ(on[0]->run([&] { return on[0]->stats().displaced; }), 1u);
  EXPECT_EQ(sessions_on(*on[1]), 2u);
  EXPECT_EQ(budget.held(), 2u);

  // Every session of the node is live now: nothing to displace.
  EXPECT_EQ(on[2]->run([&] { return on[2]->sessions().make_room("frank", "1"); }),
            hub::room::over_total);
  n.reset();
}

// Another node's terminate of Pusher user "ann" (node::announce_pusher_user_kick) arrives as the
// kick of "#server-to-user-ann", a name no ringcast user can have: the door's hook gets "ann".
TEST_F(NodeTest, TheKickOfAPusherUserGoesToTheDoorsHook) {
  std::promise<std::string> told;
  the_node->on_pusher_user_kick([&](std::string id) { told.set_value(std::move(id)); });
  loops[0]->run([&] {
    the_node->close_user("#server-to-user-ann@example.com");
    return 0;
  });
  auto id = told.get_future();
  ASSERT_EQ(id.wait_for(5s), std::future_status::ready) << "the hook was not called";
  EXPECT_EQ(id.get(), "ann@example.com");
}

}  // namespace
}  // namespace ringcast
