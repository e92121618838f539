// promotion_bench: what scheduled promotions cost while they wait (docs/performance.md, section 7).
//  * BM_WaitingMemory: the heap 100,000 waiting promotions hold, per promotion: with a request
//    short enough for the string's inline buffer (the schedule's own cost) and with a typical
//    ~100-byte request (what an operator pays).
//  * BM_Delivery/waiting:N: one broadcast to 1,000 live sessions plus one tick of the loop's
//    wheel, with 0 or 100,000 promotions waiting on the same wheel (due from 10 h to 34 h later,
//    so none comes due while it runs): the same-run comparison of "do not slow delivery".
#include <benchmark/benchmark.h>

#include <chrono>
#include <memory>
#include <string>
#include <vector>

#include "core/hub.hpp"
#include "core/schedule.hpp"
#include "heap_meter.hpp"

namespace {

using namespace ringcast;
using namespace std::chrono_literals;

class null_subscriber final : public subscriber {
 public:
  transport kind() const override { return transport::ws; }
  void deliver(const message_ptr&) override { ++delivered; }
  void heartbeat() override {}
  void end(const ending_notice&) override {}
  std::size_t delivered = 0;
};

const std::string short_request = R"({"data":1})";  // 10 bytes: inline in std::string
const std::string typical_request =
    R"({"data":{"title":"Flash sale","text":"20% off every fridge","code":"FLASH20"},"channel":"haier","at":1795324464387})";

void BM_WaitingMemory(benchmark::State& state) {
  const auto count = static_cast<std::size_t>(state.range(0));
  const std::string& request = state.range(1) ? typical_request : short_request;
  const auto epoch = timing_wheel::clock::now();
  double per_promotion = 0;
  for (auto _ : state) {
    const simulated_clock clock(epoch);
    loop_timers timers(clock, epoch, 100ms, 512);
    const bench::heap_meter meter;
    {
      schedule s(count, timers, [](const std::string&) {});
      for (std::size_t i = 0; i < count; ++i)
        s.add(0, epoch + 1h + std::chrono::milliseconds(i * 7 % 3'600'000), request);
      per_promotion = static_cast<double>(meter.live_bytes()) / static_cast<double>(count);
      if (s.size() != count) state.SkipWithError("not all were scheduled");
    }
  }
  state.counters["bytes_per_promotion"] = per_promotion;
  state.counters["request_bytes"] = static_cast<double>(request.size());
}
BENCHMARK(BM_WaitingMemory)
    ->ArgsProduct({{100'000}, {0, 1}})
    ->ArgNames({"waiting", "typical_request"})
    ->Iterations(1)
    ->Unit(benchmark::kMillisecond);

void BM_Delivery(benchmark::State& state) {
  const auto waiting = static_cast<std::size_t>(state.range(0));
  constexpr std::size_t sessions = 1000;
  config cfg;
  cfg.tick = 10ms;
  cfg.heartbeat = 1h;
  cfg.idle_timeout = 1h;
  auto now = timing_wheel::clock::now();
  simulated_clock clock(now);
  loop_timers timers(clock, now, cfg.tick, cfg.wheel_slots);
  loop_stats stats;
  hub h(cfg, timers, stats, 0);
  std::vector<std::unique_ptr<null_subscriber>> conns;
  for (std::size_t i = 0; i < sessions; ++i) {
    conns.push_back(std::make_unique<null_subscriber>());
    client_params p;
    p.user = "u" + std::to_string(i);
    p.sid = "0";
    h.attach(p, *conns.back(), now);
  }
  schedule s(waiting, timers, [](const std::string&) {});
  for (std::size_t i = 0; i < waiting; ++i)
    s.add(0, now + 10h + std::chrono::seconds(i * 7 % 86'400), short_request);
  std::uint64_t id = 0;
  for (auto _ : state) {
    now += cfg.tick;
    clock.set(now);
    timers.advance(now);
    h.publish(make_message(++id, 0, {}, "1"), now);
  }
  if (s.size() != waiting) state.SkipWithError("the run was too long: promotions came due");
  state.counters["deliveries_per_s"] = benchmark::Counter(
      static_cast<double>(state.iterations() * sessions), benchmark::Counter::kIsRate);
}
BENCHMARK(BM_Delivery)->Arg(0)->Arg(100'000)->ArgName("waiting")->MinTime(1.0);

}  // namespace

BENCHMARK_MAIN();
