// PubSub subscriber end to end (issue 36's goal "1,000,000 values/s decoded into TargetVariables";
// docs/performance.md "PubSub subscriber into TargetVariables"): a real runtime with a [pubsub]
// connection on opc.udp://127.0.0.1:<free port> whose readers write WRITERS x FIELDS Double
// TargetVariables, and this process's sender thread publishing UADP NetworkMessages to it (one
// datagram per writer, key frames only, every value changed) every INTERVAL ms for SECONDS.
// What the subscriber's side costs: the process's CPU (getrusage) less the sender thread's own
// (CLOCK_THREAD_CPUTIME_ID), per value taken; that is the UDP link's receiving thread, the
// connection actor's decode and reader, the value door, and the host's apply (nobody monitors the
// targets). The runtime's idle CPU over the same time, measured before, is printed apart.
// At the end a client reads three targets: each must hold the last cycle's value.
// Run: build/bench/pubsub/subscriber_bench [WRITERS=10] [FIELDS=1000] [INTERVAL_MS=10] [SECONDS=10] [variant|raw|data_value]
#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <thread>
#include <vector>

#include "bench/pubsub/runtime_bench_support.hpp"
#include "engine/common/clock.hpp"
#include "pubsub/writer_group.hpp"

using namespace uactor;
using namespace uactor::bench;
using namespace std::chrono_literals;

namespace {

pubsub::field_encoding encoding_named(const std::string& s) {
  return s == "raw" ? pubsub::field_encoding::raw
         : s == "data_value" ? pubsub::field_encoding::data_value
                             : pubsub::field_encoding::variant;
}

struct metrics_now {
  std::uint64_t values, messages, errors;
};
metrics_now received(const server& s) {
  const auto m = s.metrics();
  return {m.pubsub_values_received, m.pubsub_messages_received, m.pubsub_decode_errors};
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t writers = argc > 1 ? std::strtoul(argv[1], nullptr, 10) : 10;
  const std::size_t fields = argc > 2 ? std::strtoul(argv[2], nullptr, 10) : 1000;
  const auto interval = std::chrono::milliseconds(argc > 3 ? std::strtoul(argv[3], nullptr, 10) : 10);
  const auto seconds = std::chrono::seconds(argc > 4 ? std::strtoul(argv[4], nullptr, 10) : 10);
  const auto encoding = encoding_named(argc > 5 ? argv[5] : "variant");
  const auto port = free_udp_port();

  auto c = uadp_connection(port);
  for (std::size_t w = 0; w < writers; ++w) {
    pubsub::dataset_reader_config r;
    r.name = "R" + std::to_string(w);
    r.publisher_id = "1001";
    r.writer_group_id = static_cast<std::uint16_t>(w + 1);
    r.writer_id = static_cast<std::uint16_t>(w + 1);
    r.message_receive_timeout = 60s;
    for (std::size_t f = 0; f < fields; ++f) {
      r.fields.push_back(field_name(f));
      r.targets.push_back({field_name(f), "ns=2;i=" + std::to_string(bench_variable(w, f).numeric())});
    }
    c.readers.push_back(std::move(r));
  }
  pubsub::pubsub_config config;
  config.connections.push_back(c);
  runtime rt;
  server& srv = start_bench_server(rt, std::move(config), writers, fields);

  // The publisher: one writer group of one writer per reader, as a uactor publisher would send them.
  std::vector<pubsub::writer_group_state> groups;
  for (std::size_t w = 0; w < writers; ++w) {
    pubsub::writer_group_config gc;
    gc.name = "G" + std::to_string(w);
    gc.id = static_cast<std::uint16_t>(w + 1);
    pubsub::resolved_writer rw;
    rw.config.id = static_cast<std::uint16_t>(w + 1);
    rw.config.key_frame_count = 1;
    rw.config.encoding = encoding;
    for (std::size_t f = 0; f < fields; ++f) rw.fields.push_back({field_name(f), ua::builtin_type::double_, -1, {}});
    groups.emplace_back("1001", gc, std::vector<pubsub::resolved_writer>{rw}, "bench", pubsub::message_encoding::uadp,
                        pubsub::publisher_id_type::uint16);
  }
  const int tx = ::socket(AF_INET, SOCK_DGRAM, 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  to.sin_port = htons(port);
  std::uint64_t sent = 0, send_failed = 0;
  double last = 0;
  const auto cycle = [&](double value) {
    ua::data_value v;
    v.set_value(value);
    for (auto& g : groups) {
      for (std::size_t f = 0; f < fields; ++f) {
        *v.value.get_if<double>() = value + double(f);
        g.set(0, f, v);
      }
      for (const auto& m : g.cycle(actors::utc_now()).messages) {
        if (::sendto(tx, m.data(), m.size(), 0, reinterpret_cast<const sockaddr*>(&to), sizeof to) < 0) ++send_failed;
        else ++sent;
      }
    }
    last = value;
  };

  // Warm up (buffers sized, targets once written), then the idle runtime for comparison.
  for (int i = 0; i < 20; ++i) cycle(1e6 * i), std::this_thread::sleep_for(interval);
  std::this_thread::sleep_for(500ms);
  const double idle_cpu0 = process_cpu_s();
  std::this_thread::sleep_for(2s);
  const double idle_per_s = (process_cpu_s() - idle_cpu0) / 2.0;

  const auto m0 = received(srv);
  const std::uint64_t sent0 = sent;
  const double cpu0 = process_cpu_s(), sender0 = thread_cpu_s();
  const auto t0 = std::chrono::steady_clock::now();
  auto next = t0;
  std::uint64_t cycles = 0;
  while (std::chrono::steady_clock::now() - t0 < seconds) {
    cycle(1e6 * double(20 + cycles++));
    next += interval;
    std::this_thread::sleep_until(next);
  }
  const double sender_cpu = thread_cpu_s() - sender0;
  // The last datagrams still on their way: wait (bounded) until the counters stop moving.
  auto m1 = received(srv);
  for (int i = 0; i < 50; ++i) {
    std::this_thread::sleep_for(20ms);
    const auto now = received(srv);
    if (now.values == m1.values) break;
    m1 = now;
  }
  const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  const double cpu = process_cpu_s() - cpu0;
  const double values = double(m1.values - m0.values);
  const double offered = double(cycles * writers * fields);
  const double subscriber_cpu = cpu - sender_cpu;

  // Three targets must hold the last cycle's values.
  client_options co;
  co.endpoint_url = srv.endpoint_url();
  auto cl = rt.connect(co);
  int wrong = 0;
  if (!cl) {
    std::fprintf(stderr, "connect: %s\n", cl.error().to_string().c_str());
    wrong = 3;
  } else {
    ua::read_request rr;
    for (const auto& [w, f] : {std::pair<std::size_t, std::size_t>{0, 0}, {writers / 2, fields / 2}, {writers - 1, fields - 1}}) {
      ua::read_value_id id;
      id.node_id = bench_variable(w, f);
      id.attribute_id = 13;
      rr.nodes_to_read.push_back(id);
    }
    const auto r = cl->read_sync(rr);
    const double expect[3] = {last, last + double(fields / 2), last + double(fields - 1)};
    for (int i = 0; i < 3; ++i) {
      const auto* d = r && r->results.size() == 3 ? r->results[std::size_t(i)].value.get_if<double>() : nullptr;
      if (!d || *d != expect[i]) ++wrong;
    }
    cl->close();
  }
  std::printf(
      "%zu writers x %zu fields every %lld ms for %.1f s (%s fields): offered %.0f values/s in %.0f datagrams/s "
      "(%llu send failures)\n"
      "taken into TargetVariables: %.0f values/s (%.4f of offered), %llu DataSetMessages, %llu decode errors\n"
      "subscriber CPU: %.1f %% of one core, %.1f ns per value taken (process %.3f s less the sender's %.3f s); "
      "the idle runtime alone: %.2f %% of one core\n"
      "last values in three targets: %s\n",
      writers, fields, static_cast<long long>(interval.count()), wall,
      encoding == pubsub::field_encoding::raw ? "RawData" : encoding == pubsub::field_encoding::data_value ? "DataValue" : "Variant",
      offered / wall, double(sent - sent0) / wall, static_cast<unsigned long long>(send_failed), values / wall,
      offered > 0 ? values / offered : 0.0, static_cast<unsigned long long>(m1.messages - m0.messages),
      static_cast<unsigned long long>(m1.errors - m0.errors), subscriber_cpu / wall * 100, subscriber_cpu / values * 1e9,
      cpu, sender_cpu, idle_per_s * 100, wrong == 0 ? "right" : "WRONG");
  ::close(tx);
  rt.stop();
  return wrong == 0 && values > 0 ? 0 : 1;
}
