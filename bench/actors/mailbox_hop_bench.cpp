// The cost of a CAF 0.17 mailbox hop on this machine: round trips between two event-based actors,
// one in flight (each hop wakes the other actor) and 16 in flight (pipelined: a mailbox drain
// handles several). ns per round trip (two hops). Allocations are not counted here: they happen on
// the scheduler's worker threads (CAF 0.17 allocates a mailbox element per message).
// Run: build/bench/actors/mailbox_hop_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <atomic>
#include <caf/all.hpp>
#include <chrono>

namespace {

using ping_atom = caf::atom_constant<caf::atom("ping")>;
using done_atom = caf::atom_constant<caf::atom("done")>;

constexpr int round_trips = 20'000;

caf::behavior pong() {
  return {[](ping_atom, int n) { return caf::make_message(ping_atom::value, n); }};
}

// Sends `round_trips` pings to `peer`, keeping `in_flight` outstanding; tells `report` when done.
caf::behavior ping(caf::event_based_actor* self, caf::actor peer, int in_flight, caf::actor report) {
  auto sent = std::make_shared<int>(0);
  auto received = std::make_shared<int>(0);
  for (int i = 0; i < in_flight; ++i) self->send(peer, ping_atom::value, (*sent)++);
  return {[=](ping_atom, int) {
    if (++*received == round_trips) {
      self->send(report, done_atom::value);
      self->quit();
    } else if (*sent < round_trips) {
      self->send(peer, ping_atom::value, (*sent)++);
    }
  }};
}

caf::actor_system_config& config() {
  static caf::actor_system_config cfg;
  // docs/caf-0.17-measured.md: 2 threads was best on 2 cores.
  cfg.set("scheduler.max-threads", 2);
  return cfg;
}

void round_trip(benchmark::State& st) {
  caf::actor_system sys{config()};
  caf::scoped_actor self{sys};
  const auto peer = sys.spawn(pong);
  for (auto _ : st) {
    const auto start = std::chrono::steady_clock::now();
    sys.spawn(ping, peer, static_cast<int>(st.range(0)), caf::actor{self});
    self->receive([](done_atom) {});
    const std::chrono::duration<double> took = std::chrono::steady_clock::now() - start;
    st.SetIterationTime(took.count() / round_trips);
  }
  caf::anon_send_exit(peer, caf::exit_reason::user_shutdown);
}

}  // namespace

BENCHMARK(round_trip)->Name("caf.round_trip")->Arg(1)->Arg(16)->UseManualTime()->Iterations(20);

BENCHMARK_MAIN();
