// A latency histogram in the manner of HdrHistogram: log-linear buckets (64 per power of two,
// so a reported value is within 1/32 of the true one), fixed memory (15 KB), no allocation
// when recording. The load harness records one value per request (nanoseconds) and reports
// p50/p90/p99/p99.9 and the exact max. Not thread-safe: the caller serialises or merges.
#pragma once

#include <algorithm>
#include <array>
#include <bit>
#include <cstddef>
#include <cstdint>
#include <limits>

namespace uactor::scenarios {

class latency_histogram {
public:
  static constexpr unsigned sub_bucket_bits = 6;
  static constexpr std::uint64_t sub_buckets = 1u << sub_bucket_bits;  // 64: values below are exact
  static constexpr std::uint64_t half = sub_buckets / 2;
  static constexpr std::size_t bucket_count = sub_buckets + (64 - sub_bucket_bits) * half;  // 1,920

  // The bucket a value falls in: exact below 64, then 32 buckets per power of two.
  static constexpr std::size_t index_of(std::uint64_t v) noexcept {
    if (v < sub_buckets) return static_cast<std::size_t>(v);
    const unsigned msb = 63u - static_cast<unsigned>(std::countl_zero(v));
    const unsigned shift = msb - (sub_bucket_bits - 1);  // >= 1: keep the top 6 bits
    const std::uint64_t mantissa = v >> shift;            // in [32, 63]
    return static_cast<std::size_t>(sub_buckets + (shift - 1) * half + (mantissa - half));
  }
  // The smallest and largest value of a bucket.
  static constexpr std::uint64_t lowest_of(std::size_t index) noexcept {
    if (index < sub_buckets) return index;
    const std::uint64_t shift = (index - sub_buckets) / half + 1;
    const std::uint64_t mantissa = (index - sub_buckets) % half + half;
    return mantissa << shift;
  }
  static constexpr std::uint64_t highest_of(std::size_t index) noexcept {
    if (index < sub_buckets) return index;
    const std::uint64_t shift = (index - sub_buckets) / half + 1;
    const std::uint64_t mantissa = (index - sub_buckets) % half + half;
    if (mantissa == sub_buckets - 1 && shift == 64 - sub_bucket_bits) return std::numeric_limits<std::uint64_t>::max();
    return ((mantissa + 1) << shift) - 1;
  }

  void record(std::uint64_t value) noexcept {
    ++counts_[index_of(value)];
    ++total_;
    max_ = std::max(max_, value);
    min_ = std::min(min_, value);
  }

  void merge(const latency_histogram& o) noexcept {
    for (std::size_t i = 0; i < bucket_count; ++i) counts_[i] += o.counts_[i];
    total_ += o.total_;
    max_ = std::max(max_, o.max_);
    min_ = std::min(min_, o.min_);
  }

  void reset() noexcept { *this = latency_histogram{}; }

  // The wire form of the distributed harness (scenarios/agent_wire.hpp): a bucket's count, and
  // the inverse, which a decoder calls only after checking its input (an index below
  // bucket_count, min and max inside the lowest and highest non-empty buckets).
  std::uint64_t bucket(std::size_t index) const noexcept { return counts_[index]; }
  void restore(std::size_t index, std::uint64_t n) noexcept {
    counts_[index] += n;
    total_ += n;
  }
  void restore_extremes(std::uint64_t min, std::uint64_t max) noexcept {
    min_ = min;
    max_ = max;
  }

  std::uint64_t count() const noexcept { return total_; }
  std::uint64_t max() const noexcept { return total_ ? max_ : 0; }
  std::uint64_t min() const noexcept { return total_ ? min_ : 0; }

  // The value at or below which `percent` % of the recorded values lie: the highest value of
  // the bucket the rank falls in (as HdrHistogram reports), never above the exact max. 0 when empty.
  std::uint64_t percentile(double percent) const noexcept {
    if (total_ == 0) return 0;
    percent = std::clamp(percent, 0.0, 100.0);
    // The rank of the value: at least 1, so that p0 is the smallest value.
    auto rank = static_cast<std::uint64_t>(percent / 100.0 * static_cast<double>(total_) + 0.5);
    rank = std::clamp<std::uint64_t>(rank, 1, total_);
    std::uint64_t seen = 0;
    for (std::size_t i = 0; i < bucket_count; ++i) {
      seen += counts_[i];
      if (seen >= rank) return std::min(highest_of(i), max_);
    }
    return max_;
  }

private:
  std::array<std::uint64_t, bucket_count> counts_{};
  std::uint64_t total_ = 0;
  std::uint64_t max_ = 0;
  std::uint64_t min_ = std::numeric_limits<std::uint64_t>::max();
};

}  // namespace uactor::scenarios
