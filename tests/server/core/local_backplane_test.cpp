#include "core/local_backplane.hpp"

#include <boost/asio/io_context.hpp>

#include <chrono>
#include <optional>
#include <string>
#include <vector>

#include <gtest/gtest.h>

namespace ringcast {
namespace {

using namespace std::chrono_literals;
using time_point = timing_wheel::time_point;

// What the backplane asks of the node, recorded.
struct recording_node final : backplane_node {
  void seed_history(std::vector<message_ptr>) override {}
  void seed_in_force(std::vector<message_ptr>) override {}
  void deliver(const message_ptr& m, boost::asio::any_io_executor,
               std::function<void(std::size_t)> done) override {
    delivered.push_back(m);
    done(3);
  }
  void close_user(std::string user) override { closed.push_back(std::move(user)); }
  void evict(std::string) override {}
  void expire_message(std::uint64_t id) override { expired.push_back(id); }
  void publish_scheduled(const std::string& request_json) override { due.push_back(request_json); }
  std::vector<message_ptr> retained() override { return delivered; }

  std::vector<message_ptr> delivered;
  std::vector<std::string> closed;
  std::vector<std::uint64_t> expired;
  std::vector<std::string> due;
};

// A local backplane whose schedule waits on a wheel of 10 ms ticks, with the steady and the wall
// clock simulated together; it numbers with a sequencer of its own, as the node's would be.
class LocalBackplaneTest : public ::testing::Test {
 protected:
  LocalBackplaneTest() : shared(node, numbering, timers, counts, 2) {}

  void advance(std::chrono::milliseconds by) {
    const time_point until = clock.now() + by;
    while (clock.now() < until) {
      clock.advance(1ms);
      timers.advance();
    }
  }
  std::int64_t wall_ms() const { return clock.unix_ms(); }
  std::optional<backplane::published> publish(const std::string& body) {
    auto req = parse_publish_request(body, 1h);
    EXPECT_TRUE(req) << req.error;
    std::optional<backplane::published> answer;
    shared.publish(*req.value, io.get_executor(),
                   [&](std::optional<backplane::published> p) { answer = p; });
    return answer;
  }

  static constexpr std::uint64_t floor_id = 1'000'000;
  const time_point epoch = time_point{} + 1h;
  simulated_clock clock{epoch, 1'700'000'000'000};
  loop_timers timers{clock, epoch, 10ms, 64};
  boost::asio::io_context io;
  presence_counts counts;
  recording_node node;
  sequencer numbering{floor_id, default_max_sticky};
  local_backplane shared;
};

TEST_F(LocalBackplaneTest, NumbersPublishesAboveTheFloorInOrderAndHandsThemToTheNode) {
  const auto first = publish(R"({"data":{"n":1}})");
  const auto second = publish(R"({"channel":"news","data":{"n":2},"ttl":"5s"})");
  ASSERT_TRUE(first && second);
  EXPECT_EQ(first->id, floor_id + 1);
  EXPECT_EQ(second->id, floor_id + 2);
  EXPECT_EQ(first->recipients, 3u);  // as the node counted them
  ASSERT_EQ(node.delivered.size(), 2u);
  EXPECT_EQ(node.delivered[0]->id, floor_id + 1);
  EXPECT_EQ(node.delivered[1]->target, "news");
  EXPECT_EQ(node.delivered[1]->ts_ms, wall_ms());
  EXPECT_EQ(node.delivered[1]->expires_ms, wall_ms() + 5'000);  // on the wall clock it was given
}

TEST_F(LocalBackplaneTest, SchedulePublishesThroughTheNodeWhenDueOnItsWheel) {
  std::string id;
  shared.schedule_add(R"({"data":1})", wall_ms() + 500, [&](promotion_outcome o, std::string i) {
    EXPECT_EQ(o, promotion_outcome::ok);
    id = std::move(i);
  });
  EXPECT_EQ(shared.scheduled(), 1u);
  std::optional<std::vector<scheduled_promotion>> listed;
  shared.schedule_list([&](auto l) { listed = std::move(l); });
  ASSERT_TRUE(listed);
  ASSERT_EQ(listed->size(), 1u);
  EXPECT_EQ((*listed)[0].id, id);
  EXPECT_EQ((*listed)[0].at_ms, wall_ms() + 500);
  advance(490ms);
  EXPECT_TRUE(node.due.empty());
  advance(30ms);
  ASSERT_EQ(node.due.size(), 1u);
  EXPECT_EQ(node.due[0], R"({"data":1})");
  EXPECT_EQ(shared.scheduled(), 0u);
}

TEST_F(LocalBackplaneTest, ScheduleHoldsItsLimitAndCancelsOnce) {
  std::vector<promotion_outcome> added;
  std::string id;
  for (int i = 0; i < 3; ++i) {
    shared.schedule_add(R"({"data":1})", wall_ms() + 60'000,
                        [&](promotion_outcome o, std::string s) {
                          added.push_back(o);
                          if (!s.empty()) id = s;
                        });
  }
  EXPECT_EQ(added, (std::vector{promotion_outcome::ok, promotion_outcome::ok,
                                promotion_outcome::too_many}));
  std::vector<promotion_outcome> cancelled;
  shared.schedule_cancel(id, [&](promotion_outcome o) { cancelled.push_back(o); });
  shared.schedule_cancel(id, [&](promotion_outcome o) { cancelled.push_back(o); });
  EXPECT_EQ(cancelled, (std::vector{promotion_outcome::ok, promotion_outcome::not_found}));
  EXPECT_EQ(shared.scheduled(), 1u);
}

TEST_F(LocalBackplaneTest, ReachIsTheMessagesOwnCountsAndNothingWaitsOnOtherNodes) {
  publish(R"({"data":1})");
  const message_ptr m = node.delivered.at(0);
  m->recipients = 4;
  m->delivered = 3;
  m->acked = 1;
  std::optional<backplane::reach_counts> counted;
  shared.reach(m, [&](auto c) { counted = c; });
  ASSERT_TRUE(counted);
  EXPECT_EQ(counted->recipients, 4u);
  EXPECT_EQ(counted->delivered, 3u);
  EXPECT_EQ(counted->acked, 1u);

  // A take-down is this node's alone; a claim finds no other node, and answers at once.
  std::optional<bool> taken, known;
  shared.take_down(m->id, [&](bool ok) { taken = ok; });
  EXPECT_EQ(taken, true);
  EXPECT_EQ(node.expired, std::vector<std::uint64_t>{m->id});
  shared.claim_session("ann/s1", io.get_executor(), [&](bool k) { known = k; });
  EXPECT_EQ(known, false);
  EXPECT_FALSE(shared.state().shared);
  EXPECT_TRUE(shared.state().reachable);
}

// The handover to a new binary (SIGUSR2): the last id (the sequencer's) and the schedule,
// captured from one backplane and restored into one of another process, whose steady clock is far
// from the first's (the wall clock is the same). Ids go on above the old ones; the promotions keep
// their ids and come due as far after the restore as they were after the capture, not earlier.
TEST_F(LocalBackplaneTest, HandsItsLastIdAndScheduleToANewProcess) {
  ASSERT_TRUE(publish(R"({"data":1})") && publish(R"({"data":2})"));
  std::vector<std::string> ids;
  for (const std::int64_t in_ms : {500, 2'000}) {
    shared.schedule_add(R"({"data":"p"})", wall_ms() + in_ms,
                        [&](promotion_outcome, std::string id) { ids.push_back(std::move(id)); });
  }
  std::string cancelled;
  shared.schedule_add(R"({"data":"c"})", wall_ms() + 1'000,
                      [&](promotion_outcome, std::string id) { cancelled = std::move(id); });
  advance(200ms);
  ASSERT_TRUE(node.due.empty());
  shared.schedule_cancel(cancelled, [](promotion_outcome) {});
  upgrade::handover_state state;
  numbering.capture(state);  // the node's part: the sequencer
  shared.capture(state, clock.now());
  EXPECT_EQ(state.last_id, floor_id + 2);
  EXPECT_EQ(state.schedule.waiting.size(), 2u);

  const time_point other_epoch = epoch + 5h;
  simulated_clock other_clock{other_epoch, wall_ms()};
  loop_timers other_timers{other_clock, other_epoch, 10ms, 64};
  recording_node other_node;
  sequencer other_ids{floor_id, default_max_sticky};
  local_backplane fresh(other_node, other_ids, other_timers, counts, 2);
  other_ids.restore(state);
  fresh.restore(state, other_clock.now());
  EXPECT_EQ(fresh.scheduled(), 2u);
  std::optional<std::vector<scheduled_promotion>> before, after;
  shared.schedule_list([&](auto l) { before = std::move(l); });
  fresh.schedule_list([&](auto l) { after = std::move(l); });
  ASSERT_TRUE(before && after);
  ASSERT_EQ(after->size(), 2u);
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_EQ((*after)[i].id, (*before)[i].id);
    EXPECT_EQ((*after)[i].at_ms, (*before)[i].at_ms);
  }
  // The cancelled id names nothing after the restore either.
  std::optional<promotion_outcome> again;
  fresh.schedule_cancel(cancelled, [&](promotion_outcome o) { again = o; });
  EXPECT_EQ(again, promotion_outcome::not_found);

  std::optional<backplane::published> next;
  auto req = parse_publish_request(R"({"data":3})", 1h);
  ASSERT_TRUE(req);
  fresh.publish(*req.value, io.get_executor(),
                [&](std::optional<backplane::published> p) { next = p; });
  ASSERT_TRUE(next);
  EXPECT_EQ(next->id, floor_id + 3);

  auto run_fresh = [&](std::chrono::milliseconds by) {
    const time_point until = other_clock.now() + by;
    while (other_clock.now() < until) {
      other_clock.advance(1ms);
      other_timers.advance();
    }
  };
  run_fresh(290ms);  // the first was 300 ms ahead at the capture
  EXPECT_TRUE(other_node.due.empty());
  run_fresh(20ms);
  EXPECT_EQ(other_node.due.size(), 1u);
  run_fresh(1'500ms);
  EXPECT_EQ(other_node.due.size(), 2u);
  EXPECT_EQ(fresh.scheduled(), 0u);
}

}  // namespace
}  // namespace ringcast
