#include "histogram.hpp"

#include <algorithm>
#include <bit>
#include <boost/json.hpp>
#include <cmath>
#include <stdexcept>

namespace ringcast::load {

namespace {
constexpr std::uint64_t sub_count = std::uint64_t{1} << histogram::sub_bits;
}

std::size_t histogram::index_of(std::uint64_t value) {
  if (value < 2 * sub_count) return static_cast<std::size_t>(value);
  const int msb = std::bit_width(value) - 1;
  const int shift = msb - sub_bits;
  return static_cast<std::size_t>((shift + 1) * sub_count + ((value >> shift) - sub_count));
}

std::uint64_t histogram::highest_in(std::size_t index) {
  if (index < 2 * sub_count) return index;
  const std::uint64_t shift = index / sub_count - 1;
  const std::uint64_t sub = index % sub_count + sub_count;
  const std::uint64_t next = (sub + 1) << shift;
  return next - 1;
}

void histogram::record(std::uint64_t value, std::uint64_t times) {
  if (times == 0) return;
  const std::size_t i = index_of(value);
  if (i >= counts_.size()) counts_.resize(i + 1, 0);
  counts_[i] += times;
  min_ = count_ ? std::min(min_, value) : value;
  max_ = std::max(max_, value);
  count_ += times;
  sum_ += static_cast<long double>(value) * times;
}

void histogram::merge(const histogram& other) {
  if (other.count_ == 0) return;
  if (other.counts_.size() > counts_.size()) counts_.resize(other.counts_.size(), 0);
  for (std::size_t i = 0; i < other.counts_.size(); ++i)
    counts_[i] += other.counts_[i];
  min_ = count_ ? std::min(min_, other.min_) : other.min_;
  max_ = std::max(max_, other.max_);
  count_ += other.count_;
  sum_ += other.sum_;
}

double histogram::mean() const {
  return count_ ? static_cast<double>(sum_ / count_) : 0.0;
}

std::uint64_t histogram::percentile(double p) const {
  if (count_ == 0) return 0;
  p = std::clamp(p, 0.0, 100.0);
  // Rank of the sample that answers p (1-based); p=0 answers the minimum.
  const auto rank = std::max<std::uint64_t>(
      1, static_cast<std::uint64_t>(std::ceil(p / 100.0 * static_cast<double>(count_))));
  std::uint64_t seen = 0;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    seen += counts_[i];
    if (seen >= rank) return std::clamp(highest_in(i), min_, max_);
  }
  return max_;
}

boost::json::value histogram::to_json() const {
  boost::json::array buckets;
  for (std::size_t i = 0; i < counts_.size(); ++i) {
    if (counts_[i] != 0) buckets.push_back(boost::json::array{i, counts_[i]});
  }
  return boost::json::object{{"count", count_},
                             {"min", min()},
                             {"max", max_},
                             {"sum", static_cast<double>(sum_)},
                             {"buckets", std::move(buckets)}};
}

histogram histogram::from_json(const boost::json::value& v) {
  const auto& o = v.as_object();
  histogram h;
  for (const auto& b : o.at("buckets").as_array()) {
    const auto& pair = b.as_array();
    const auto index = pair.at(0).to_number<std::size_t>();
    const auto n = pair.at(1).to_number<std::uint64_t>();
    if (index > index_of(~std::uint64_t{0}))
      throw std::out_of_range("histogram bucket index out of range");
    if (index >= h.counts_.size()) h.counts_.resize(index + 1, 0);
    h.counts_[index] += n;
  }
  h.count_ = o.at("count").to_number<std::uint64_t>();
  h.min_ = o.at("min").to_number<std::uint64_t>();
  h.max_ = o.at("max").to_number<std::uint64_t>();
  h.sum_ = o.at("sum").to_number<double>();
  return h;
}

}  // namespace ringcast::load
