// session_bench: what sessions cost the hub as their number grows (the unit tests check what
// happens; the cost of it is measured here, not asserted there).
//  * BM_OneUsersSessions/N: N sessions of one user (a high --max-sessions-per-user) are created by
//    a long-poll answered at once and expire at their TTL. The reported complexity must be O(N):
//    a user's sessions are an intrusive list, so adding and dropping one costs the same whatever
//    the user holds (a vector there made it quadratic).
#include <benchmark/benchmark.h>

#include <chrono>
#include <string>

#include "core/hub.hpp"

namespace {

using namespace ringcast;
using namespace std::chrono_literals;

class null_subscriber final : public subscriber {
 public:
  transport kind() const override { return transport::poll; }
  void deliver(const message_ptr&) override {}
  void heartbeat() override {}
  void end(const ending_notice&) override {}
};

void BM_OneUsersSessions(benchmark::State& state) {
  const auto n = static_cast<std::size_t>(state.range(0));
  config cfg;
  cfg.tick = 10ms;
  cfg.session_ttl = 5s;
  cfg.max_sessions_per_user = n;
  cfg.max_sessions = n;
  for (auto _ : state) {
    auto now = timing_wheel::clock::now();
    simulated_clock clock(now);
    loop_timers timers(clock, now, cfg.tick, cfg.wheel_slots);
    loop_stats stats;
    hub h(cfg, timers, stats, 0);
    null_subscriber poll;
    client_params p;
    p.user = "u";
    for (std::size_t i = 0; i < n; ++i) {
      p.sid = std::to_string(i);
      if (h.make_room(p.user, p.sid) != hub::room::ok) return state.SkipWithError("refused");
      h.detach(*h.attach(p, poll, now).s, poll, now);
    }
    now += cfg.session_ttl + cfg.tick;
    clock.set(now);
    timers.advance(now);
    if (h.session_count() != 0 || stats.session_ttl != n) state.SkipWithError("not all expired");
  }
  state.SetComplexityN(state.range(0));
}
BENCHMARK(BM_OneUsersSessions)
    ->RangeMultiplier(4)
    ->Range(1 << 12, 1 << 18)
    ->Complexity(benchmark::oN)
    ->Unit(benchmark::kMillisecond);

}  // namespace

BENCHMARK_MAIN();
