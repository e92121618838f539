#pragma once

#include <boost/asio/steady_timer.hpp>
#include <memory>
#include <optional>
#include <random>
#include <span>
#include <vector>

#include "client.hpp"
#include "loopback.hpp"
#include "stamped_stream.hpp"

namespace ringcast::load {

// The clients [begin, end) of the global numbering, run on one io_context: opened at this
// worker's share of --rate, churned at --churn, stopped at the end.
class worker {
 public:
  worker(boost::asio::io_context& io, const options& opts, connector net, std::size_t begin,
         std::size_t end, source_slice sources, double rate);

  void start();
  void stop();

  std::uint64_t connected() const;
  // Counters so far; the latency histogram covers the time since the previous call.
  progress take_progress();
  // Books every client's lost and duplicate count against the publisher's ids (sorted).
  client_result finish(std::span<const std::uint64_t> published);

 private:
  void ramp();
  void churn_tick();
  // --arrival kernel: from the first publish on, this process runs at idle priority.
  void yield_cpu_when_publishing();

  worker_context ctx_;
  std::vector<std::unique_ptr<client>> clients_;
  double rate_;
  std::size_t started_ = 0;
  std::chrono::steady_clock::time_point ramp_start_;
  boost::asio::steady_timer ramp_timer_;
  boost::asio::steady_timer churn_timer_;
  boost::asio::steady_timer yield_timer_;
  std::optional<kernel_stamping> stamping_;  // --arrival kernel
  double churn_owed_ = 0;                    // fractional clients carried to the next second
  std::minstd_rand random_{12345};
};

}  // namespace ringcast::load
