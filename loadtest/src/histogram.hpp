#pragma once

#include <boost/json/value.hpp>
#include <cstdint>
#include <vector>

namespace ringcast::load {

// A log-linear histogram in the manner of HdrHistogram: values below 2^(sub_bits+1) are counted
// exactly, larger ones in buckets whose width is 1/2^sub_bits of their magnitude (0.8 % with the
// default 7 bits). Percentiles of merged histograms are exact to that precision, which is why
// workers ship histograms, never percentiles, to be merged.
class histogram {
 public:
  static constexpr int sub_bits = 7;

  void record(std::uint64_t value, std::uint64_t times = 1);
  void merge(const histogram& other);

  std::uint64_t count() const { return count_; }
  std::uint64_t min() const { return count_ ? min_ : 0; }
  std::uint64_t max() const { return max_; }
  double mean() const;

  // The smallest recorded-equivalent value v such that at least p percent of the samples are <= v;
  // reported as the top of its bucket (never above max()). 0 when empty.
  std::uint64_t percentile(double p) const;

  // Sparse form: {"count","min","max","sum","buckets":[[index,count],...]}.
  boost::json::value to_json() const;
  static histogram from_json(const boost::json::value& v);

  static std::size_t index_of(std::uint64_t value);
  static std::uint64_t highest_in(std::size_t index);

 private:
  std::vector<std::uint64_t> counts_;
  std::uint64_t count_ = 0;
  std::uint64_t min_ = 0;
  std::uint64_t max_ = 0;
  // Long double keeps the mean exact enough for microsecond sums over billions of samples.
  long double sum_ = 0;
};

}  // namespace ringcast::load
