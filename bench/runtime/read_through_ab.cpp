// A/B in one run (a goal of docs/decisions/0014): does a read-through that takes 100 ms change the latency of a
// concurrent 20x1 Read load on other nodes? A server (its own runtime) with 100 Double tags and one
// read-through variable whose handler answers after 100 ms on a device thread; 20 clients (another
// runtime, another actor system) each keep one Read of a tag in flight. Phases alternate A (no
// slow reads) and B (a 21st client keeps one Read of the read-through variable in flight), each
// `--seconds` long, `--rounds` times; the latency of every tag Read is recorded.
// Unit: µs per Read, p50 / p99 / max per phase, and the B/A ratio of the p99s.
// Run: build/bench/runtime/read_through_ab [--seconds 3] [--rounds 3]
#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "uactor/ua/attribute_ids.hpp"
#include "uactor/ua/node_ids.hpp"
#include "uactor/runtime.hpp"

using namespace uactor;
using clock_type = std::chrono::steady_clock;

namespace {

node_id tag(std::uint16_t ns, int i) { return node_id::string(ns, "T" + std::to_string(i)); }

ua::read_request read_of(const node_id& n) {
  ua::read_request r;
  r.nodes_to_read.resize(1);
  r.nodes_to_read[0].node_id = n;
  r.nodes_to_read[0].attribute_id = static_cast<std::uint32_t>(ua::attribute_id::value);
  return r;
}

// One client keeping one Read in flight until told to stop; latencies in µs.
struct reader {
  client c;
  ua::read_request request;
  std::atomic<bool>* running = nullptr;
  std::mutex mutex;
  std::vector<double> latencies;
  std::atomic<bool> idle{true};
  std::atomic<std::uint64_t> failures{0};

  reader(client cl, ua::read_request r) : c(std::move(cl)), request(std::move(r)) {}

  void start(std::atomic<bool>& run) {
    running = &run;
    idle = false;
    next();
  }
  void next() {
    if (!running->load()) {
      idle = true;
      return;
    }
    const auto t0 = clock_type::now();
    c.read(request, [this, t0](ua::expected<ua::read_response> r) {
      const double us = std::chrono::duration<double, std::micro>(clock_type::now() - t0).count();
      if (!r || r->results.empty() || (r->results[0].has_status && r->results[0].status.is_bad())) ++failures;
      {
        std::lock_guard lock(mutex);
        latencies.push_back(us);
      }
      next();
    });
  }
};

double percentile(std::vector<double>& v, double p) {
  if (v.empty()) return 0;
  const auto k = static_cast<std::size_t>(p * static_cast<double>(v.size() - 1));
  std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(k), v.end());
  return v[k];
}

}  // namespace

int main(int argc, char** argv) {
  int seconds = 3, rounds = 3;
  for (int i = 1; i + 1 < argc; i += 2) {
    if (!std::strcmp(argv[i], "--seconds")) seconds = std::atoi(argv[i + 1]);
    if (!std::strcmp(argv[i], "--rounds")) rounds = std::atoi(argv[i + 1]);
  }
  runtime server_rt;
  auto plan = default_server_plan();
  plan.listen_address = "127.0.0.1";
  plan.port = 0;
  plan.security = {"none"};
  server& srv = **server_rt.start_server(plan);
  const auto ns = srv.register_namespace("urn:bench:read-through");
  std::vector<node_change> nodes;
  for (int i = 0; i <= 100; ++i) {
    variable_node v;
    v.id = i < 100 ? tag(ns, i) : node_id::string(ns, "Slow");
    v.parent = ns0::objects_folder;
    v.browse_name = qualified_name{ns, ua::ua_string("V")};
    v.data_type = node_id(0, ua::ids::double_);
    v.value.set_value(1.0);
    nodes.push_back(std::move(v));
  }
  srv.apply(std::move(nodes));
  thread_executor device;
  srv.on_read(node_id::string(ns, "Slow"),
              [](const read_call&, read_reply reply) {
                std::this_thread::sleep_for(std::chrono::milliseconds(100));  // the slow device
                data_value v;
                v.set_value(2.0);
                reply(v);
              },
              {device.get(), std::chrono::seconds(5)});

  runtime load_rt;
  client_options o;
  o.endpoint_url = "opc.tcp://127.0.0.1:" + std::to_string(srv.port());
  std::vector<std::unique_ptr<reader>> readers;
  const auto connect = [&] {
    auto c = load_rt.connect(o);
    if (!c) throw std::runtime_error("connect: " + c.error().to_string());
    return std::move(*c);
  };
  for (int i = 0; i < 20; ++i) readers.push_back(std::make_unique<reader>(connect(), read_of(tag(ns, i * 5))));
  reader slow(connect(), read_of(node_id::string(ns, "Slow")));

  std::printf("read_through_ab: 20 clients x 1 Read in flight, %d s per phase, %d rounds; unit: us per Read\n", seconds,
              rounds);
  std::printf("%-6s %10s %10s %10s %10s %8s\n", "phase", "reads", "p50", "p99", "max", "slow");
  std::vector<double> p99[2];
  for (int round = 0; round < rounds; ++round)
    for (int phase = 0; phase < 2; ++phase) {
      for (auto& r : readers) r->latencies.clear();
      slow.latencies.clear();
      std::atomic<bool> running{true};
      if (phase == 1) slow.start(running);
      for (auto& r : readers) r->start(running);
      std::this_thread::sleep_for(std::chrono::seconds(seconds));
      running = false;
      const auto deadline = clock_type::now() + std::chrono::seconds(5);
      while (clock_type::now() < deadline &&
             (!slow.idle || std::any_of(readers.begin(), readers.end(), [](auto& r) { return !r->idle; })))
        std::this_thread::sleep_for(std::chrono::milliseconds(5));
      std::vector<double> all;
      std::uint64_t failures = 0;
      for (auto& r : readers) {
        std::lock_guard lock(r->mutex);
        all.insert(all.end(), r->latencies.begin(), r->latencies.end());
        failures += r->failures;
      }
      const double p50 = percentile(all, 0.50), p = percentile(all, 0.99);
      const double mx = all.empty() ? 0 : *std::max_element(all.begin(), all.end());
      p99[phase].push_back(p);
      std::printf("%-6s %10zu %10.1f %10.1f %10.1f %8zu%s\n", phase ? "B" : "A", all.size(), p50, p, mx,
                  slow.latencies.size(), failures ? "  (failed reads!)" : "");
    }
  auto median = [](std::vector<double> v) { return percentile(v, 0.5); };
  std::printf("p99 B/A (medians of the rounds): %.3f\n", median(p99[1]) / median(p99[0]));
  return 0;
}
