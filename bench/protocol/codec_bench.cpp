// Encode and decode of the messages on the hot path: ns per message, MB/s, and heap
// allocations per message (decoding into a reused message object; encoding into a reused buffer).
// Run: build/bench/protocol/codec_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include "protocol/generated/type_codecs.hpp"
#include "protocol/message.hpp"
#include "tests/support/alloc_counter.hpp"

using namespace uactor;
using namespace uactor::ua;

namespace {

request_header request_header_sample() {
  request_header h;
  h.authentication_token = node_id::opaque(0, "0123456789abcdef0123456789abcdef");
  h.timestamp = date_time::from_unix_ms(1'700'000'000'000);
  h.request_handle = 42;
  h.timeout_hint = 10000;
  return h;
}

read_request read_request_of(std::size_t n) {
  read_request r;
  r.request_header = request_header_sample();
  r.timestamps_to_return = timestamps_to_return::both;
  for (std::size_t i = 0; i < n; ++i) {
    read_value_id rv;
    rv.node_id = node_id::string(1, "demo.scalar.v" + std::to_string(i));  // string ids: the costly case
    rv.attribute_id = 13;
    r.nodes_to_read.push_back(rv);
  }
  return r;
}

read_response read_response_of(std::size_t n) {
  read_response r;
  r.response_header.timestamp = date_time::from_unix_ms(1'700'000'000'001);
  r.response_header.request_handle = 42;
  for (std::size_t i = 0; i < n; ++i) {
    data_value v;
    if (i % 2) v.set_value(static_cast<double>(i)); else v.set_value(static_cast<std::int32_t>(i));
    v.has_source_timestamp = v.has_server_timestamp = true;
    v.source_timestamp = v.server_timestamp = date_time::from_unix_ms(1'700'000'000'000 + static_cast<std::int64_t>(i));
    r.results.push_back(std::move(v));
  }
  return r;
}

publish_response publish_response_of(std::size_t changes) {
  data_change_notification dcn;
  for (std::size_t i = 0; i < changes; ++i) {
    monitored_item_notification m;
    m.client_handle = static_cast<std::uint32_t>(i);
    m.value.set_value(static_cast<double>(i) * 0.5);
    m.value.has_source_timestamp = true;
    m.value.source_timestamp = date_time::from_unix_ms(1'700'000'000'000 + static_cast<std::int64_t>(i));
    dcn.monitored_items.push_back(std::move(m));
  }
  publish_response r;
  r.response_header.timestamp = date_time::from_unix_ms(1'700'000'000'001);
  r.subscription_id = 7;
  r.available_sequence_numbers = {11, 12};
  r.notification_message.sequence_number = 12;
  r.notification_message.publish_time = r.response_header.timestamp;
  r.notification_message.notification_data.push_back(extension_object{std::move(dcn)});
  return r;
}

// Counters every benchmark reports: allocations and bytes allocated per message.
struct per_message_allocs {
  test::alloc_scope scope;
  void report(benchmark::State& st) const {
    const auto c = scope.counted();
    const auto n = static_cast<double>(st.iterations());
    st.counters["allocs/msg"] = static_cast<double>(c.allocations) / n;
    st.counters["alloc_B/msg"] = static_cast<double>(c.bytes) / n;
  }
};

template <class T>
void bench_encode(benchmark::State& st, const T& msg) {
  byte_buffer buf;
  { encoder e(buf); encode_message(e, msg); }  // warm the buffer's capacity
  per_message_allocs allocs;
  for (auto _ : st) {
    buf.clear();
    encoder e(buf);
    encode_message(e, msg);
    benchmark::DoNotOptimize(buf.data());
  }
  allocs.report(st);
  st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations() * buf.size()));
}

template <class T>
void bench_decode(benchmark::State& st, const T& msg) {
  byte_buffer buf;
  { encoder e(buf); encode_message(e, msg); }
  extension_object reused;
  if (!decode_message(buf.bytes(), reused).is_good()) { st.SkipWithError("decode failed"); return; }
  per_message_allocs allocs;
  for (auto _ : st) {
    const auto sc = decode_message(buf.bytes(), reused);
    benchmark::DoNotOptimize(sc);
  }
  allocs.report(st);
  st.SetBytesProcessed(static_cast<std::int64_t>(st.iterations() * buf.size()));
}

void encode_read_request(benchmark::State& st) { bench_encode(st, read_request_of(static_cast<std::size_t>(st.range(0)))); }
void decode_read_request(benchmark::State& st) { bench_decode(st, read_request_of(static_cast<std::size_t>(st.range(0)))); }
void encode_read_response(benchmark::State& st) { bench_encode(st, read_response_of(static_cast<std::size_t>(st.range(0)))); }
void decode_read_response(benchmark::State& st) { bench_decode(st, read_response_of(static_cast<std::size_t>(st.range(0)))); }
void encode_publish_response(benchmark::State& st) { bench_encode(st, publish_response_of(static_cast<std::size_t>(st.range(0)))); }
void decode_publish_response(benchmark::State& st) { bench_decode(st, publish_response_of(static_cast<std::size_t>(st.range(0)))); }

}  // namespace

BENCHMARK(encode_read_request)->Name("encode.read_request")->Arg(1)->Arg(100)->Arg(1000);
BENCHMARK(decode_read_request)->Name("decode.read_request")->Arg(1)->Arg(100)->Arg(1000);
BENCHMARK(encode_read_response)->Name("encode.read_response")->Arg(1)->Arg(100)->Arg(1000);
BENCHMARK(decode_read_response)->Name("decode.read_response")->Arg(1)->Arg(100)->Arg(1000);
BENCHMARK(encode_publish_response)->Name("encode.publish_response")->Arg(100);
BENCHMARK(decode_publish_response)->Name("decode.publish_response")->Arg(100);

BENCHMARK_MAIN();
