#pragma once

#include <boost/json/value.hpp>
#include <chrono>
#include <cstdint>
#include <vector>

namespace ringcast::load {

// When deliveries arrived, relative to their publish: one count per whole second of
// (arrival time - publish stamp), so that a paced publish (--spread) shows how evenly it was
// spread. Merges exactly, as the histograms do.
class arrival_bins {
 public:
  static constexpr std::int64_t bin_us = 1'000'000;

  void record(std::int64_t since_publish_us);
  void merge(const arrival_bins& other);

  // counts()[s]: deliveries that arrived s to s+1 seconds after their publish.
  const std::vector<std::uint64_t>& counts() const { return counts_; }
  std::uint64_t total() const;

  boost::json::value to_json() const;
  static arrival_bins from_json(const boost::json::value& v);

 private:
  std::vector<std::uint64_t> counts_;
};

// The arrival histogram against the window the deliveries were meant to fill: the spread, or one
// second for an immediate publish. `worst_to_mean` is the busiest second of the window over the
// window's mean; 1 is perfectly even. Seconds past the window (the last turn is served up to one
// tick late) are counted apart, not in the mean.
struct arrival_summary {
  std::size_t window_bins = 0;
  std::uint64_t in_window = 0;
  std::uint64_t after_window = 0;
  double mean_per_s = 0;
  std::uint64_t worst_per_s = 0;
  std::size_t worst_second = 0;
  double worst_to_mean = 0;  // 0 when nothing arrived in the window
};
arrival_summary summarize(const arrival_bins& bins, std::chrono::milliseconds window);

}  // namespace ringcast::load
