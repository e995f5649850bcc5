// The request path of a Read without sockets or actors: what the connection broker and the session
// host run per request (docs/decisions/0007, 0008), in memory, one piece at a time and whole.
//   framing.staged_receive/N   chunk_reader over one 8 KB-sized receive holding N Read request chunks
//   session.dispatch_read/N    server_core::handle: token check, Read of N values, response encoded
//   session.dispatch_read_counted/N  the same with the server's metrics counting (server_metrics.hpp)
//   session.dispatch_read_permitted/N  the same Read of a node under a [[permissions]] rule, the
//                              session's role allowed (docs/security.md "Roles and permissions"):
//                              the A/B of the per-operation permission check against dispatch_read
//   session.dispatch_browse/server_object  server_core::handle: Browse of the Server object (i=2253,
//                              hierarchical forward references, every field), response encoded
//   session.dispatch_browse/folder_10000   Browse of a folder of 10,000 variables, 1,000 per answer:
//                              the Browse and its 9 BrowseNext (continuation points), per whole walk
//   session.dispatch_browse/folder_10000_half  the same folder, every other variable under a rule
//                              that does not let the session's role Browse it: 5,000 references
//                              returned; per whole walk (refs/walk says how many came back)
//   session.dispatch_write/N   server_core::handle: Write of N Double values, response encoded
//   session.dispatch_write_exclude_shaped/N  the same Write of a variable whose NodeId ends in
//                              "Exclude", which the RoleSet's exclude check looks up once more: the
//                              A/B of that lookup (docs/decisions/0075)
//   roundtrip.read/N           client_channel_state encodes and chunks a Read of N values, the server
//                              frames, checks, decodes, dispatches, encodes and chunks the answer, the
//                              client frames and decodes it: both stacks' CPU per request, no kernel
// Unit: ns per request (per chunk for framing), allocs/req counted by tests/support/alloc_counter.
// Run: build/bench/actors/request_path_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <stdexcept>
#include <vector>

#include "engine/client/channel_state.hpp"
#include "runtime/namespaces/demo_namespace.hpp"
#include "runtime/namespaces/load_namespace.hpp"
#include "engine/server/secure_channel_state.hpp"
#include "engine/server/server_core.hpp"
#include "protocol/chunk_reader.hpp"
#include "tests/support/alloc_counter.hpp"

using namespace uactor;

namespace {

actors::instant at_start() { return {std::chrono::steady_clock::time_point{}, ua::date_time::from_unix_ms(1'767'225'600'000)}; }

actors::server_core make_core() {
  actors::server_core_config c;
  c.description.application_uri = "urn:bench:uactor:server";
  c.description.endpoint_url = "opc.tcp://localhost:4840";
  c.sessions.random = [n = std::uint8_t{0}](std::span<std::uint8_t> out) mutable {
    for (auto& b : out) b = ++n;
  };
  return actors::make_demo_server_core(std::move(c), "test", at_start().utc);
}

ua::read_request read_of(std::int64_t values) {
  ua::read_request r;
  r.timestamps_to_return = ua::timestamps_to_return::both;
  for (std::int64_t i = 0; i < values; ++i) {
    ua::read_value_id id;
    id.node_id = ua::node_id::string(1, "Demo.Static.Scalar.Double");
    id.attribute_id = 13;  // Value
    r.nodes_to_read.push_back(id);
  }
  return r;
}

// A client channel and a server (channel + core) wired by two chunk_readers: the loopback of
// tests/actors/client/channel_state_test.cpp, reduced to what a Read needs.
struct loopback {
  actors::server_core core = make_core();
  actors::secure_channel_config server_config;
  actors::secure_channel_state server{server_config, at_start()};
  ua::chunk_reader server_reader{ua::transport_limits{}};
  ua::byte_buffer encoded;
  actors::client_channel_state client{actors::client_channel_config{}};
  ua::chunk_reader client_reader{ua::transport_limits{}};
  ua::extension_object last;
  ua::node_id token;
  std::uint32_t handle = 0;

  void to_server(const actors::instant& now) {
    const auto used = server_reader.put(client.output().bytes(), [&](const ua::chunk_view& v) {
      const auto ev = server.on_chunk(v, now);
      if (ev == actors::secure_channel_state::event::acknowledged)
        server_reader.set_receive_buffer_size(server.limits().receive_buffer_size);
      if (ev == actors::secure_channel_state::event::request) {
        const auto& r = server.request();
        encoded.clear();
        core.handle(r.channel_id, *r.header, *r.message, now, encoded);
        server.send_encoded(r.request_id, encoded.bytes());
      }
    });
    if (!used) throw std::runtime_error("server framing");
    client.clear_output();
  }

  void to_client(const actors::instant& now) {
    const auto used = client_reader.put(server.output().bytes(), [&](const ua::chunk_view& v) {
      const auto ev = client.on_chunk(v, now);
      if (ev == actors::client_channel_state::event::acknowledged) {
        client_reader.set_receive_buffer_size(client.limits().receive_buffer_size);
        (void)client.write_open(now);
      }
      if (ev == actors::client_channel_state::event::response && client.response().message)
        std::swap(last, *client.response().message);
    });
    if (!used) throw std::runtime_error("client framing");
    server.clear_output();
  }

  void pump(const actors::instant& now) {
    while (!client.output().empty() || !server.output().empty()) {
      if (!client.output().empty()) to_server(now);
      if (!server.output().empty()) to_client(now);
    }
  }

  template <class T>
  void send(T req, const actors::instant& now) {
    req.request_header.authentication_token = token;
    req.request_header.request_handle = ++handle;
    if (!client.send_request(req)) throw std::runtime_error("send");
    pump(now);
  }

  loopback() {
    const auto now = at_start();
    client.write_hello();
    pump(now);
    ua::create_session_request cs;
    cs.requested_session_timeout = 3'600'000;
    send(cs, now);
    token = last.get_if<ua::create_session_response>()->authentication_token;
    ua::activate_session_request as;
    as.user_identity_token = ua::anonymous_identity_token{ua::ua_string("anonymous")};
    send(as, now);
    if (!last.get_if<ua::activate_session_response>()) throw std::runtime_error("no session");
  }
};

void roundtrip_read(benchmark::State& st) {
  loopback lb;
  auto req = read_of(st.range(0));
  req.request_header.authentication_token = lb.token;
  const auto now = at_start();
  for (int i = 0; i < 3; ++i) {  // sizes every reused object
    (void)lb.client.send_request(req);
    lb.pump(now);
  }
  const test::alloc_scope allocs;
  for (auto _ : st) {
    (void)lb.client.send_request(req);
    lb.pump(now);
    benchmark::DoNotOptimize(lb.last.body());
  }
  if (!lb.last.get_if<ua::read_response>()) st.SkipWithError("no ReadResponse");
  st.counters["allocs/req"] = static_cast<double>(allocs.counted().allocations) / static_cast<double>(st.iterations());
}

// The rules of the permitted Read: the demo folder and everything below it readable by Anonymous
// (the loopback's session), by Operator too (a second role listed, as a plant's rule would).
std::vector<actors::authz::permission_rule> demo_read_rules() {
  actors::authz::permission_rule r;
  r.node = "ns=1;s=Demo";
  r.where = "bench";
  r.roles = {{actors::authz::well_known::anonymous, actors::authz::permission::browse | actors::authz::permission::read},
             {actors::authz::well_known::operator_, actors::authz::permission::all}};
  return {r};
}

// counted: the server's metrics on (what spawn_server sets up), for the A/B against uncounted.
// permitted: the node under a permission rule (the check runs and allows).
void dispatch_read_with(benchmark::State& st, bool counted, bool permitted = false) {
  loopback lb;  // for an activated session
  if (counted) lb.core.set_metrics(std::make_shared<actors::metrics_registry>());
  if (permitted && !lb.core.set_access(nullptr, demo_read_rules()).empty()) {
    st.SkipWithError("the rule's node is not there");
    return;
  }
  auto req = read_of(st.range(0));
  req.request_header.authentication_token = lb.token;
  const ua::extension_object msg(req);
  ua::byte_buffer out;
  const auto now = at_start();
  for (int i = 0; i < 3; ++i) {
    out.clear();
    lb.core.handle(1, req.request_header, msg, now, out);
  }
  const test::alloc_scope allocs;
  for (auto _ : st) {
    out.clear();
    lb.core.handle(1, req.request_header, msg, now, out);
    benchmark::DoNotOptimize(out.data());
  }
  st.counters["allocs/req"] = static_cast<double>(allocs.counted().allocations) / static_cast<double>(st.iterations());
}

// A Write of N items, each the Value of one Double variable: the demo's
// (ns=1;s=Demo.Static.Scalar.Double), or with `exclude_shaped` one whose NodeId ends in "Exclude"
// as the RoleSet's exclude flags of a plant role do (ns=1;s=Bench.ValueExclude): that one is looked
// up once more to see whether it is an exclude flag (server_core::writes_role_excludes), the other
// not. The A/B of that lookup in one binary (docs/decisions/0075).
void dispatch_write_with(benchmark::State& st, bool exclude_shaped) {
  loopback lb;
  ua::node_id target = ua::node_id::string(1, "Demo.Static.Scalar.Double");
  if (exclude_shaped) {
    target = ua::node_id::string(1, "Bench.ValueExclude");
    ua::node_spec v;
    v.id = target;
    v.cls = ua::node_class::variable;
    v.browse_ns = 1;
    v.browse_name = "ValueExclude";
    v.data_type = ua::node_id(0, 11);  // Double
    v.access_level = v.user_access_level = 3;
    v.value.set_value(0.0);
    if (!lb.core.space().add_node(std::move(v))) {
      st.SkipWithError("no bench node");
      return;
    }
  }
  ua::write_request req;
  for (std::int64_t i = 0; i < st.range(0); ++i) {
    auto& w = req.nodes_to_write.emplace_back();
    w.node_id = target;
    w.attribute_id = 13;  // Value
    w.value.set_value(1.5);
  }
  req.request_header.authentication_token = lb.token;
  const ua::extension_object msg(req);
  ua::byte_buffer out;
  const auto now = at_start();
  for (int i = 0; i < 3; ++i) {
    out.clear();
    lb.core.handle(1, req.request_header, msg, now, out);
  }
  const test::alloc_scope allocs;
  for (auto _ : st) {
    out.clear();
    lb.core.handle(1, req.request_header, msg, now, out);
    benchmark::DoNotOptimize(out.data());
  }
  st.counters["allocs/req"] = static_cast<double>(allocs.counted().allocations) / static_cast<double>(st.iterations());
}

ua::browse_request browse_of(ua::node_id node, std::uint32_t max_refs) {
  ua::browse_request r;
  r.requested_max_references_per_node = max_refs;
  auto& d = r.nodes_to_browse.emplace_back();
  d.node_id = std::move(node);
  d.browse_direction = ua::browse_direction::forward;
  d.reference_type_id = ua::node_id(0, 33);  // HierarchicalReferences
  d.include_subtypes = true;
  d.result_mask = 63;
  return r;
}

// The Server object: one Browse per op.
void dispatch_browse_server_object(benchmark::State& st) {
  loopback lb;
  auto req = browse_of(ua::node_id(0, 2253), 0);
  req.request_header.authentication_token = lb.token;
  const ua::extension_object msg(req);
  ua::byte_buffer out;
  const auto now = at_start();
  for (int i = 0; i < 3; ++i) {
    out.clear();
    lb.core.handle(1, req.request_header, msg, now, out);
  }
  const test::alloc_scope allocs;
  for (auto _ : st) {
    out.clear();
    lb.core.handle(1, req.request_header, msg, now, out);
    benchmark::DoNotOptimize(out.data());
  }
  st.counters["allocs/req"] = static_cast<double>(allocs.counted().allocations) / static_cast<double>(st.iterations());
  st.counters["response_bytes"] = static_cast<double>(out.size());
}

// A folder of 10,000 variables, 1,000 references per answer: per op the Browse and the BrowseNext
// calls that walk the rest with its continuation point (the point read back from each answer).
void dispatch_browse_folder_with(benchmark::State& st, bool half) {
  loopback lb;
  actors::add_load_namespace(lb.core.space(), 10'000, at_start().utc);
  if (half) {
    // The folder browsable by Anonymous (the loopback's session), every other variable under a rule
    // of its own that names only Operator: the session sees 5,000 of the 10,000.
    namespace authz = actors::authz;
    std::vector<authz::permission_rule> rules(1);
    rules[0].node = "ns=1;s=Load";
    rules[0].roles = {{authz::well_known::anonymous, authz::permission::browse | authz::permission::read}};
    for (int i = 1; i < 10'000; i += 2) {
      auto& r = rules.emplace_back();
      r.node = "ns=1;s=Load.V" + std::to_string(i);
      r.roles = {{authz::well_known::operator_, authz::permission::all}};
    }
    if (!lb.core.set_access(nullptr, std::move(rules)).empty()) {
      st.SkipWithError("a rule's node is not there");
      return;
    }
  }
  auto req = browse_of(ua::node_id::string(1, "Load"), 1'000);
  req.request_header.authentication_token = lb.token;
  const ua::extension_object msg(req);
  ua::browse_next_request next;
  next.request_header = req.request_header;
  next.continuation_points.resize(1);
  ua::extension_object next_msg(next);
  auto* next_req = next_msg.get_if<ua::browse_next_request>();
  ua::byte_buffer out;
  ua::extension_object first_answer, next_answer;  // one each: decoded in place, no allocation
  const auto now = at_start();
  std::size_t calls = 0;
  std::size_t refs = 0;  // references returned
  // The answer's ContinuationPoint, decoded back as a client would (counted and timed with the
  // server's work: the decode of 1,000 references is part of each op).
  auto point_of = [&](bool first) -> ua::byte_string {
    auto& answer = first ? first_answer : next_answer;
    if (ua::decode_message(out.bytes(), answer, {}).is_bad()) throw std::runtime_error("browse answer");
    if (first) {
      refs += answer.get_if<ua::browse_response>()->results[0].references.size();
      return answer.get_if<ua::browse_response>()->results[0].continuation_point;
    }
    refs += answer.get_if<ua::browse_next_response>()->results[0].references.size();
    return answer.get_if<ua::browse_next_response>()->results[0].continuation_point;
  };
  auto walk = [&] {
    out.clear();
    lb.core.handle(1, req.request_header, msg, now, out);
    ++calls;
    auto point = point_of(true);
    while (!point.is_null()) {
      next_req->continuation_points[0] = point;
      out.clear();
      lb.core.handle(1, next_req->request_header, next_msg, now, out);
      ++calls;
      point = point_of(false);
    }
  };
  walk();
  walk();
  calls = 0;
  refs = 0;
  const test::alloc_scope allocs;
  for (auto _ : st) walk();
  st.counters["allocs/walk"] = static_cast<double>(allocs.counted().allocations) / static_cast<double>(st.iterations());
  st.counters["calls/walk"] = static_cast<double>(calls) / static_cast<double>(st.iterations());
  st.counters["refs/walk"] = static_cast<double>(refs) / static_cast<double>(st.iterations());
}
void dispatch_browse_folder(benchmark::State& st) { dispatch_browse_folder_with(st, false); }
void dispatch_browse_folder_half(benchmark::State& st) { dispatch_browse_folder_with(st, true); }

void staged_receive(benchmark::State& st) {
  // N request chunks back to back, as one receive of the staging buffer would return them.
  loopback lb;
  auto req = read_of(1);
  req.request_header.authentication_token = lb.token;
  for (std::int64_t i = 0; i < st.range(0); ++i) (void)lb.client.send_request(req);
  const ua::byte_buffer receive = std::move(lb.client.output());
  ua::chunk_reader reader{ua::transport_limits{}};
  std::size_t bytes = 0;
  const test::alloc_scope allocs;
  for (auto _ : st) {
    const auto used = reader.put(receive.bytes(), [&](const ua::chunk_view& v) { bytes += v.bytes.size(); });
    benchmark::DoNotOptimize(used);
  }
  benchmark::DoNotOptimize(bytes);
  const auto chunks = static_cast<double>(st.iterations() * st.range(0));
  st.counters["receive_bytes"] = static_cast<double>(receive.size());
  st.counters["allocs/chunk"] = static_cast<double>(allocs.counted().allocations) / chunks;
  st.counters["chunks/s"] = benchmark::Counter(chunks, benchmark::Counter::kIsRate);
}

}  // namespace

BENCHMARK(staged_receive)->Name("framing.staged_receive")->Arg(1)->Arg(8)->Arg(50);
void dispatch_read(benchmark::State& st) { dispatch_read_with(st, false); }
void dispatch_read_counted(benchmark::State& st) { dispatch_read_with(st, true); }
void dispatch_read_permitted(benchmark::State& st) { dispatch_read_with(st, false, true); }

BENCHMARK(dispatch_read)->Name("session.dispatch_read")->Arg(1)->Arg(20)->Arg(100);
BENCHMARK(dispatch_read_counted)->Name("session.dispatch_read_counted")->Arg(1)->Arg(100);
BENCHMARK(dispatch_read_permitted)->Name("session.dispatch_read_permitted")->Arg(1)->Arg(20)->Arg(100);
void dispatch_write(benchmark::State& st) { dispatch_write_with(st, false); }
void dispatch_write_exclude_shaped(benchmark::State& st) { dispatch_write_with(st, true); }
BENCHMARK(dispatch_write)->Name("session.dispatch_write")->Arg(1)->Arg(20);
BENCHMARK(dispatch_write_exclude_shaped)->Name("session.dispatch_write_exclude_shaped")->Arg(1)->Arg(20);
BENCHMARK(dispatch_browse_server_object)->Name("session.dispatch_browse/server_object");
BENCHMARK(dispatch_browse_folder)->Name("session.dispatch_browse/folder_10000")->Unit(benchmark::kMicrosecond);
BENCHMARK(dispatch_browse_folder_half)->Name("session.dispatch_browse/folder_10000_half")->Unit(benchmark::kMicrosecond);
BENCHMARK(roundtrip_read)->Name("roundtrip.read")->Arg(1)->Arg(100);
BENCHMARK_MAIN();
