// The recorder's path on the session host (docs/history.md "How a value gets into the file"): VALUES
// value changes of NODES historizing Double variables set in the address space
// (address_space::set_value, as a Write or the application's values end), collected by the
// recorder and handed on by flush_history every 1,000 values to a sink that drops them (the store
// is not measured here). A/B/C rounds interleaved in one run (ROUNDS each):
//   A  no collection settings (every change stored: the state before they existed),
//   B  an ExceptionDeviation every change passes (the settings' full test, every value stored),
//   C  an ExceptionDeviation that keeps 9 changes in 10 out (the deviation doing its work).
// Prints, per round kind, the median thread CPU per value and the heap allocations per value.
// Usage: value_recording_bench [VALUES] [NODES] [ROUNDS]   (default: 200,000 values, 1,000 nodes, 5 rounds)
#include <algorithm>
#include <atomic>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <new>
#include <span>
#include <string>
#include <time.h>
#include <vector>

#include "engine/server/node_builder.hpp"
#include "engine/server/server_core.hpp"
#include "history/sqlite_store.hpp"
#include "runtime/namespaces/demo_namespace.hpp"
#include "uactor/ua/node_ids.hpp"

namespace {

std::atomic<std::uint64_t> allocations{0};

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace

void* operator new(std::size_t n) {
  allocations.fetch_add(1, std::memory_order_relaxed);
  if (void* p = std::malloc(n == 0 ? 1 : n)) return p;
  throw std::bad_alloc();
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete(void* p, std::size_t) noexcept { std::free(p); }

using namespace uactor;

int main(int argc, char** argv) {
  const int values = argc > 1 ? std::max(1000, std::atoi(argv[1])) : 200'000;
  const int nodes = argc > 2 ? std::max(1, std::atoi(argv[2])) : 1'000;
  const int rounds = argc > 3 ? std::max(1, std::atoi(argv[3])) : 5;
  actors::server_core_config c;
  c.description.application_uri = "urn:bench:uactor:server";
  c.description.endpoint_url = "opc.tcp://localhost:4840";
  c.sessions.random = [n = std::uint8_t{0}](std::span<std::uint8_t> out) mutable {
    for (auto& b : out) b = ++n;
  };
  const auto start = ua::date_time::from_unix_ms(1'767'225'600'000);
  auto core = actors::make_demo_server_core(std::move(c), "bench", start);
  // A store for the configuration nodes to be on (history on); nothing is written to it.
  const auto path = (std::filesystem::temp_directory_path() / "value_recording_bench.sqlite").string();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  std::uint64_t handed = 0;
  core.set_history(std::make_shared<history::sqlite_store>(path), [&](std::vector<history::record>&& batch) {
    handed += batch.size();
    return true;
  });
  std::vector<ua::node_index> vars;
  for (int i = 0; i < nodes; ++i) {
    variable_node v;
    v.id = ua::node_id::string(1, "Bench.Recorded.V" + std::to_string(i));
    v.parent = ua::node_id(0, ua::ids::objects_folder);
    v.browse_name = ua::qualified_name{1, ua::ua_string("V" + std::to_string(i))};
    v.data_type = ua::node_id(0, 11);
    v.value.set_value(0.0);
    v.access_level = access::read | access::history_read;
    v.historizing = true;
    if (actors::apply_node_change(core.space(), v, start) != ua::status::good) {
      std::fprintf(stderr, "cannot add %s\n", v.id.to_string().c_str());
      return 1;
    }
    vars.push_back(core.space().find(v.id));
  }
  struct kind {
    const char* name;
    double deviation;
    std::vector<double> cpu_us;
    std::vector<double> allocs;
    std::uint64_t stored = 0;
  };
  // The values step by 1 (a ramp per node): a deviation of 1e-9 passes every change, 9.5 every tenth.
  kind kinds[] = {{"A none", 0, {}, {}}, {"B pass", 1e-9, {}, {}}, {"C 1 in 10", 9.5, {}, {}}};
  std::int64_t tick = start.ticks;
  double step = 0;
  for (int r = 0; r < rounds; ++r) {
    for (kind& k : kinds) {
      actors::historical_configuration defaults;
      defaults.collection.exception_deviation = k.deviation;
      core.set_history_configuration(defaults, 0, 0, {}, actors::instant{std::chrono::steady_clock::now(), start});
      // One pass to configure each node's state (once per settings, not per value).
      for (const ua::node_index n : vars) {
        ua::data_value v;
        v.set_value(step);
        v.source_timestamp.ticks = ++tick;
        v.has_source_timestamp = true;
        core.space().set_value(n, std::move(v));
      }
      core.flush_history();
      step += 1;
      const std::uint64_t handed_before = handed;
      const std::uint64_t alloc_before = allocations.load();
      const double cpu_before = thread_cpu_seconds();
      for (int i = 0; i < values; ++i) {
        const ua::node_index n = vars[static_cast<std::size_t>(i % nodes)];
        ua::data_value v;
        v.set_value(step + static_cast<double>(i / nodes));
        v.source_timestamp.ticks = ++tick;
        v.has_source_timestamp = true;
        core.space().set_value(n, std::move(v));
        if (i % 1'000 == 999) core.flush_history();  // the host flushes after each message
      }
      core.flush_history();
      k.cpu_us.push_back((thread_cpu_seconds() - cpu_before) * 1e6 / values);
      k.allocs.push_back(static_cast<double>(allocations.load() - alloc_before) / values);
      k.stored += handed - handed_before;
      step += static_cast<double>(values / nodes) + 1;
    }
  }
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  std::printf("%d values over %d nodes per round, %d rounds of each kind, interleaved\n", values, nodes, rounds);
  for (kind& k : kinds) {
    std::sort(k.cpu_us.begin(), k.cpu_us.end());
    std::sort(k.allocs.begin(), k.allocs.end());
    std::printf("%-10s %.3f us CPU per value (median; min %.3f, max %.3f), %.3f allocations per value, %.1f %% stored\n", k.name,
                k.cpu_us[k.cpu_us.size() / 2], k.cpu_us.front(), k.cpu_us.back(), k.allocs[k.allocs.size() / 2],
                100.0 * static_cast<double>(k.stored) / (static_cast<double>(values) * rounds));
  }
  return 0;
}
