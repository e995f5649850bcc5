// The subscription paths of the session host (docs/decisions/0010), in memory, with a passed-in clock:
//   fanout.change/N          one set_value of a Double reaching N monitored items (sampling 0, queue 1):
//                            the change hook, N filters, N queue writes. Unit: ns and allocs per change.
//   publish.data_changes/N   one publishing cycle: N variables changed once each (N items), a Publish
//                            (acknowledging the previous message) and the tick that answers it with a
//                            PublishResponse of N data changes, encoded. Unit: ns and allocs per cycle.
//   load.target              the design load of docs/decisions/0010 scaled to one core: 10,000 variables, 20
//                            sessions x 5 subscriptions x 100 items (100 ms), changes round-robin
//                            over the variables with a tick every 1,000 changes (= 10 ms at
//                            100,000 changes/s), each session keeping 2 Publish requests queued.
//                            Unit: ns and allocs per change, publishes included.
// Run: build/bench/actors/subscription_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "runtime/namespaces/demo_namespace.hpp"
#include "engine/server/server_core.hpp"
#include "protocol/message.hpp"
#include "tests/support/alloc_counter.hpp"

using namespace uactor;

namespace {

actors::instant at(std::int64_t ms) {
  return {std::chrono::steady_clock::time_point{} + std::chrono::milliseconds(ms),
          ua::date_time::from_unix_ms(1'767'225'600'000 + ms)};
}

actors::server_core make_core(std::size_t variables) {
  actors::server_core_config c;
  c.description.application_uri = "urn:bench:uactor:server";
  c.description.endpoint_url = "opc.tcp://localhost:4840";
  // Not a byte counter: 20 sessions need 20 distinct authentication tokens.
  c.sessions.random = [g = std::mt19937_64{42}](std::span<std::uint8_t> out) mutable {
    for (auto& b : out) b = static_cast<std::uint8_t>(g());
  };
  auto core = actors::make_demo_server_core(std::move(c), "bench", at(0).utc);
  for (std::size_t i = 0; i < variables; ++i) {
    ua::node_spec v;
    v.id = ua::node_id(1, static_cast<std::uint32_t>(100'000 + i));
    v.cls = ua::node_class::variable;
    v.browse_ns = 1;
    v.browse_name = "V";
    v.data_type = ua::node_id(0, 11);
    v.value.set_value(0.0);
    if (!core.space().add_node(std::move(v))) throw std::runtime_error("add_node");
  }
  return core;
}

ua::node_id var(std::size_t i) { return ua::node_id(1, static_cast<std::uint32_t>(100'000 + i)); }

struct session {
  actors::server_core& core;
  std::uint32_t chan;
  ua::node_id token;
  ua::byte_buffer out;
  ua::extension_object response;
  std::uint32_t request_id = 1;

  session(actors::server_core& c, std::uint32_t ch) : core(c), chan(ch) {
    ua::create_session_request create;
    create.requested_session_timeout = 3'600'000;
    token = call(create).get_if<ua::create_session_response>()->authentication_token;
    ua::activate_session_request activate;
    activate.user_identity_token = ua::extension_object(ua::anonymous_identity_token{"anonymous"});
    call(activate);
  }

  template <class T>
  ua::extension_object& call(T req) {
    req.request_header.authentication_token = token;
    const ua::extension_object msg(req);
    out.clear();
    core.handle(chan, request_id++, req.request_header, msg, at(0), out);
    if (ua::decode_message(out.bytes(), response) != ua::status::good) throw std::runtime_error("decode");
    return response;
  }

  std::uint32_t subscribe(double interval) {
    ua::create_subscription_request req;
    req.requested_publishing_interval = interval;
    req.requested_max_keep_alive_count = 10;
    req.requested_lifetime_count = 100'000;
    req.publishing_enabled = true;
    return call(req).get_if<ua::create_subscription_response>()->subscription_id;
  }

  void monitor(std::uint32_t sub, std::size_t first, std::size_t count, std::size_t same = 0) {
    ua::create_monitored_items_request req;
    req.subscription_id = sub;
    req.timestamps_to_return = ua::timestamps_to_return::both;
    for (std::size_t i = 0; i < count; ++i) {
      ua::monitored_item_create_request c;
      c.item_to_monitor.node_id = var(same ? first : first + i);
      c.item_to_monitor.attribute_id = 13;
      c.monitoring_mode = ua::monitoring_mode::reporting;
      c.requested_parameters.client_handle = static_cast<std::uint32_t>(i);
      c.requested_parameters.queue_size = 1;
      req.items_to_create.push_back(c);
    }
    const auto* r = call(req).get_if<ua::create_monitored_items_response>();
    if (!r || r->results.size() != count) throw std::runtime_error("monitor");
  }
};

// A reused Publish request of a session: handle() with it queues or answers one Publish.
struct publisher {
  ua::extension_object msg;
  ua::publish_request* req;
  explicit publisher(const session& s) : msg(ua::publish_request{}) {
    req = msg.get_if<ua::publish_request>();
    req->request_header.authentication_token = s.token;
  }
};

void set(actors::server_core& core, ua::node_index n, double v, std::int64_t ms) {
  ua::data_value dv;
  dv.set_value(v);
  dv.source_timestamp = at(ms).utc;
  dv.has_source_timestamp = true;
  core.space().set_value(n, std::move(dv));
}

void fanout_change(benchmark::State& st) {
  auto core = make_core(1);
  session s(core, 1);
  s.monitor(s.subscribe(1000), 0, static_cast<std::size_t>(st.range(0)), 1);
  const auto n = core.space().find(var(0));
  double v = 0;
  for (int i = 0; i < 100; ++i) set(core, n, v += 1, 0);
  const test::alloc_scope allocs;
  for (auto _ : st) set(core, n, v += 1, 0);
  st.counters["allocs/change"] = static_cast<double>(allocs.counted().allocations) / static_cast<double>(st.iterations());
  st.counters["items/s"] = benchmark::Counter(static_cast<double>(st.iterations() * st.range(0)), benchmark::Counter::kIsRate);
}

void publish_data_changes(benchmark::State& st) {
  const auto count = static_cast<std::size_t>(st.range(0));
  auto core = make_core(count);
  session s(core, 1);
  const auto sub = s.subscribe(100);
  s.monitor(sub, 0, count);
  std::vector<ua::node_index> nodes;
  for (std::size_t i = 0; i < count; ++i) nodes.push_back(core.space().find(var(i)));
  publisher p(s);
  p.req->subscription_acknowledgements.resize(1);
  std::int64_t ms = 0;
  std::uint32_t seq = 0;
  ua::byte_buffer out;
  std::size_t bytes = 0;
  auto cycle = [&] {
    ms += 100;
    for (std::size_t i = 0; i < count; ++i) set(core, nodes[i], static_cast<double>(ms + i), ms);
    p.req->subscription_acknowledgements[0] = {sub, seq++};
    out.clear();
    core.handle(1, s.request_id++, p.req->request_header, p.msg, at(ms), out);
    core.publish_tick(at(ms + 100));
    ms += 100;
    if (core.deferred().size() != 1) throw std::runtime_error("no publish response");
    bytes = core.deferred()[0].message.size();
    core.clear_deferred();
  };
  for (int i = 0; i < 20; ++i) cycle();
  const test::alloc_scope allocs;
  for (auto _ : st) cycle();
  st.counters["allocs/cycle"] = static_cast<double>(allocs.counted().allocations) / static_cast<double>(st.iterations());
  st.counters["response_bytes"] = static_cast<double>(bytes);
}

void load_target(benchmark::State& st) {
  constexpr std::size_t variables = 10'000, sessions = 20, subs_per_session = 5, items_per_sub = 100;
  auto core = make_core(variables);
  std::vector<std::unique_ptr<session>> ss;
  std::vector<std::unique_ptr<publisher>> pubs;
  std::size_t next_var = 0;
  for (std::size_t i = 0; i < sessions; ++i) {
    ss.push_back(std::make_unique<session>(core, static_cast<std::uint32_t>(i + 1)));
    for (std::size_t k = 0; k < subs_per_session; ++k) {
      ss.back()->monitor(ss.back()->subscribe(100), next_var % variables, items_per_sub);
      next_var += items_per_sub;
    }
    pubs.push_back(std::make_unique<publisher>(*ss.back()));
  }
  std::vector<ua::node_index> nodes;
  for (std::size_t i = 0; i < variables; ++i) nodes.push_back(core.space().find(var(i)));
  // Keeps 2 Publish requests queued per session (no acknowledgements: the retransmission queue
  // stays at its bound, the oldest message recycled).
  ua::byte_buffer out;
  std::int64_t ms = 0;
  std::size_t changes = 0;
  std::size_t published = 0;
  auto refill = [&] {
    for (std::size_t i = 0; i < sessions; ++i)
      while (core.subscriptions().queued_publish_requests(static_cast<std::uint32_t>(i + 1)) < 2) {  // SessionIds 1..20
        out.clear();
        core.handle(ss[i]->chan, ss[i]->request_id++, pubs[i]->req->request_header, pubs[i]->msg, at(ms), out);
        if (!out.empty()) ++published;
      }
  };
  auto change = [&] {
    set(core, nodes[changes % variables], static_cast<double>(changes), ms);
    if (++changes % 1000 == 0) {
      ms += 10;
      core.publish_tick(at(ms));
      published += core.deferred().size();
      core.clear_deferred();
      refill();
    }
  };
  refill();
  for (int i = 0; i < 200'000; ++i) change();
  const std::size_t published_before = published;
  const test::alloc_scope allocs;
  for (auto _ : st) change();
  st.counters["allocs/change"] = static_cast<double>(allocs.counted().allocations) / static_cast<double>(st.iterations());
  st.counters["publishes/change"] =
      static_cast<double>(published - published_before) / static_cast<double>(st.iterations());
}

}  // namespace

BENCHMARK(fanout_change)->Name("fanout.change")->Arg(1)->Arg(10)->Arg(100)->Arg(1000);
BENCHMARK(publish_data_changes)->Name("publish.data_changes")->Arg(100);
BENCHMARK(load_target)->Name("load.target");
BENCHMARK_MAIN();
