// Schedule, cancel, move and expire per operation at 1k, 100k and 1M armed timers, for the
// hierarchical wheel and three baselines (timer_sets.hpp), plus bytes per timer and a steady
// churn of timeouts. docs/wheel.md explains the scenarios and holds the results.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "heap_meter.hpp"
#include "timer_sets.hpp"

namespace ringcast::bench {
namespace {

// Operations are timed in batches so that pausing the clock to restore the state costs nothing
// per operation.
constexpr std::size_t batch = 1024;

// Timeouts of a push server: up to 4096 ticks ahead (7 min at the default 100 ms tick), which
// spans the wheel's first two levels.
constexpr std::uint64_t near_span = 4096;
// Far-future timers for the expire benchmark: beyond any tick the benchmark reaches.
constexpr std::uint64_t far_ahead = std::uint64_t{1} << 22;

class xorshift {  // cheap and identical for every set, so it does not skew the comparison
 public:
  std::uint64_t next() {
    state_ ^= state_ << 13;
    state_ ^= state_ >> 7;
    state_ ^= state_ << 17;
    return state_;
  }
  std::uint64_t below(std::uint64_t n) { return next() % n; }
  std::uint64_t near_ahead() { return 2 + below(near_span - 1); }

 private:
  std::uint64_t state_ = 0x9e3779b97f4a7c15;
};

std::size_t armed_count(const benchmark::State& state) {
  return static_cast<std::size_t>(state.range(0));
}

void report_per_op(benchmark::State& state, std::size_t ops_per_iteration) {
  state.SetItemsProcessed(static_cast<std::int64_t>(state.iterations() * ops_per_iteration));
  // Seconds per operation, printed with an SI prefix ("15.5ns").
  state.counters["per_op"] =
      benchmark::Counter(static_cast<double>(state.iterations() * ops_per_iteration),
                         benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

template <class Set>
void arm_near(Set& set, std::size_t n, xorshift& rng) {
  for (std::size_t i = 0; i < n; ++i)
    set.schedule(i, rng.near_ahead());
}

// Arming an unarmed timer while n others are armed.
template <class Set>
void bm_schedule(benchmark::State& state) {
  const std::size_t n = armed_count(state);
  Set set(n + batch);
  xorshift rng;
  arm_near(set, n, rng);
  for (auto _ : state) {
    for (std::size_t k = 0; k < batch; ++k)
      set.schedule(n + k, rng.near_ahead());
    state.PauseTiming();
    for (std::size_t k = 0; k < batch; ++k)
      set.cancel(n + k);
    set.settle();
    state.ResumeTiming();
  }
  report_per_op(state, batch);
}

// Disarming one of n armed timers.
template <class Set>
void bm_cancel(benchmark::State& state) {
  const std::size_t n = armed_count(state);
  Set set(n + batch);
  xorshift rng;
  arm_near(set, n, rng);
  for (auto _ : state) {
    state.PauseTiming();
    for (std::size_t k = 0; k < batch; ++k)
      set.schedule(n + k, rng.near_ahead());
    state.ResumeTiming();
    for (std::size_t k = 0; k < batch; ++k)
      set.cancel(n + k);
    set.settle();
  }
  report_per_op(state, batch);
}

// Giving a random one of n armed timers a new deadline: a session's activity or reconnect.
template <class Set>
void bm_move(benchmark::State& state) {
  const std::size_t n = armed_count(state);
  Set set(n);
  xorshift rng;
  arm_near(set, n, rng);
  for (auto _ : state) {
    for (std::size_t k = 0; k < batch; ++k)
      set.move(rng.below(n), rng.near_ahead());
    set.settle();
  }
  report_per_op(state, batch);
}

// Firing a batch of timers due in the next tick while n far-future timers share the structure.
template <class Set>
void bm_expire(benchmark::State& state) {
  const std::size_t n = armed_count(state);
  Set set(n + batch);
  xorshift rng;
  for (std::size_t i = 0; i < n; ++i)
    set.schedule(i, far_ahead + rng.below(far_ahead));
  for (auto _ : state) {
    state.PauseTiming();
    for (std::size_t k = 0; k < batch; ++k)
      set.schedule(n + k, 1);
    state.ResumeTiming();
    if (set.tick() != batch) {
      state.SkipWithError("a far-future timer fired, or a due one did not");
      break;
    }
  }
  report_per_op(state, batch);
}

// Steady state: n timeouts spread over `churn_span` ticks, each re-armed that far ahead when it
// fires (a heartbeat), one tick per iteration. Includes cascading (wheel), walking the
// not-yet-due (rounds) and the loop's wake-up (asio). Also what the server's idle timeouts do:
// activity only records a time, and the node is re-armed when it comes due (docs/wheel.md).
constexpr std::uint64_t churn_span = 3000;  // 5 minutes of 100 ms ticks

template <class Set>
void bm_churn(benchmark::State& state) {
  const std::size_t n = armed_count(state);
  Set set(n);
  xorshift rng;
  std::vector<std::uint64_t> first(n);
  for (std::size_t i = 0; i < n; ++i) {
    first[i] = 1 + rng.below(churn_span);
    set.schedule(i, first[i]);
  }
  std::size_t fired = 0;
  for (auto _ : state) {
    fired += set.tick(churn_span);
  }
  // Timer i fires at first[i], then every churn_span ticks: exactly, never early, late or twice.
  const std::uint64_t ticks = state.iterations();
  std::size_t expected = 0;
  for (const std::uint64_t f : first)
    expected += f <= ticks ? 1 + (ticks - f) / churn_span : 0;
  if (fired != expected) {
    state.SkipWithError(
        ("fired " + std::to_string(fired) + " timers, expected " + std::to_string(expected))
            .c_str());
  }
  state.counters["per_fire"] = benchmark::Counter(
      static_cast<double>(fired), benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

// The same churn, timing each tick on its own, across the boundary at tick 2^18 (a level-2
// boundary with 512 slots, level 3 with 64): the slowest tick is the stall a loop sees when the
// wheel cascades every node whose deadline lies past that boundary at once.
template <class Set>
void bm_worst_tick(benchmark::State& state) {
  const std::size_t n = armed_count(state);
  constexpr std::uint64_t boundary = std::uint64_t{1} << 18;
  for (auto _ : state) {
    Set set(n);
    set.start_at(boundary - 2 * churn_span);
    xorshift rng;
    for (std::size_t i = 0; i < n; ++i)
      set.schedule(i, 1 + rng.below(churn_span));
    double worst = 0;
    double at_boundary = 0;
    for (std::uint64_t t = 1; t <= 3 * churn_span; ++t) {
      const auto start = std::chrono::steady_clock::now();
      set.tick(churn_span);
      const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
      worst = std::max(worst, took.count());
      if (t == 2 * churn_span) at_boundary = took.count();
    }
    state.counters["worst_tick"] = worst;
    state.counters["boundary_tick"] = at_boundary;
  }
}

// Heap bytes per armed timer, the owner-side object included (each set holds n of them).
template <class Set>
void bm_memory(benchmark::State& state) {
  const std::size_t n = armed_count(state);
  for (auto _ : state) {
    const heap_meter meter;
    Set set(n);
    xorshift rng;
    arm_near(set, n, rng);
    state.counters["B/node"] = static_cast<double>(meter.live_bytes()) / static_cast<double>(n);
  }
}

// Registered as "<operation>/<set>/<armed timers>", grouped by operation.
using family = void (*)(benchmark::State&);
struct families {
  family schedule, cancel, move, expire, churn, worst_tick, memory;
};

template <class Set>
constexpr families families_of() {
  return {bm_schedule<Set>, bm_cancel<Set>,     bm_move<Set>,  bm_expire<Set>,
          bm_churn<Set>,    bm_worst_tick<Set>, bm_memory<Set>};
}

void register_all() {
  const std::pair<const char*, families> sets[] = {
      {"wheel", families_of<hierarchical_set<>>()},
      // Fewer slots per level: smaller cascades at each coarse boundary (docs/wheel.md).
      {"wheel64",
       {nullptr, nullptr, nullptr, nullptr, bm_churn<hierarchical_set<64>>,
        bm_worst_tick<hierarchical_set<64>>, nullptr}},
      {"rounds", families_of<rounds_set>()},
      {"multimap", families_of<multimap_set>()},
      {"asio", families_of<asio_set>()},
  };
  const std::pair<const char*, family families::*> operations[] = {
      {"schedule", &families::schedule}, {"cancel", &families::cancel},
      {"move", &families::move},         {"expire", &families::expire},
      {"churn", &families::churn},       {"worst_tick", &families::worst_tick},
      {"memory", &families::memory},
  };
  for (const auto& [operation, member] : operations) {
    for (const auto& [set, runs] : sets) {
      if (!(runs.*member)) continue;
      const std::string name = std::string(operation) + "/" + set;
      auto* bm = benchmark::RegisterBenchmark(name.c_str(), runs.*member);
      bm->Arg(1'000)->Arg(100'000)->Arg(1'000'000);
      if (member == &families::memory || member == &families::worst_tick) bm->Iterations(1);
    }
  }
}

}  // namespace
}  // namespace ringcast::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  ringcast::bench::register_all();
  benchmark::RunSpecifiedBenchmarks();
  benchmark::Shutdown();
  return 0;
}
