// UADP over MQTT (Part 14 §7.3.5: UADP NetworkMessages as binary MQTT payloads): our publisher ->
// Debian's mosquitto, started by the test on a free 127.0.0.1 port -> our subscriber. The topics
// are <Prefix>/<Encoding>/data/<PublisherId>/<WriterGroup> (§7.3.5.7, "opcua/uadp" by default), a
// spy client of the broker sees them and the payloads; a DataSetMessage over the group's
// MaxNetworkMessageSize goes as chunks (§7.2.4.4.4) through the broker and is reassembled.
#include <catch2/catch.hpp>

#include <caf/all.hpp>

#include <chrono>
#include <mutex>
#include <set>
#include <thread>

#include "actors/pubsub/mqtt_link.hpp"
#include "actors/pubsub/pubsub_actor.hpp"
#include "pubsub/uadp_messages.hpp"
#include "tests/pubsub/mosquitto_broker.hpp"
#include "uactor/ua/status_codes.hpp"

namespace pubsub_mqtt_uadp_test {

using namespace uactor;
using namespace std::chrono_literals;

struct received_values {
  std::mutex m;
  std::vector<std::vector<ua::data_value>> by_target = std::vector<std::vector<ua::data_value>>(2);
  std::vector<ua::data_value> of(std::size_t t) {
    std::lock_guard l(m);
    return by_target[t];
  }
};

template <class F>
bool eventually(F&& f, std::chrono::milliseconds within) {
  const auto until = std::chrono::steady_clock::now() + within;
  while (std::chrono::steady_clock::now() < until) {
    if (f()) return true;
    std::this_thread::sleep_for(10ms);
  }
  return f();
}

constexpr std::size_t big_fields = 1000;

// Writer 1: 1,000 Double fields in Variant (a key frame ~9 KB, over MaxNetworkMessageSize 4,096:
// chunks); writer 2: one Double in RawData. One writer group "Fast" (WriterGroupId 3).
actors::pubsub_setup uadp_publisher(const test::mosquitto_broker& broker) {
  actors::pubsub_setup s;
  s.host = "127.0.0.1";
  s.port = broker.port();
  auto& c = s.config;
  c.name = "pub";
  c.publisher_id = "plant-1";
  c.encoding = pubsub::message_encoding::uadp;
  c.mqtt.topic_prefix = "opcua/uadp";
  c.mqtt.reconnect_min = 100ms;
  pubsub::writer_group_config g;
  g.name = "Fast";
  g.id = 3;
  g.publishing_interval = 20ms;
  g.qos = 1;
  g.max_network_message_size = 4096;
  for (std::uint16_t w = 1; w <= 2; ++w) {
    pubsub::dataset_writer_config wc;
    wc.name = "W" + std::to_string(w);
    wc.id = w;
    wc.key_frame_count = 5;
    wc.encoding = w == 1 ? pubsub::field_encoding::variant : pubsub::field_encoding::raw;
    g.writers.push_back(wc);
  }
  c.writer_groups.push_back(g);
  auto& group = s.groups.emplace_back();
  for (std::uint32_t w = 0; w < 2; ++w) {
    pubsub::resolved_writer rw;
    rw.config = g.writers[w];
    const std::size_t n = w == 0 ? big_fields : 1;
    for (std::size_t f = 0; f < n; ++f) rw.fields.push_back({f == 0 ? "v" : "x" + std::to_string(f), ua::builtin_type::double_, -1, {}});
    group.push_back(rw);
  }
  s.slots.push_back({0, 0, 0});
  s.slots.push_back({0, 1, 0});
  for (std::uint32_t f = 1; f < big_fields; ++f) s.slots.push_back({0, 0, f});
  s.message_id_prefix = "test";
  return s;
}

actors::pubsub_setup uadp_subscriber(const test::mosquitto_broker& broker, received_values& out) {
  actors::pubsub_setup s;
  s.host = "127.0.0.1";
  s.port = broker.port();
  auto& c = s.config;
  c.name = "sub";
  c.publisher_id = "reader-side";
  c.encoding = pubsub::message_encoding::uadp;
  c.mqtt.topic_prefix = "opcua/uadp";
  c.mqtt.reconnect_min = 100ms;
  for (std::uint16_t w = 1; w <= 2; ++w) {
    pubsub::dataset_reader_config r;
    r.name = "R" + std::to_string(w);
    r.publisher_id = "plant-1";
    r.writer_group = "Fast";  // the topic's level
    r.writer_group_id = 3;    // the GroupHeader's
    r.writer_id = w;
    r.message_receive_timeout = 0ms;
    r.fields = {"v"};
    r.targets = {{"v", "ns=2;s=T" + std::to_string(w)}};
    c.readers.push_back(r);
    s.reader_types.push_back({ua::builtin_type::double_});
  }
  s.targets = [&out](std::size_t reader, std::span<const pubsub::target_write> writes) {
    std::lock_guard l(out.m);
    for (const auto& w : writes) out.by_target[reader].push_back(w.value);
  };
  return s;
}

bool mqtt_uadp_in_order(const std::vector<ua::data_value>& values) {
  const double* last = nullptr;
  for (const auto& v : values) {
    const auto* d = v.value.get_if<double>();
    if (!d) continue;  // a key frame before the first value
    if (last && *d < *last) return false;
    last = d;
  }
  return true;
}

TEST_CASE("pubsub mqtt uadp: our publisher -> mosquitto -> our subscriber as UADP, chunks through the broker", "[pubsub][mqtt]") {
  if (test::mosquitto_broker::binary().empty()) {
    WARN("no mosquitto broker (/usr/sbin/mosquitto): skipped");
    return;
  }
  test::mosquitto_broker broker;
  REQUIRE(broker.start());

  // A spy of the broker: every topic and payload under opcua/#.
  std::mutex spy_m;
  std::set<std::string> topics;
  std::vector<std::string> payloads;
  std::atomic<bool> spy_up{false};
  pubsub::mqtt_settings spy_settings;
  spy_settings.client_id = "spy";
  actors::mqtt_link::events ev;
  ev.connected = [&] { spy_up = true; };
  ev.message = [&](std::string topic, std::string payload) {
    std::lock_guard l(spy_m);
    topics.insert(std::move(topic));
    payloads.push_back(std::move(payload));
  };
  actors::mqtt_link spy(spy_settings, "127.0.0.1", broker.port(), ev);
  REQUIRE(spy.start());
  REQUIRE(eventually([&] { return spy_up.load(); }, 5s));
  REQUIRE(spy.subscribe("opcua/#", 1) == 0);

  received_values got;
  caf::actor_system_config cfg;
  cfg.set("scheduler.max-threads", 2);
  caf::actor_system sys{cfg};
  auto sub = actors::spawn_pubsub_connection(sys, uadp_subscriber(broker, got));
  REQUIRE(eventually([&] { return sub.counters->up.load(); }, 5s));
  std::this_thread::sleep_for(200ms);  // the subscriber's SUBSCRIBE before the first message
  auto pub = actors::spawn_pubsub_connection(sys, uadp_publisher(broker));
  // Both actors end with the test, also when a REQUIRE ends it early (the system waits for them).
  struct stop_both {
    caf::actor a, b;
    ~stop_both() {
      caf::anon_send_exit(a, caf::exit_reason::user_shutdown);
      caf::anon_send_exit(b, caf::exit_reason::user_shutdown);
    }
  } stop{pub.actor, sub.actor};
  REQUIRE(eventually([&] { return pub.counters->up.load(); }, 5s));
  actors::watched_changes all;
  for (std::uint32_t f = 1; f < big_fields; ++f) {
    ua::data_value d;
    d.set_value(0.5 * f);
    all.push_back({f + 1, d});
  }
  pub.sink(std::move(all));
  constexpr int n = 40;
  for (int i = 1; i <= n; ++i) {
    for (std::uint32_t slot = 0; slot < 2; ++slot) {
      actors::watched_changes ch;
      ua::data_value d;
      d.set_value(slot * 1000.0 + i);
      ch.push_back({slot, d});
      pub.sink(std::move(ch));
    }
    std::this_thread::sleep_for(25ms);
  }
  REQUIRE(eventually([&] { const auto v = got.of(0); return !v.empty() && v.back().value == ua::variant(double{n}); }, 5s));
  REQUIRE(eventually([&] { const auto v = got.of(1); return !v.empty() && v.back().value == ua::variant(1000.0 + n); }, 5s));
  CHECK(mqtt_uadp_in_order(got.of(0)));
  CHECK(mqtt_uadp_in_order(got.of(1)));
  CHECK(pub.counters->dropped.load() == 0);
  CHECK(pub.counters->chunks_sent.load() >= 3);
  CHECK(sub.counters->chunked_received.load() >= 3);
  CHECK(sub.counters->chunks_refused.load() == 0);
  CHECK(sub.counters->decode_errors.load() == 0);
  CHECK(sub.counters->gaps.load() == 0);

  // §7.3.5.7: the group's topic (it has two writers), no JSON metadata under opcua/uadp; every
  // payload a UADP NetworkMessage of version 1 within MaxNetworkMessageSize.
  std::lock_guard l(spy_m);
  CHECK(topics == std::set<std::string>{"opcua/uadp/data/plant-1/Fast"});
  REQUIRE_FALSE(payloads.empty());
  std::size_t chunks = 0;
  for (const auto& p : payloads) {
    const std::span<const std::uint8_t> b(reinterpret_cast<const std::uint8_t*>(p.data()), p.size());
    CHECK(p.size() <= 4096);
    pubsub::uadp_network_message m;
    pubsub::uadp_error e;
    REQUIRE(pubsub::read_uadp_network_message(b, {}, m, e));
    CHECK(m.publisher_id->text == "plant-1");
    CHECK(m.writer_group_id == 3);
    chunks += m.chunk ? 1 : 0;
  }
  CHECK(chunks >= 3);
}

}  // namespace pubsub_mqtt_uadp_test
