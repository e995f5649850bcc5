// The same data to 20 consumers, client/server against PubSub (issue 36's comparison), in one run:
// 1,000 Double variables, every one changed every cycle, delivered to 20 consumers. Unit: CPU ns per
// delivered value (a cycle's CPU time / (1,000 x 20)), what both ends of our code spend.
//   deliver.client_server/20  the session host with 20 sessions, each one subscription monitoring
//                             the 1,000 variables (queue 1): the changes, a Publish per session, the
//                             tick that answers each with a PublishResponse of 1,000 notifications,
//                             encoded; and each response decoded as the client does (ua::decode_message).
//                             Not counted: the secure channel's chunking and TCP.
//   deliver.uadp_udp/20       a WriterGroup of one writer over the 1,000 variables (Variant fields):
//                             the changes, one cycle, one UADP NetworkMessage sent to a UDP socket on
//                             127.0.0.1 and received there once; then decoded 20 times (headers and
//                             fields), as 20 subscribers of a multicast group would. Not counted: the
//                             19 other subscribers' receive calls.
//   deliver.json_mqtt/20      the same writer in JSON: the changes, one cycle, one NetworkMessage; then
//                             read 20 times (read_network_message). Not counted: libmosquitto and the
//                             broker's fan-out (a separate process: docs/performance.md has its share
//                             measured through mosquitto).
// Run: build/bench/pubsub/side_by_side_bench --benchmark_repetitions=5 --benchmark_report_aggregates_only=true
#include <benchmark/benchmark.h>

#include <arpa/inet.h>
#include <sys/socket.h>
#include <unistd.h>

#include <memory>
#include <random>
#include <stdexcept>
#include <string>
#include <vector>

#include "engine/server/server_core.hpp"
#include "protocol/message.hpp"
#include "pubsub/json_messages.hpp"
#include "pubsub/json_reader.hpp"
#include "pubsub/uadp_messages.hpp"
#include "pubsub/writer_group.hpp"
#include "runtime/namespaces/demo_namespace.hpp"
#include "tests/support/alloc_counter.hpp"

using namespace uactor;

namespace {

constexpr std::size_t values = 1'000, consumers = 20;

actors::instant at(std::int64_t ms) {
  return {std::chrono::steady_clock::time_point{} + std::chrono::milliseconds(ms),
          ua::date_time::from_unix_ms(1'767'225'600'000 + ms)};
}

ua::node_id var(std::size_t i) { return ua::node_id(1, static_cast<std::uint32_t>(200'000 + i)); }

actors::server_core make_core() {
  actors::server_core_config c;
  c.description.application_uri = "urn:bench:uactor:server";
  c.description.endpoint_url = "opc.tcp://localhost:4840";
  c.sessions.random = [g = std::mt19937_64{42}](std::span<std::uint8_t> out) mutable {
    for (auto& b : out) b = static_cast<std::uint8_t>(g());
  };
  auto core = actors::make_demo_server_core(std::move(c), "bench", at(0).utc);
  for (std::size_t i = 0; i < values; ++i) {
    ua::node_spec v;
    v.id = var(i);
    v.cls = ua::node_class::variable;
    v.browse_ns = 1;
    v.browse_name = "V";
    v.data_type = ua::node_id(0, 11);
    v.value.set_value(0.0);
    if (!core.space().add_node(std::move(v))) throw std::runtime_error("add_node");
  }
  return core;
}

struct session {
  actors::server_core& core;
  std::uint32_t chan;
  ua::node_id token;
  ua::byte_buffer out;
  ua::extension_object response;
  std::uint32_t request_id = 1;
  std::uint32_t subscription = 0;
  ua::extension_object publish{ua::publish_request{}};

  session(actors::server_core& c, std::uint32_t ch) : core(c), chan(ch) {
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
    sub.publishing_enabled = true;
    subscription = call(sub).get_if<ua::create_subscription_response>()->subscription_id;
    ua::create_monitored_items_request req;
    req.subscription_id = subscription;
    req.timestamps_to_return = ua::timestamps_to_return::both;
    for (std::size_t i = 0; i < values; ++i) {
      ua::monitored_item_create_request m;
      m.item_to_monitor.node_id = var(i);
      m.item_to_monitor.attribute_id = 13;
      m.monitoring_mode = ua::monitoring_mode::reporting;
      m.requested_parameters.client_handle = static_cast<std::uint32_t>(i);
      m.requested_parameters.queue_size = 1;
      req.items_to_create.push_back(m);
    }
    const auto* r = call(req).get_if<ua::create_monitored_items_response>();
    if (!r || r->results.size() != values) throw std::runtime_error("monitor");
    auto* p = publish.get_if<ua::publish_request>();
    p->request_header.authentication_token = token;
    p->subscription_acknowledgements.resize(1);
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
};

void set_all(actors::server_core& core, const std::vector<ua::node_index>& nodes, std::int64_t ms) {
  for (std::size_t i = 0; i < nodes.size(); ++i) {
    ua::data_value dv;
    dv.set_value(static_cast<double>(ms) + static_cast<double>(i) * 0.25);
    dv.source_timestamp = at(ms).utc;
    dv.has_source_timestamp = true;
    core.space().set_value(nodes[i], std::move(dv));
  }
}

void report(benchmark::State& st, std::uint64_t allocations, double bytes) {
  const double cycles = static_cast<double>(st.iterations());
  st.counters["ns_per_delivered_value"] =
      benchmark::Counter(cycles * values * consumers, benchmark::Counter::kIsRate | benchmark::Counter::kInvert);
  st.counters["allocs_per_cycle"] = static_cast<double>(allocations) / cycles;
  st.counters["wire_bytes_per_cycle"] = bytes;
}

void deliver_client_server(benchmark::State& st) {
  auto core = make_core();
  std::vector<std::unique_ptr<session>> ss;
  for (std::size_t i = 0; i < consumers; ++i) ss.push_back(std::make_unique<session>(core, static_cast<std::uint32_t>(i + 1)));
  std::vector<ua::node_index> nodes;
  for (std::size_t i = 0; i < values; ++i) nodes.push_back(core.space().find(var(i)));
  std::int64_t ms = 0;
  std::uint32_t seq = 0;
  ua::byte_buffer out;
  ua::extension_object decoded;
  double bytes = 0;
  std::size_t notifications = 0;
  const auto cycle = [&] {
    ms += 100;
    set_all(core, nodes, ms);
    for (auto& s : ss) {
      auto* p = s->publish.get_if<ua::publish_request>();
      p->subscription_acknowledgements[0] = {s->subscription, seq};
      out.clear();
      core.handle(s->chan, s->request_id++, p->request_header, s->publish, at(ms), out);
    }
    ++seq;
    core.publish_tick(at(ms + 100));
    ms += 100;
    if (core.deferred().size() != consumers) throw std::runtime_error("not every session was answered");
    bytes = 0;
    notifications = 0;
    // The clients' side: each PublishResponse decoded.
    for (const auto& d : core.deferred()) {
      bytes += static_cast<double>(d.message.size());
      if (ua::decode_message(d.message.bytes(), decoded) != ua::status::good) throw std::runtime_error("decode");
      const auto* r = decoded.get_if<ua::publish_response>();
      if (!r || r->notification_message.notification_data.empty()) throw std::runtime_error("no data changes");
      const auto* dc = r->notification_message.notification_data[0].get_if<ua::data_change_notification>();
      notifications += dc ? dc->monitored_items.size() : 0;
    }
    core.clear_deferred();
  };
  for (int i = 0; i < 10; ++i) cycle();
  if (notifications != values * consumers) throw std::runtime_error("a value was not delivered");
  std::uint64_t allocations = 0;
  for (auto _ : st) {
    test::alloc_scope scope;
    cycle();
    allocations += scope.counted().allocations;
  }
  report(st, allocations, bytes);
}

pubsub::writer_group_state make_group(pubsub::message_encoding e) {
  pubsub::writer_group_config gc;
  gc.name = "Line1";
  gc.id = 1;
  pubsub::resolved_writer w;
  w.config.name = "W";
  w.config.id = 1;
  w.config.key_frame_count = 1;
  w.config.encoding = pubsub::field_encoding::variant;
  for (std::size_t f = 0; f < values; ++f) w.fields.push_back({"v" + std::to_string(f), ua::builtin_type::double_, -1, {}});
  return pubsub::writer_group_state("1001", gc, {w}, "bench", e,
                                    e == pubsub::message_encoding::uadp ? pubsub::publisher_id_type::uint16
                                                                        : pubsub::publisher_id_type::string);
}

void set_all(pubsub::writer_group_state& g, std::int64_t ms) {
  ua::data_value v;
  v.set_value(0.0);
  v.source_timestamp = at(ms).utc;
  v.has_source_timestamp = true;
  for (std::size_t f = 0; f < values; ++f) {
    *v.value.get_if<double>() = static_cast<double>(ms) + static_cast<double>(f) * 0.25;
    g.set(0, f, v);
  }
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

void deliver_uadp_udp(benchmark::State& st) {
  auto g = make_group(pubsub::message_encoding::uadp);
  udp_pair udp;
  std::vector<std::uint8_t> datagram(65'536);
  pubsub::uadp_network_message n;
  pubsub::uadp_error e;
  std::vector<pubsub::decoded_field> fields;
  std::int64_t ms = 0;
  double bytes = 0;
  std::size_t delivered = 0;
  const auto cycle = [&] {
    ms += 100;
    set_all(g, ms);
    const auto res = g.cycle(at(ms).utc);
    if (res.messages.size() != 1) throw std::runtime_error("one NetworkMessage expected");
    bytes = static_cast<double>(res.message.size());
    ::sendto(udp.tx, res.message.data(), res.message.size(), 0, reinterpret_cast<const sockaddr*>(&udp.to), sizeof udp.to);
    const auto got = ::recv(udp.rx, datagram.data(), datagram.size(), 0);
    if (got <= 0) throw std::runtime_error("recv");
    const std::span<const std::uint8_t> in(datagram.data(), static_cast<std::size_t>(got));
    delivered = 0;
    for (std::size_t c = 0; c < consumers; ++c) {
      if (!pubsub::read_uadp_network_message(in, {}, n, e) || n.messages.size() != 1 ||
          !pubsub::read_uadp_fields(n.messages[0], {}, {}, fields, e))
        throw std::runtime_error("decode");
      delivered += fields.size();
    }
  };
  for (int i = 0; i < 10; ++i) cycle();
  if (delivered != values * consumers) throw std::runtime_error("a value was not delivered");
  std::uint64_t allocations = 0;
  for (auto _ : st) {
    test::alloc_scope scope;
    cycle();
    allocations += scope.counted().allocations;
  }
  report(st, allocations, bytes);
}

void deliver_json_mqtt(benchmark::State& st) {
  auto g = make_group(pubsub::message_encoding::json);
  pubsub::json_reader reader;
  pubsub::decoded_network_message decoded;
  pubsub::json_error e;
  std::int64_t ms = 0;
  double bytes = 0;
  std::size_t delivered = 0;
  const auto cycle = [&] {
    ms += 100;
    set_all(g, ms);
    const auto res = g.cycle(at(ms).utc);
    bytes = static_cast<double>(res.message.size());
    delivered = 0;
    for (std::size_t c = 0; c < consumers; ++c) {
      if (!pubsub::read_network_message(reader, res.message, {}, decoded, e) || decoded.messages.size() != 1)
        throw std::runtime_error("decode");
      delivered += decoded.messages[0].fields.size();
    }
  };
  for (int i = 0; i < 10; ++i) cycle();
  if (delivered != values * consumers) throw std::runtime_error("a value was not delivered");
  std::uint64_t allocations = 0;
  for (auto _ : st) {
    test::alloc_scope scope;
    cycle();
    allocations += scope.counted().allocations;
  }
  report(st, allocations, bytes);
}

}  // namespace

BENCHMARK(deliver_client_server)->Name("deliver.client_server/20")->Unit(benchmark::kMicrosecond);
BENCHMARK(deliver_uadp_udp)->Name("deliver.uadp_udp/20")->Unit(benchmark::kMicrosecond);
BENCHMARK(deliver_json_mqtt)->Name("deliver.json_mqtt/20")->Unit(benchmark::kMicrosecond);
BENCHMARK_MAIN();
