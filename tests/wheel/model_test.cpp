// Long random sequences of schedule/move/cancel/advance, also from inside callbacks, checked
// against a reference model (a std::multimap from due tick to node) under a simulated clock.
// Every firing must happen in exactly its tick: never early, never twice, never missed.
#include <gtest/gtest.h>

#include <cstdint>
#include <map>
#include <random>
#include <vector>

#include "ringcast/wheel/timing_wheel.hpp"

namespace ringcast {
namespace {

using namespace std::chrono_literals;
using time_point = timing_wheel::time_point;

constexpr std::size_t node_count = 200;
constexpr std::size_t operations_per_run = 40'000;  // 3 runs: 120k operations per test run
constexpr timing_wheel::duration tick = 1000ns;     // 1 µs, so nanosecond deadlines round
const time_point epoch = time_point{} + 123'456ns;

class reference_model {
 public:
  using due_map = std::multimap<std::uint64_t, std::uint32_t>;

  explicit reference_model(std::size_t nodes) : where_(nodes, due_.end()) {}

  // The contract: a deadline fires at the first tick boundary at or after it, and never in a
  // tick already processed (`current` is the tick being processed, or the last one).
  static std::uint64_t due_tick(time_point deadline, std::uint64_t current) {
    std::uint64_t due = 0;
    if (deadline > epoch) {
      const auto since = deadline - epoch;
      due = static_cast<std::uint64_t>(since / tick) + (since % tick != 0ns ? 1 : 0);
    }
    return std::max(due, current + 1);
  }

  bool armed(std::uint32_t node) const { return where_[node] != due_.end(); }
  std::uint64_t due(std::uint32_t node) const { return where_[node]->first; }
  void arm(std::uint32_t node, std::uint64_t tick_number) {
    disarm(node);
    where_[node] = due_.emplace(tick_number, node);
  }
  void disarm(std::uint32_t node) {
    if (!armed(node)) return;
    due_.erase(where_[node]);
    where_[node] = due_.end();
  }
  const due_map& due_ticks() const { return due_; }

 private:
  due_map due_;
  std::vector<due_map::iterator> where_;
};

class model_run {
 public:
  model_run(std::uint32_t slots, std::uint64_t seed)
      : nodes_(node_count), wheel_(epoch, tick, slots), model_(node_count), rng_(seed) {
    for (std::uint32_t i = 0; i < node_count; ++i)
      nodes_[i].tag = i;
  }

  void run(std::size_t operations) {
    for (std::size_t op = 0; op < operations && !::testing::Test::HasFailure(); ++op) {
      if (chance(15)) {
        advance();
      } else {
        mutate(pick_any());
      }
      if (op % 1000 == 0) check_everything();
    }
    check_everything();
  }

  const timing_wheel::counters& expected_counters() const { return counters_; }

 private:
  bool chance(int percent) { return std::uniform_int_distribution<int>(0, 99)(rng_) < percent; }
  std::uint64_t below(std::uint64_t n) {
    return std::uniform_int_distribution<std::uint64_t>(0, n - 1)(rng_);
  }
  time_point time_of(std::uint64_t tick_number) const {
    return epoch + tick * static_cast<std::int64_t>(tick_number);
  }
  std::uint32_t pick_any() { return static_cast<std::uint32_t>(below(node_count)); }

  // Deadlines in every class the contract names: past, now, within a tick, near, one revolution
  // and more, far beyond, each with an arbitrary nanosecond offset.
  time_point random_deadline() {
    const auto now = static_cast<std::int64_t>(current_);
    const auto ns = std::chrono::nanoseconds(below(1000));
    switch (below(7)) {
      case 0:
        return time_of(current_) - tick * static_cast<std::int64_t>(below(5000)) - ns;
      case 1:
        return time_of(current_);
      case 2:
        return time_of(current_) + ns;
      case 3:
        return time_of(current_ + below(2 * wheel_.slot_count())) + ns;
      case 4:
        return time_of(current_ + wheel_.slot_count() * (1 + below(3)));
      case 5:
        return epoch + tick * (now + static_cast<std::int64_t>(below(1 << 18))) + ns;
      default:
        return epoch + tick * (now + static_cast<std::int64_t>(below(1ull << 34))) + ns;
    }
  }

  void mutate(std::uint32_t node) {
    timer_node& n = nodes_[node];
    const bool was_armed = model_.armed(node);
    ASSERT_EQ(n.armed(), was_armed) << "node " << node;
    if (was_armed && chance(35)) {
      EXPECT_TRUE(wheel_.cancel(n));
      model_.disarm(node);
      ++counters_.cancelled;
      return;
    }
    if (!was_armed && chance(5)) {
      EXPECT_FALSE(wheel_.cancel(n));
      return;
    }
    const time_point deadline = random_deadline();
    if (chance(50)) {
      wheel_.move(n, deadline);
    } else {
      wheel_.schedule(n, deadline);
    }
    model_.arm(node, reference_model::due_tick(deadline, current_));
    ++(was_armed ? counters_.moved : counters_.scheduled);
    EXPECT_TRUE(n.armed());
    EXPECT_EQ(wheel_.due_time(n), time_of(model_.due(node)));
  }

  // Inside a callback: act on the firing node itself, on one still waiting in this tick, on one
  // due later, or on any node.
  void mutate_from_callback(std::uint32_t self) {
    const auto& due = model_.due_ticks();
    switch (below(4)) {
      case 0:
        return mutate(self);
      case 1: {
        const auto [first, last] = due.equal_range(current_);
        if (first != last)
          return mutate(std::next(first, below(std::distance(first, last)))->second);
        return mutate(pick_any());
      }
      case 2: {
        const auto later = due.upper_bound(current_);
        if (later != due.end()) return mutate(later->second);
        return mutate(pick_any());
      }
      default:
        return mutate(pick_any());
    }
  }

  void on_expire(timer_node& n, std::uint64_t target) {
    const std::uint32_t node = n.tag;
    const std::uint64_t now = wheel_.current_tick();
    EXPECT_FALSE(n.armed());
    ASSERT_TRUE(model_.armed(node)) << "node " << node << " fired unarmed (twice?) at " << now;
    ASSERT_EQ(now, model_.due(node)) << "node " << node << " fired in the wrong tick";
    ASSERT_LE(now, target) << "fired after the clock it was given";
    ASSERT_GE(now, current_) << "ticks went backwards";
    model_.disarm(node);
    ++counters_.fired;
    current_ = now;
    if (chance(30)) mutate_from_callback(node);
    if (chance(10)) mutate_from_callback(node);
  }

  void advance() {
    std::uint64_t target = current_;
    const auto next = wheel_.next_due();
    switch (below(6)) {
      case 0:
        target += below(3);
        break;
      case 1:
        target += below(4 * wheel_.slot_count());
        break;
      case 2:
        target += below(1 << 20);
        break;
      case 3:
        target += below(1ull << 35);
        break;
      default:  // the server's loop: wake at next_due()
        if (next) target = static_cast<std::uint64_t>((*next - epoch) / tick);
    }
    const time_point now = time_of(target) + std::chrono::nanoseconds(below(1000));
    const std::uint64_t before = current_;
    wheel_.advance(now, [&](timer_node& n) { on_expire(n, target); });
    current_ = std::max(before, target);
    EXPECT_EQ(wheel_.current_tick(), current_);
    const auto& due = model_.due_ticks();
    if (!due.empty()) {
      ASSERT_GT(due.begin()->first, current_)
          << "node " << due.begin()->second << " never fired (due " << due.begin()->first << ")";
    }
  }

  void check_everything() {
    for (std::uint32_t i = 0; i < node_count; ++i) {
      ASSERT_EQ(nodes_[i].armed(), model_.armed(i)) << "node " << i;
      if (model_.armed(i)) {
        ASSERT_EQ(wheel_.due_time(nodes_[i]), time_of(model_.due(i)));
      }
    }
    const auto& due = model_.due_ticks();
    EXPECT_EQ(wheel_.size(), due.size());
    const auto next = wheel_.next_due();
    if (due.empty()) {
      EXPECT_EQ(next, std::nullopt);
    } else {
      ASSERT_TRUE(next.has_value());
      EXPECT_LE(*next, time_of(due.begin()->first)) << "next_due() would wake too late";
      EXPECT_GT(*next, time_of(current_));
    }
    std::uint64_t occupied = 0;
    for (std::uint32_t level = 0; level < wheel_.level_count(); ++level) {
      for (std::uint32_t count : wheel_.occupancy(level))
        occupied += count;
    }
    EXPECT_EQ(occupied, due.size());
    const auto& got = wheel_.stats();
    EXPECT_EQ(got.scheduled, counters_.scheduled);
    EXPECT_EQ(got.moved, counters_.moved);
    EXPECT_EQ(got.cancelled, counters_.cancelled);
    EXPECT_EQ(got.fired, counters_.fired);
  }

  std::vector<timer_node> nodes_;  // before the wheel, which disarms them when it goes
  timing_wheel wheel_;
  reference_model model_;
  std::mt19937_64 rng_;
  std::uint64_t current_ = 0;
  timing_wheel::counters counters_;
};

struct run_config {
  std::uint32_t slots;
  std::uint64_t seed;
};

class WheelModel : public ::testing::TestWithParam<run_config> {};

TEST_P(WheelModel, MatchesTheReferenceModel) {
  model_run run(GetParam().slots, GetParam().seed);
  run.run(operations_per_run);
  EXPECT_GT(run.expected_counters().fired, operations_per_run / 20);
  EXPECT_GT(run.expected_counters().moved, operations_per_run / 20);
}

INSTANTIATE_TEST_SUITE_P(
    Seeds, WheelModel, ::testing::Values(run_config{16, 1}, run_config{64, 2}, run_config{256, 3}),
    [](const ::testing::TestParamInfo<run_config>& run) {
      return "slots" + std::to_string(run.param.slots) + "_seed" + std::to_string(run.param.seed);
    });

}  // namespace
}  // namespace ringcast
