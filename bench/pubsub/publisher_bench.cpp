// PubSub publisher end to end (issue 36's goal "1,000,000 values/s published, 100,000 variables at
// 100 ms, UADP over UDP"; docs/performance.md "PubSub publisher from a running server"): a real
// runtime whose application (this process's main thread, through server::write_values) changes
// WRITERS x FIELDS Double variables every INTERVAL ms, and a [pubsub] connection publishing them
// as UADP (one writer group of one writer per FIELDS variables, key frames, Variant fields) to a
// UDP socket this process reads and decodes on a thread of its own.
// Two phases of SECONDS each, one runtime each: the same writes without the [pubsub] connection,
// then with it. The publisher's cost is the difference of the runtime's CPU (the process's less
// the bench's writer and receiver threads') between them, per value published.
// Run: build/bench/pubsub/publisher_bench [WRITERS=100] [FIELDS=1000] [INTERVAL_MS=100] [SECONDS=10]
#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "bench/pubsub/runtime_bench_support.hpp"
#include "pubsub/uadp_messages.hpp"

using namespace uactor;
using namespace uactor::bench;
using namespace std::chrono_literals;

namespace {

struct settings {
  std::size_t writers = 100, fields = 1000;
  std::chrono::milliseconds interval{100};
  std::chrono::seconds seconds{10};
};

// Reads and decodes every datagram until told to stop; counts values and undecodable datagrams.
struct receiver {
  int fd = -1;
  std::atomic<bool> stop{false};
  std::atomic<std::uint64_t> datagrams{0}, values{0}, errors{0};
  double cpu_s = 0;
  std::thread thread;

  void start() {
    thread = std::thread([this] {
      const double cpu0 = thread_cpu_s();
      timeval tv{0, 100'000};
      ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
      std::vector<std::uint8_t> buffer(65'536);
      pubsub::uadp_network_message n;
      pubsub::uadp_error e;
      std::vector<pubsub::decoded_field> fields;
      while (!stop.load()) {
        const auto got = ::recv(fd, buffer.data(), buffer.size(), 0);
        if (got <= 0) continue;
        datagrams.fetch_add(1, std::memory_order_relaxed);
        if (!pubsub::read_uadp_network_message({buffer.data(), std::size_t(got)}, {}, n, e)) {
          errors.fetch_add(1, std::memory_order_relaxed);
          continue;
        }
        for (const auto& m : n.messages)
          if (pubsub::read_uadp_fields(m, {}, {}, fields, e)) values.fetch_add(fields.size(), std::memory_order_relaxed);
          else errors.fetch_add(1, std::memory_order_relaxed);
      }
      cpu_s = thread_cpu_s() - cpu0;
    });
  }
  void finish() {
    stop = true;
    thread.join();
  }
};

struct phase_result {
  double wall = 0, runtime_cpu = 0;  // the process's CPU less this bench's threads'
  std::uint64_t written = 0, refused = 0, received = 0, datagrams = 0, decode_errors = 0, published = 0, dropped = 0, sent = 0;
};

phase_result run_phase(const settings& s, bool publish) {
  std::uint16_t port = 0;
  receiver rx;
  rx.fd = bound_udp_socket(port);
  pubsub::pubsub_config config;
  if (publish) {
    auto c = uadp_connection(port);
    for (std::size_t w = 0; w < s.writers; ++w) {
      pubsub::writer_group_config g;
      g.name = "G" + std::to_string(w);
      g.id = static_cast<std::uint16_t>(w + 1);
      g.publishing_interval = s.interval;
      pubsub::dataset_writer_config dw;
      dw.name = "W" + std::to_string(w);
      dw.id = static_cast<std::uint16_t>(w + 1);
      dw.key_frame_count = 1;
      for (std::size_t f = 0; f < s.fields; ++f) dw.variables.push_back("ns=2;i=" + std::to_string(bench_variable(w, f).numeric()));
      g.writers.push_back(std::move(dw));
      c.writer_groups.push_back(std::move(g));
    }
    config.connections.push_back(std::move(c));
  }
  runtime rt;
  server& srv = start_bench_server(rt, std::move(config), s.writers, s.fields);
  std::vector<node_id> ids;
  for (std::size_t w = 0; w < s.writers; ++w)
    for (std::size_t f = 0; f < s.fields; ++f) ids.push_back(bench_variable(w, f));

  // The application's batches of 1,000 values, every value changed each interval.
  std::vector<std::vector<value_update>> batches;
  const auto handles = srv.resolve(ids);
  for (std::size_t i = 0; i < handles.size(); ++i) {
    if (i % 1000 == 0) batches.emplace_back();
    batches.back().push_back(value_update{*handles[i], variant(0.0), {}, {}});
  }
  phase_result r;
  double x = 0;
  const auto write_all = [&] {
    for (auto& b : batches) {
      for (auto& u : b) u.value = variant(x += 0.25);
      if (srv.write_values(b).is_good()) r.written += b.size();
      else r.refused += b.size();
    }
  };
  rx.start();
  for (int i = 0; i < 10; ++i) write_all(), std::this_thread::sleep_for(s.interval);  // warm-up
  const auto m0 = srv.metrics();
  const std::uint64_t rx_values0 = rx.values, rx_datagrams0 = rx.datagrams, written0 = r.written;
  const double cpu0 = process_cpu_s(), writer0 = thread_cpu_s();
  const auto t0 = std::chrono::steady_clock::now();
  auto next = t0;
  while (std::chrono::steady_clock::now() - t0 < s.seconds) {
    write_all();
    next += s.interval;
    std::this_thread::sleep_until(next);
  }
  r.wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = process_cpu_s() - cpu0, writer = thread_cpu_s() - writer0;
  const auto m1 = srv.metrics();
  r.written -= written0;
  r.published = m1.pubsub_values_sent - m0.pubsub_values_sent;
  r.sent = m1.pubsub_messages_sent - m0.pubsub_messages_sent;
  r.dropped = m1.pubsub_messages_dropped - m0.pubsub_messages_dropped;
  r.received = rx.values - rx_values0;
  r.datagrams = rx.datagrams - rx_datagrams0;
  // The receiver's CPU over the window: its whole life's share, scaled (it ran through the
  // warm-up too; its work per datagram is even).
  rx.finish();
  const double rx_share = rx.datagrams ? double(r.datagrams) / double(rx.datagrams.load()) : 0;
  r.runtime_cpu = cpu - writer - rx.cpu_s * rx_share;
  r.decode_errors = rx.errors;
  ::close(rx.fd);
  rt.stop();
  return r;
}

}  // namespace

int main(int argc, char** argv) {
  settings s;
  if (argc > 1) s.writers = std::strtoul(argv[1], nullptr, 10);
  if (argc > 2) s.fields = std::strtoul(argv[2], nullptr, 10);
  if (argc > 3) s.interval = std::chrono::milliseconds(std::strtoul(argv[3], nullptr, 10));
  if (argc > 4) s.seconds = std::chrono::seconds(std::strtoul(argv[4], nullptr, 10));
  const auto without = run_phase(s, false);
  const auto with = run_phase(s, true);
  const double values_per_s = double(with.written) / with.wall;
  const double extra = with.runtime_cpu / with.wall - without.runtime_cpu / without.wall;  // cores
  std::printf(
      "%zu variables in %zu writer groups, every one changed every %lld ms: %.0f values/s written by the application "
      "(%llu refused)\n"
      "without [pubsub]: the runtime used %.1f %% of one core\n"
      "with [pubsub]:    the runtime used %.1f %% of one core; published %.0f values/s, received and decoded %.0f "
      "values/s in %.0f datagrams/s (%llu decode errors); NetworkMessages sent %.0f/s, dropped %.0f/s\n"
      "the publisher: %.1f %% of one core, %.1f ns per value published\n",
      s.writers * s.fields, s.writers, static_cast<long long>(s.interval.count()), values_per_s,
      static_cast<unsigned long long>(with.refused), without.runtime_cpu / without.wall * 100,
      with.runtime_cpu / with.wall * 100, double(with.published) / with.wall, double(with.received) / with.wall,
      double(with.datagrams) / with.wall, static_cast<unsigned long long>(with.decode_errors), double(with.sent) / with.wall,
      double(with.dropped) / with.wall, extra * 100,
      extra / (double(with.published) / with.wall) * 1e9);
  return with.received > 0 && with.decode_errors == 0 ? 0 : 1;
}
