#include <catch2/catch.hpp>

#include <algorithm>
#include <cstdint>
#include <random>
#include <vector>

#include "scenarios/latency_histogram.hpp"

using uactor::scenarios::latency_histogram;

namespace {

// The exact percentile of a sorted sample, with the same rank rule as the histogram.
std::uint64_t exact_percentile(const std::vector<std::uint64_t>& sorted, double percent) {
  auto rank = static_cast<std::uint64_t>(percent / 100.0 * static_cast<double>(sorted.size()) + 0.5);
  rank = std::clamp<std::uint64_t>(rank, 1, sorted.size());
  return sorted[rank - 1];
}

}  // namespace

TEST_CASE("latency_histogram: every bucket's values map back to it, and buckets tile the range", "[scenarios]") {
  for (std::size_t i = 0; i < latency_histogram::bucket_count; ++i) {
    const auto lo = latency_histogram::lowest_of(i);
    const auto hi = latency_histogram::highest_of(i);
    REQUIRE(lo <= hi);
    REQUIRE(latency_histogram::index_of(lo) == i);
    REQUIRE(latency_histogram::index_of(hi) == i);
    if (i + 1 < latency_histogram::bucket_count) REQUIRE(latency_histogram::lowest_of(i + 1) == hi + 1);
  }
  REQUIRE(latency_histogram::highest_of(latency_histogram::bucket_count - 1) == UINT64_MAX);
  REQUIRE(latency_histogram::index_of(UINT64_MAX) == latency_histogram::bucket_count - 1);
}

TEST_CASE("latency_histogram: values below 64 are exact, larger ones within 1/32", "[scenarios]") {
  for (std::uint64_t v = 0; v < 64; ++v) REQUIRE(latency_histogram::highest_of(latency_histogram::index_of(v)) == v);
  std::mt19937_64 rng(42);
  for (int n = 0; n < 100000; ++n) {
    const std::uint64_t v = rng() >> (rng() % 64);
    const auto i = latency_histogram::index_of(v);
    const auto width = latency_histogram::highest_of(i) - latency_histogram::lowest_of(i);
    REQUIRE(static_cast<double>(width) <= static_cast<double>(v) / 32.0);
  }
}

TEST_CASE("latency_histogram: percentiles agree with a sorted sample within the bucket width", "[scenarios]") {
  std::mt19937_64 rng(7);
  std::lognormal_distribution<double> latency(10.0, 1.0);  // around 22 µs in ns, a long tail
  latency_histogram h;
  std::vector<std::uint64_t> all;
  for (int n = 0; n < 200000; ++n) {
    const auto v = static_cast<std::uint64_t>(latency(rng));
    h.record(v);
    all.push_back(v);
  }
  std::sort(all.begin(), all.end());
  REQUIRE(h.count() == all.size());
  REQUIRE(h.max() == all.back());
  REQUIRE(h.min() == all.front());
  for (double p : {0.0, 1.0, 50.0, 90.0, 99.0, 99.9, 99.99, 100.0}) {
    const auto exact = exact_percentile(all, p);
    const auto reported = h.percentile(p);
    INFO("p" << p << " exact " << exact << " reported " << reported);
    REQUIRE(reported >= exact);  // the bucket's highest value, like HdrHistogram
    REQUIRE(static_cast<double>(reported - exact) <= static_cast<double>(exact) / 32.0 + 1.0);
  }
  REQUIRE(h.percentile(100.0) == all.back());
}

TEST_CASE("latency_histogram: empty reports zeros, merge equals recording everything in one", "[scenarios]") {
  latency_histogram empty;
  REQUIRE(empty.count() == 0);
  REQUIRE(empty.percentile(50) == 0);
  REQUIRE(empty.max() == 0);
  REQUIRE(empty.min() == 0);

  latency_histogram a, b, both;
  for (std::uint64_t v = 1; v < 5000; v += 3) { a.record(v); both.record(v); }
  for (std::uint64_t v = 100000; v < 200000; v += 7) { b.record(v); both.record(v); }
  a.merge(b);
  REQUIRE(a.count() == both.count());
  REQUIRE(a.max() == both.max());
  REQUIRE(a.min() == both.min());
  for (double p : {10.0, 50.0, 99.0, 99.9}) REQUIRE(a.percentile(p) == both.percentile(p));
  a.reset();
  REQUIRE(a.count() == 0);
  REQUIRE(a.percentile(99) == 0);
}

TEST_CASE("latency_histogram: one value is every percentile", "[scenarios]") {
  latency_histogram h;
  h.record(12345);
  for (double p : {0.0, 50.0, 99.9, 100.0}) REQUIRE(h.percentile(p) == 12345);
}
