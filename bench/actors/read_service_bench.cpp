// The address-space read path: service_read over namespace 0 plus 1,000 Double variables, into a
// reused response, as the session will run it. ns per request and allocations per request.
// Run: build/bench/actors/read_service_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <string>

#include "engine/server/services/read.hpp"
#include "protocol/ns0/ns0.hpp"
#include "tests/support/alloc_counter.hpp"

using namespace uactor;
using namespace uactor::ua;

namespace {

constexpr std::uint32_t variables = 1000;
constexpr std::uint32_t double_type = 11;

node_id variable_id(std::uint32_t i) { return node_id::string(1, "bench.v" + std::to_string(i)); }

const address_space& bench_address_space() {
  static const address_space as = [] {
    address_space a;
    load_namespace0(a);
    for (std::uint32_t i = 0; i < variables; ++i) {
      const std::string name = "v" + std::to_string(i);  // node_spec holds a view; add_node copies it
      node_spec s;
      s.id = variable_id(i);
      s.cls = node_class::variable;
      s.browse_ns = 1;
      s.browse_name = name;
      s.data_type = node_id(0, double_type);
      s.value.set_value(static_cast<double>(i));
      s.value.has_source_timestamp = true;
      s.access_level = s.user_access_level = 1;
      if (!a.add_node(std::move(s))) throw std::logic_error("bench node");
    }
    return a;
  }();
  return as;
}

void read_values(benchmark::State& st) {
  const auto& as = bench_address_space();
  read_request req;
  req.timestamps_to_return = timestamps_to_return::both;
  for (std::int64_t i = 0; i < st.range(0); ++i) {
    read_value_id rv;
    rv.node_id = variable_id(static_cast<std::uint32_t>(i * 7 % variables));
    rv.attribute_id = 13;  // Value
    req.nodes_to_read.push_back(rv);
  }
  read_response resp;
  services::service_read(req, resp, as, date_time::from_unix_ms(1'700'000'000'000));  // sizes the response
  test::alloc_scope allocs;
  for (auto _ : st) {
    services::service_read(req, resp, as, date_time::from_unix_ms(1'700'000'000'000));
    benchmark::DoNotOptimize(resp.results.data());
  }
  const auto n = static_cast<double>(st.iterations());
  st.counters["allocs/req"] = static_cast<double>(allocs.counted().allocations) / n;
  st.counters["values/s"] = benchmark::Counter(n * static_cast<double>(st.range(0)), benchmark::Counter::kIsRate);
}

void read_browse_name(benchmark::State& st) {  // a non-Value attribute of a namespace 0 node
  const auto& as = bench_address_space();
  read_request req;
  read_value_id rv;
  rv.node_id = node_id(0, 2253);  // Server
  rv.attribute_id = 3;            // BrowseName
  req.nodes_to_read.push_back(rv);
  read_response resp;
  services::service_read(req, resp, as, date_time{});
  test::alloc_scope allocs;
  for (auto _ : st) {
    services::service_read(req, resp, as, date_time{});
    benchmark::DoNotOptimize(resp.results.data());
  }
  st.counters["allocs/req"] = static_cast<double>(allocs.counted().allocations) / static_cast<double>(st.iterations());
}

}  // namespace

BENCHMARK(read_values)->Name("read_service.value")->Arg(1)->Arg(100)->Arg(1000);
BENCHMARK(read_browse_name)->Name("read_service.browse_name")->Arg(1);

BENCHMARK_MAIN();
