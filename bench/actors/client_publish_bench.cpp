// The client's receive path of a PublishResponse without sockets or actors (docs/decisions/0011):
// decode into the reused message (as client_channel_state does), then the subscription engine:
// sequence check, acknowledgement queued, handlers called; then the next Publish's acks filled.
//   publish.fast/N       one data_change_handler call with a span of the N changes
//   publish.per_item/N   one item_handler call per change (a hash lookup by client handle each)
//   publish.events/N     one event_handler call with a span of N events (EventNotificationList),
//                        each the CLI's default fields: Time, SourceName, EventType, Severity, Message
// Each change: a Double with status, SourceTimestamp and ServerTimestamp, as a server sends it.
// Unit: ns per notification (one data change), allocs/notification counted by tests/support/alloc_counter.
// Framing (chunk_reader) and the channel's header checks are in request_path_bench (framing.*).
// Run: build/bench/actors/client_publish_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <vector>

#include "engine/client/subscription.hpp"
#include "protocol/codec.hpp"
#include "protocol/message.hpp"
#include "tests/support/alloc_counter.hpp"

using namespace uactor;

namespace {

constexpr std::uint32_t sub_id = 1;

// 64 encoded PublishResponses of `n` changes each, sequence numbers 1..64 (a loop of them runs on:
// the engine sees the wrap back to 1 as old, not as a gap, and dispatches it all the same).
std::vector<ua::byte_buffer> responses(std::size_t n) {
  std::vector<ua::byte_buffer> out;
  for (std::uint32_t seq = 1; seq <= 64; ++seq) {
    ua::publish_response r;
    r.subscription_id = sub_id;
    r.available_sequence_numbers = {seq};
    r.notification_message.sequence_number = seq;
    r.notification_message.publish_time = ua::date_time::from_unix_ms(1'767'225'600'000 + seq);
    ua::data_change_notification dc;
    for (std::size_t i = 0; i < n; ++i) {
      ua::monitored_item_notification m;
      m.client_handle = static_cast<std::uint32_t>(i + 1);
      m.value.set_value(static_cast<double>(seq) + static_cast<double>(i) / 1000.0);
      m.value.status = ua::status::good;
      m.value.has_status = true;
      m.value.source_timestamp = ua::date_time::from_unix_ms(1'767'225'600'000 + seq);
      m.value.has_source_timestamp = true;
      m.value.server_timestamp = m.value.source_timestamp;
      m.value.has_server_timestamp = true;
      dc.monitored_items.push_back(m);
    }
    r.notification_message.notification_data.push_back(ua::extension_object(std::move(dc)));
    ua::byte_buffer b;
    ua::encoder e(b);
    ua::encode_message(e, r);
    out.push_back(std::move(b));
  }
  return out;
}

// The same with `n` events each (the notification unit is then one event).
std::vector<ua::byte_buffer> event_responses(std::size_t n) {
  std::vector<ua::byte_buffer> out;
  for (std::uint32_t seq = 1; seq <= 64; ++seq) {
    ua::publish_response r;
    r.subscription_id = sub_id;
    r.available_sequence_numbers = {seq};
    r.notification_message.sequence_number = seq;
    r.notification_message.publish_time = ua::date_time::from_unix_ms(1'767'225'600'000 + seq);
    ua::event_notification_list l;
    for (std::size_t i = 0; i < n; ++i) {
      ua::event_field_list e;
      e.client_handle = 1;
      e.event_fields.push_back(ua::variant(ua::date_time::from_unix_ms(1'767'225'600'000 + seq)));
      e.event_fields.push_back(ua::variant(ua::ua_string("Pump1")));
      e.event_fields.push_back(ua::variant(ua::node_id(0, 2041)));
      e.event_fields.push_back(ua::variant(static_cast<std::uint16_t>(100 + i % 900)));
      e.event_fields.push_back(ua::variant(ua::localized_text{ua::ua_string("en"), ua::ua_string("pump 1 tripped")}));
      l.events.push_back(std::move(e));
    }
    r.notification_message.notification_data.push_back(ua::extension_object(std::move(l)));
    ua::byte_buffer b;
    ua::encoder e(b);
    ua::encode_message(e, r);
    out.push_back(std::move(b));
  }
  return out;
}

enum class mode { fast, per_item, events };

void run(benchmark::State& st, mode m) {
  const auto n = static_cast<std::size_t>(st.range(0));
  const auto wire = m == mode::events ? event_responses(n) : responses(n);
  actors::subscription_engine engine;
  double sum = 0;
  if (m == mode::events) {
    subscription_handlers hs;
    hs.on_events = [&sum](std::uint32_t, std::uint32_t, std::span<const ua::event_field_list> events) {
      for (const auto& e : events) sum += *e.event_fields[3].get_if<std::uint16_t>();
    };
    engine.add(sub_id, 100, 10, std::move(hs), {});
  } else if (m == mode::per_item) {
    engine.add(sub_id, 100, 10, subscription_handlers{}, {});
    for (std::uint32_t h = 1; h <= n; ++h)
      engine.add_item_handler(sub_id, h, [&sum](const ua::monitored_item_notification& c) { sum += *c.value.value.get_if<double>(); });
  } else {
    subscription_handlers hs;
    hs.on_data = [&sum](std::uint32_t, std::uint32_t, std::span<const ua::monitored_item_notification> changes) {
      for (const auto& c : changes) sum += *c.value.value.get_if<double>();
    };
    engine.add(sub_id, 100, 10, std::move(hs), {});
  }
  ua::extension_object msg;
  ua::publish_request next;
  std::size_t i = 0;
  const auto one = [&] {
    if (ua::decode_message(wire[i].bytes(), msg).is_bad()) st.SkipWithError("decode failed");
    engine.on_publish_response(*msg.get_if<ua::publish_response>(), {});
    engine.fill_publish(next);
    i = (i + 1) % wire.size();
  };
  for (std::size_t w = 0; w < wire.size(); ++w) one();  // the reused objects take their shape
  const test::alloc_scope allocs;
  for (auto _ : st) one();
  benchmark::DoNotOptimize(sum);
  const auto notifications = static_cast<double>(st.iterations()) * static_cast<double>(n);
  st.counters["allocs/notification"] = static_cast<double>(allocs.counted().allocations) / notifications;
  st.counters["bytes/notification"] = static_cast<double>(allocs.counted().bytes) / notifications;
  st.counters["ns/notification"] =
      benchmark::Counter(notifications, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  st.counters["bytes/response"] = static_cast<double>(wire[0].size());
}

void fast(benchmark::State& st) { run(st, mode::fast); }
void per_item(benchmark::State& st) { run(st, mode::per_item); }
void events(benchmark::State& st) { run(st, mode::events); }

}  // namespace

BENCHMARK(fast)->Name("publish.fast")->Arg(1)->Arg(100);
BENCHMARK(per_item)->Name("publish.per_item")->Arg(1)->Arg(100);
BENCHMARK(events)->Name("publish.events")->Arg(1)->Arg(100);
BENCHMARK_MAIN();
