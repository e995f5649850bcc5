// Part 13 aggregates over a day of one-second values: 86,400 raw values in 1,440 one-minute
// intervals, as a ReadProcessed of one node would ask. ns (and allocations) per call; divide by
// 86,400 for the cost per raw value.
// Run: build/bench/engine/aggregates_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
// Instructions: valgrind --tool=callgrind build/bench/engine/aggregates_bench
//   --benchmark_filter='aggregate/Average' --benchmark_min_time=0.01 ; callgrind_annotate --inclusive=yes
#include <benchmark/benchmark.h>

#include <cmath>
#include <vector>

#include "engine/server/history/aggregates.hpp"
#include "tests/support/alloc_counter.hpp"
#include "uactor/ua/node_ids.hpp"
#include "uactor/ua/status_codes.hpp"

using namespace uactor;

namespace {

constexpr std::int64_t day_seconds = 86'400;
constexpr ua::date_time midnight{133'000'000'000'000'000};

const std::vector<ua::data_value>& day_of_values() {
  static const std::vector<ua::data_value> values = [] {
    std::vector<ua::data_value> v;
    v.reserve(day_seconds);
    for (std::int64_t s = 0; s < day_seconds; ++s) {
      ua::data_value dv;
      dv.set_value(20.0 + 5.0 * std::sin(static_cast<double>(s) / 3600.0));
      dv.status = s % 997 == 0 ? ua::status::uncertain : ua::status::good;  // a little non-Good data
      dv.has_status = true;
      dv.source_timestamp = ua::date_time{midnight.ticks + s * ua::date_time::ticks_per_second};
      dv.has_source_timestamp = true;
      v.push_back(std::move(dv));
    }
    return v;
  }();
  return values;
}

void aggregate(benchmark::State& st, std::uint32_t id) {
  const auto& raw = day_of_values();
  const ua::node_id node{0, id};
  const ua::date_time end{midnight.ticks + day_seconds * ua::date_time::ticks_per_second};
  history::aggregate_configuration config;
  test::alloc_scope allocs;
  std::size_t produced = 0;
  for (auto _ : st) {
    auto r = history::process(node, raw, midnight, end, 60'000, config, 10'000);
    produced = r->size();
    benchmark::DoNotOptimize(r->data());
  }
  st.counters["intervals"] = static_cast<double>(produced);
  st.counters["ns_per_raw_value"] = benchmark::Counter(
      static_cast<double>(st.iterations()) * day_seconds,
      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  st.counters["allocs_per_call"] =
      static_cast<double>(allocs.counted().allocations) / static_cast<double>(st.iterations());
}

}  // namespace

BENCHMARK_CAPTURE(aggregate, Average, ua::ids::aggregate_function_average)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(aggregate, TimeAverage, ua::ids::aggregate_function_time_average)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(aggregate, TimeAverage2, ua::ids::aggregate_function_time_average2)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(aggregate, Minimum2, ua::ids::aggregate_function_minimum2)->Unit(benchmark::kMicrosecond);
BENCHMARK_CAPTURE(aggregate, StandardDeviationSample, ua::ids::aggregate_function_standard_deviation_sample)->Unit(benchmark::kMicrosecond);

BENCHMARK_MAIN();
