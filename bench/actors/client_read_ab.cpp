// A/B in one run (a goal of docs/decisions/0017): does supervision (client_options::reconnect) cost the healthy
// path anything? Two clients of this process read one value of the same server (`uactor run` as
// a child process, so that only the clients' costs are counted): A classic, B supervised. Phases
// alternate A B, B A, ... `--rounds` times, each `--requests` Reads with one in flight (the next
// Read is issued from the previous one's callback).
// Unit: per Read, this process's CPU (user + system, getrusage) and heap allocations / bytes (the
// process-wide counter of runtime/alloc_hook.cpp); medians over the rounds and the B/A ratios.
// Run: build/bench/actors/client_read_ab build/cli/uactor [--rounds 5] [--requests 20000]
// --b redundant: B is a redundant_client of the one server instead (docs/decisions/0041: what its
// request path, a shared_ptr copied under a mutex, costs beside the classic client's).
// Instructions: valgrind --tool=callgrind build/bench/actors/client_read_ab build/cli/uactor
//   --rounds 1 --requests 2000 --only a (then --only b): total Ir of the two runs, per Read.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <future>
#include <optional>
#include <string>
#include <vector>

#include "runtime/process_stats.hpp"
#include "tests/support/fault_proxy.hpp"
#include "uactor/client.hpp"
#include "uactor/redundant_client.hpp"

using namespace uactor;

namespace {

ua::read_request read_one() {
  ua::read_request r;
  r.nodes_to_read.resize(1);
  r.nodes_to_read[0].node_id = ua::node_id::string(1, "Demo.Static.Scalar.Double");
  r.nodes_to_read[0].attribute_id = 13;
  return r;
}

struct phase_result {
  double cpu_us = 0;
  double allocs = 0;
  double bytes = 0;
  double wall_us = 0;
};

// `n` Reads, each issued by the callback of the one before.
template <class Client>
phase_result run_phase(Client& c, std::uint64_t n) {
  std::promise<void> done;
  auto finished = done.get_future();
  std::uint64_t left = n;
  std::uint64_t failures = 0;
  std::function<void(ua::expected<ua::read_response>)> next;
  next = [&](ua::expected<ua::read_response> r) {
    if (!r) ++failures;
    if (--left == 0) return done.set_value();
    c.read(read_one(), next);
  };
  const auto before = app::sample_process_stats();
  const auto t0 = std::chrono::steady_clock::now();
  c.read(read_one(), next);
  finished.wait();
  const auto t1 = std::chrono::steady_clock::now();
  const auto d = app::sample_process_stats() - before;
  if (failures) std::fprintf(stderr, "%llu reads failed\n", static_cast<unsigned long long>(failures));
  phase_result p;
  const double reqs = static_cast<double>(n);
  p.cpu_us = static_cast<double>(d.cpu_user_us + d.cpu_system_us) / reqs;
  p.allocs = static_cast<double>(d.allocations) / reqs;
  p.bytes = static_cast<double>(d.allocated_bytes) / reqs;
  p.wall_us = std::chrono::duration<double, std::micro>(t1 - t0).count() / reqs;
  return p;
}

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v.empty() ? 0 : v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: client_read_ab UACTOR [--rounds N] [--requests N]\n");
    return 2;
  }
  int rounds = 5;
  std::uint64_t requests = 20'000;
  int only = -1;  // --only a|b: one client's phases (both connect): for instruction counts under callgrind
  bool redundant = false;
  for (int i = 2; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--rounds")) rounds = std::atoi(argv[i + 1]);
    else if (!std::strcmp(argv[i], "--b")) redundant = !std::strcmp(argv[i + 1], "redundant");
    else if (!std::strcmp(argv[i], "--requests")) requests = std::strtoull(argv[i + 1], nullptr, 10);
    else if (!std::strcmp(argv[i], "--only")) only = argv[i + 1][0] == 'b' ? 1 : 0;
  }
  test::server_process server(argv[1], {"run", "--host", "127.0.0.1", "--port", "{port}"});
  if (!server.start()) {
    std::fprintf(stderr, "cannot start %s\n", argv[1]);
    return 1;
  }
  client_options classic;
  classic.endpoint_url = server.url();
  auto supervised = classic;
  supervised.reconnect.enabled = true;
  auto a = client::connect(classic);
  std::optional<ua::expected<client>> b;
  std::optional<ua::expected<redundant_client>> rb;
  if (redundant) {
    redundant_client_options ro;
    ro.endpoint_urls = {server.url()};
    ro.mode = redundancy_support::warm;
    rb.emplace(redundant_client::connect(ro));
  } else {
    b.emplace(client::connect(supervised));
  }
  if (!a || (b && !*b) || (rb && !*rb)) {
    std::fprintf(stderr, "cannot connect\n");
    return 1;
  }
  auto phase_b = [&](std::uint64_t n) { return rb ? run_phase(**rb, n) : run_phase(**b, n); };
  if (only != 1) run_phase(*a, requests / 4);  // warm-up
  if (only != 0) phase_b(requests / 4);
  std::vector<double> cpu[2], allocs[2], bytes[2], wall[2];
  std::printf("phase  round  cpu_us/req  allocs/req  bytes/req  wall_us/req\n");
  for (int r = 0; r < rounds; ++r) {
    for (int j = 0; j < 2; ++j) {
      const int k = r % 2 == 0 ? j : 1 - j;  // A B, then B A: neither always runs second
      if (only >= 0 && k != only) continue;
      const auto p = k == 0 ? run_phase(*a, requests) : phase_b(requests);
      cpu[k].push_back(p.cpu_us);
      allocs[k].push_back(p.allocs);
      bytes[k].push_back(p.bytes);
      wall[k].push_back(p.wall_us);
      std::printf("%-6s %5d  %10.2f  %10.2f  %9.1f  %11.2f\n", k == 0 ? "A" : "B", r, p.cpu_us, p.allocs, p.bytes, p.wall_us);
    }
  }
  std::printf("\nread.1value (median of %d x %llu)  A classic  B %s  B/A\n", rounds,
              static_cast<unsigned long long>(requests), redundant ? "redundant" : "supervised");
  auto row = [](const char* name, const std::vector<double>& x, const std::vector<double>& y) {
    const double mx = median(x), my = median(y);
    std::printf("%-22s %10.2f %13.2f %6.3f\n", name, mx, my, mx > 0 ? my / mx : 0.0);
  };
  row("cpu_us/req", cpu[0], cpu[1]);
  row("allocs/req", allocs[0], allocs[1]);
  row("bytes/req", bytes[0], bytes[1]);
  row("wall_us/req", wall[0], wall[1]);
  a->close();
  if (b) (*b)->close();
  if (rb) (*rb)->close();
  return 0;
}
