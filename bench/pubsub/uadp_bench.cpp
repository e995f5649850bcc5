// PubSub UADP (Part 14 §7.2.4): what a publisher spends per value and a subscriber per value, for
// 10,000 Double variables in 10 writer groups of 1,000 fields (one datagram each, under UDP's 64 KiB),
// per field encoding (0 Variant, 1 RawData, 2 DataValue): ns per value, heap allocations per
// NetworkMessage.
//   publish.cycle/E       every value changed, then one cycle of each group (the writer's state
//                         and the encoder: what the connection's actor does per PublishingInterval)
//   publish.cycle_send/E  the same, and each NetworkMessage sent to a UDP socket on 127.0.0.1
//                         (read back by the benchmark, not counted per value twice)
//   decode.fields/E       a subscriber: the headers split, then the fields of the DataSetMessage
// Run: build/bench/pubsub/uadp_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>

#include <vector>

#include "pubsub/uadp_messages.hpp"
#include "pubsub/writer_group.hpp"
#include "tests/support/alloc_counter.hpp"

using namespace uactor;
using namespace uactor::pubsub;

namespace {

constexpr std::size_t groups = 10, fields_per_group = 1000;
constexpr ua::date_time bench_t0 = ua::date_time::from_unix_ms(1'796'375'411'500);

field_encoding encoding_of(std::int64_t e) {
  return e == 1 ? field_encoding::raw : e == 2 ? field_encoding::data_value : field_encoding::variant;
}

std::vector<writer_group_state> make_groups(field_encoding e) {
  std::vector<writer_group_state> out;
  for (std::size_t g = 0; g < groups; ++g) {
    writer_group_config gc;
    gc.name = "G" + std::to_string(g);
    gc.id = static_cast<std::uint16_t>(g + 1);
    resolved_writer w;
    w.config.id = static_cast<std::uint16_t>(g + 1);
    w.config.key_frame_count = 1;  // every value, every cycle: the worst case
    w.config.encoding = e;
    for (std::size_t f = 0; f < fields_per_group; ++f)
      w.fields.push_back({"v" + std::to_string(f), ua::builtin_type::double_, -1, {}});
    out.emplace_back("1001", gc, std::vector<resolved_writer>{w}, "bench", message_encoding::uadp, publisher_id_type::uint16);
  }
  return out;
}

struct udp_pair {
  int tx = -1, rx = -1;
  sockaddr_in to{};
  udp_pair() {
    rx = ::socket(AF_INET, SOCK_DGRAM, 0);
    tx = ::socket(AF_INET, SOCK_DGRAM, 0);
    to.sin_family = AF_INET;
    to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    ::bind(rx, reinterpret_cast<sockaddr*>(&to), sizeof to);
    socklen_t len = sizeof to;
    ::getsockname(rx, reinterpret_cast<sockaddr*>(&to), &len);
    const int big = 8 << 20;
    ::setsockopt(rx, SOL_SOCKET, SO_RCVBUF, &big, sizeof big);
  }
  ~udp_pair() {
    ::close(tx);
    ::close(rx);
  }
};

void run_publish(benchmark::State& state, bool send) {
  auto gs = make_groups(encoding_of(state.range(0)));
  ua::data_value v;
  v.set_value(1.0);
  udp_pair udp;
  std::vector<std::uint8_t> sink(65'536);
  double x = 0;
  const auto one_cycle = [&] {
    for (auto& g : gs) {
      for (std::size_t f = 0; f < fields_per_group; ++f) {
        *v.value.get_if<double>() = x += 0.25;
        g.set(0, f, v);
      }
      const auto res = g.cycle(bench_t0);
      if (send) {
        ::sendto(udp.tx, res.message.data(), res.message.size(), 0, reinterpret_cast<const sockaddr*>(&udp.to), sizeof udp.to);
        ::recv(udp.rx, sink.data(), sink.size(), 0);
      }
      benchmark::DoNotOptimize(res.message.data());
    }
  };
  one_cycle();  // the buffers grow to their size once
  std::uint64_t allocations = 0;
  for (auto _ : state) {
    test::alloc_scope scope;
    one_cycle();
    allocations += scope.counted().allocations;
  }
  const double cycles = static_cast<double>(state.iterations());
  state.counters["ns_per_value"] = benchmark::Counter(cycles * groups * fields_per_group,
                                                      benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["allocs_per_msg"] = static_cast<double>(allocations) / (cycles * groups);
  state.counters["bytes_per_msg"] = static_cast<double>(gs[0].cycle(bench_t0).message.size());
}

void publish_cycle(benchmark::State& state) { run_publish(state, false); }
void publish_cycle_send(benchmark::State& state) { run_publish(state, true); }

void decode_fields(benchmark::State& state) {
  auto gs = make_groups(encoding_of(state.range(0)));
  ua::data_value v;
  v.set_value(1.0);
  for (std::size_t f = 0; f < fields_per_group; ++f) {
    *v.value.get_if<double>() = static_cast<double>(f) + 0.5;
    gs[0].set(0, f, v);
  }
  const auto m = gs[0].cycle(bench_t0).message;
  const std::vector<std::uint8_t> bytes(m.begin(), m.end());
  const std::vector<uadp_raw_type> types(fields_per_group, {ua::builtin_type::double_, false});
  uadp_network_message n;
  uadp_error e;
  std::vector<decoded_field> fields;
  read_uadp_network_message(bytes, {}, n, e);
  read_uadp_fields(n.messages[0], types, {}, fields, e);  // sizes the vectors once
  std::uint64_t allocations = 0;
  for (auto _ : state) {
    test::alloc_scope scope;
    if (!read_uadp_network_message(bytes, {}, n, e) || !read_uadp_fields(n.messages[0], types, {}, fields, e))
      state.SkipWithError("decode failed");
    benchmark::DoNotOptimize(fields.data());
    allocations += scope.counted().allocations;
  }
  const double its = static_cast<double>(state.iterations());
  state.counters["ns_per_value"] = benchmark::Counter(its * fields_per_group, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  state.counters["allocs_per_msg"] = static_cast<double>(allocations) / its;
}

}  // namespace

BENCHMARK(publish_cycle)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond);
BENCHMARK(publish_cycle_send)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond);
BENCHMARK(decode_fields)->Arg(0)->Arg(1)->Arg(2)->Unit(benchmark::kMicrosecond);
BENCHMARK_MAIN();
