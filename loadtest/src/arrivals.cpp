#include "arrivals.hpp"

#include <algorithm>
#include <boost/json.hpp>
#include <numeric>

namespace ringcast::load {

void arrival_bins::record(std::int64_t since_publish_us) {
  // Clocks of one machine: a negative difference is rounding, booked in the first second.
  const auto bin = static_cast<std::size_t>(std::max<std::int64_t>(0, since_publish_us) / bin_us);
  if (bin >= counts_.size()) counts_.resize(bin + 1, 0);
  ++counts_[bin];
}

void arrival_bins::merge(const arrival_bins& other) {
  if (other.counts_.size() > counts_.size()) counts_.resize(other.counts_.size(), 0);
  for (std::size_t i = 0; i < other.counts_.size(); ++i)
    counts_[i] += other.counts_[i];
}

std::uint64_t arrival_bins::total() const {
  return std::accumulate(counts_.begin(), counts_.end(), std::uint64_t{0});
}

boost::json::value arrival_bins::to_json() const {
  return boost::json::value_from(counts_);
}

arrival_bins arrival_bins::from_json(const boost::json::value& v) {
  arrival_bins b;
  b.counts_ = boost::json::value_to<std::vector<std::uint64_t>>(v);
  return b;
}

arrival_summary summarize(const arrival_bins& bins, std::chrono::milliseconds window) {
  arrival_summary s;
  // A window of 2.5 s has three bins, the last one half used: the mean is over the whole bins.
  s.window_bins = static_cast<std::size_t>(std::max<std::int64_t>(
      1, (window.count() * 1000 + arrival_bins::bin_us - 1) / arrival_bins::bin_us));
  const auto& c = bins.counts();
  for (std::size_t i = 0; i < c.size(); ++i) {
    if (i >= s.window_bins) {
      s.after_window += c[i];
      continue;
    }
    s.in_window += c[i];
    if (c[i] > s.worst_per_s) s.worst_per_s = c[i], s.worst_second = i;
  }
  s.mean_per_s = static_cast<double>(s.in_window) / static_cast<double>(s.window_bins);
  if (s.in_window > 0) s.worst_to_mean = static_cast<double>(s.worst_per_s) / s.mean_per_s;
  return s;
}

}  // namespace ringcast::load
