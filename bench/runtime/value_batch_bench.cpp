// Values from the application into the address space (include/uactor/server.hpp write_values,
// docs/embedding.md). Unit: ns and heap allocations per value; values/s.
//   core.values/N        server_core::apply_values of 1,000-value batches over N Double variables,
//                        nobody subscribed: the host's work per value.
//   core.monitored/N     the same with every variable monitored by one item (sampling 0, queue 1)
//                        and, after every full pass over the N variables, the Publish and the
//                        publishing tick that send all N changes: fan-out and publishing included.
//   runtime.write_values/B   through the real runtime: the calling thread copies B-value batches
//                        into the pooled buffers and sends one message each; the iteration ends
//                        when the host has applied all of them (one blocking resolve() behind them,
//                        mailbox order). Allocations are the calling thread's (the message and
//                        the pool); the host's are core.values'.
// Run: build/bench/runtime/value_batch_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <random>
#include <stdexcept>
#include <vector>

#include "engine/server/server_core.hpp"
#include "engine/server/server_object.hpp"
#include "uactor/ua/node_ids.hpp"
#include "protocol/message.hpp"
#include "tests/support/alloc_counter.hpp"
#include "uactor/runtime.hpp"

using namespace uactor;

namespace {

constexpr std::size_t batch_size = 1000;

actors::instant at(std::int64_t ms) {
  return {std::chrono::steady_clock::time_point{} + std::chrono::milliseconds(ms),
          ua::date_time::from_unix_ms(1'767'225'600'000 + ms)};
}

node_id tag(std::size_t i) { return node_id(2, static_cast<std::uint32_t>(100'000 + i)); }

std::vector<node_change> tags(std::size_t n) {
  std::vector<node_change> out;
  for (std::size_t i = 0; i < n; ++i) {
    variable_node v;
    v.id = tag(i);
    v.parent = ns0::objects_folder;
    v.browse_name = qualified_name{2, ua::ua_string("T")};
    v.data_type = node_id(0, ua::ids::double_);
    v.value.set_value(0.0);
    out.push_back(std::move(v));
  }
  return out;
}

actors::server_core make_core(std::size_t n) {
  actors::server_core_config c;
  c.description.application_uri = "urn:bench:uactor:server";
  c.description.endpoint_url = "opc.tcp://localhost:4840";
  c.sessions.random = [g = std::mt19937_64{42}](std::span<std::uint8_t> out) mutable {
    for (auto& b : out) b = static_cast<std::uint8_t>(g());
  };
  auto core = actors::make_server_core(std::move(c), "bench", at(0).utc, "urn:bench");
  actors::register_namespace(core.space(), "urn:bench:tags", at(0).utc);
  std::vector<ua::status_code> statuses;
  const auto changes = tags(n);
  core.apply(changes, statuses, at(0));
  for (auto sc : statuses)
    if (sc.is_bad()) throw std::runtime_error("add: " + sc.to_string());
  return core;
}

// The batches of one full pass over the variables, values set per pass.
struct passes {
  std::vector<std::vector<value_update>> batches;
  passes(const actors::server_core& core, std::size_t n) {
    for (std::size_t i = 0; i < n; i += batch_size) {
      auto& b = batches.emplace_back();
      for (std::size_t k = i; k < std::min(n, i + batch_size); ++k)
        b.push_back(value_update{value_handle{core.space().find(tag(k))}, variant(0.0), {}, {}});
    }
  }
  void set(double v) {
    for (auto& b : batches)
      for (auto& u : b) u.value = variant(v);
  }
};

// A session with one subscription monitoring every variable (as subscription_bench's).
struct subscriber {
  actors::server_core& core;
  ua::node_id token;
  ua::byte_buffer out;
  ua::extension_object response;
  std::uint32_t request_id = 1;
  std::uint32_t subscription = 0;

  template <class T>
  ua::extension_object& call(T req) {
    req.request_header.authentication_token = token;
    const ua::extension_object msg(req);
    out.clear();
    core.handle(1, request_id++, req.request_header, msg, at(0), out);
    if (ua::decode_message(out.bytes(), response) != ua::status::good) throw std::runtime_error("decode");
    return response;
  }

  subscriber(actors::server_core& c, std::size_t n) : core(c) {
    ua::create_session_request create;
    create.requested_session_timeout = 3'600'000;
    token = call(create).get_if<ua::create_session_response>()->authentication_token;
    ua::activate_session_request activate;
    activate.user_identity_token = ua::extension_object(ua::anonymous_identity_token{"anonymous"});
    call(activate);
    ua::create_subscription_request sub;
    sub.requested_publishing_interval = 100;
    sub.requested_max_keep_alive_count = 10;
    sub.requested_lifetime_count = 100'000;
    sub.max_notifications_per_publish = 0;
    sub.publishing_enabled = true;
    subscription = call(sub).get_if<ua::create_subscription_response>()->subscription_id;
    ua::create_monitored_items_request req;
    req.subscription_id = subscription;
    req.timestamps_to_return = ua::timestamps_to_return::both;
    for (std::size_t i = 0; i < n; ++i) {
      ua::monitored_item_create_request m;
      m.item_to_monitor.node_id = tag(i);
      m.item_to_monitor.attribute_id = 13;
      m.monitoring_mode = ua::monitoring_mode::reporting;
      m.requested_parameters.client_handle = static_cast<std::uint32_t>(i);
      m.requested_parameters.queue_size = 1;
      req.items_to_create.push_back(m);
    }
    const auto* r = call(req).get_if<ua::create_monitored_items_response>();
    if (!r || r->results.size() != n) throw std::runtime_error("monitor");
  }
};

void core_values(benchmark::State& st) {
  const auto n = static_cast<std::size_t>(st.range(0));
  auto core = make_core(n);
  passes p(core, n);
  double v = 0;
  const auto pass = [&] {
    p.set(v += 1);
    for (const auto& b : p.batches) core.apply_values(b, at(0));
  };
  for (int i = 0; i < 3; ++i) pass();
  const test::alloc_scope allocs;
  for (auto _ : st) pass();
  const auto values = static_cast<double>(st.iterations() * n);
  st.counters["allocs/value"] = static_cast<double>(allocs.counted().allocations) / values;
  st.counters["values/s"] = benchmark::Counter(values, benchmark::Counter::kIsRate);
  st.counters["ns/value"] = benchmark::Counter(values, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void core_monitored(benchmark::State& st) {
  const auto n = static_cast<std::size_t>(st.range(0));
  auto core = make_core(n);
  subscriber s(core, n);
  passes p(core, n);
  ua::extension_object publish_msg(ua::publish_request{});
  auto* publish = publish_msg.get_if<ua::publish_request>();
  publish->request_header.authentication_token = s.token;
  publish->subscription_acknowledgements.resize(1);
  std::uint32_t seq = 0;
  std::int64_t ms = 0;
  std::size_t notified = 0;
  ua::byte_buffer out;
  double v = 0;
  const auto pass = [&] {
    p.set(v += 1);
    ms += 100;
    for (const auto& b : p.batches) core.apply_values(b, at(ms));
    publish->subscription_acknowledgements[0] = {s.subscription, seq++};
    out.clear();
    core.handle(1, s.request_id++, publish->request_header, publish_msg, at(ms), out);
    core.publish_tick(at(ms + 100));
    ms += 100;
    notified += core.deferred().size() + (out.size() ? 1 : 0);
    core.clear_deferred();
  };
  for (int i = 0; i < 5; ++i) pass();
  notified = 0;
  const test::alloc_scope allocs;
  for (auto _ : st) pass();
  if (notified != static_cast<std::size_t>(st.iterations())) throw std::runtime_error("a pass without its PublishResponse");
  const auto values = static_cast<double>(st.iterations() * n);
  st.counters["allocs/value"] = static_cast<double>(allocs.counted().allocations) / values;
  st.counters["values/s"] = benchmark::Counter(values, benchmark::Counter::kIsRate);
  st.counters["ns/value"] = benchmark::Counter(values, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
}

void runtime_write_values(benchmark::State& st) {
  const auto b = static_cast<std::size_t>(st.range(0));
  constexpr std::size_t n = 10'000;
  runtime rt;
  auto plan = default_server_plan();
  plan.listen_address = "127.0.0.1";
  plan.port = 0;
  plan.security = {"none"};
  server& srv = **rt.start_server(plan);
  srv.register_namespace("urn:bench:tags");
  srv.apply(tags(n));
  std::vector<node_id> ids;
  for (std::size_t i = 0; i < n; ++i) ids.push_back(tag(i));
  std::vector<value_update> all;
  for (auto& h : srv.resolve(ids)) all.push_back(value_update{*h, variant(0.0), {}, {}});
  double v = 0;
  std::size_t refused = 0;
  const auto pass = [&] {
    v += 1;
    for (auto& u : all) u.value = variant(v);
    for (std::size_t i = 0; i < n; i += b) {
      const std::span batch(all.data() + i, std::min(b, n - i));
      while (srv.write_values(batch) == ua::status::bad_resource_unavailable) ++refused;
    }
    srv.resolve(ids.front());  // behind every batch in the host's mailbox
  };
  for (int i = 0; i < 3; ++i) pass();
  const test::alloc_scope allocs;
  for (auto _ : st) pass();
  const auto values = static_cast<double>(st.iterations() * n);
  // The resolve() per pass allocates too (its job, promise and vectors): a few per 10,000 values.
  st.counters["allocs/value"] = static_cast<double>(allocs.counted().allocations) / values;
  st.counters["values/s"] = benchmark::Counter(values, benchmark::Counter::kIsRate);
  st.counters["refused_batches"] = static_cast<double>(refused);
}

}  // namespace

BENCHMARK(core_values)->Name("core.values")->Arg(10'000)->Unit(benchmark::kMillisecond);
BENCHMARK(core_monitored)->Name("core.monitored")->Arg(10'000)->Unit(benchmark::kMillisecond);
BENCHMARK(runtime_write_values)->Name("runtime.write_values")->Arg(100)->Arg(1000)->Unit(benchmark::kMillisecond)->UseRealTime();
BENCHMARK_MAIN();
