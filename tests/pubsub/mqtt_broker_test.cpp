// Our publisher -> Debian's mosquitto -> our subscriber, on 127.0.0.1 with a broker the test starts:
// every NetworkMessage arrives, in order per writer; then the broker killed and restarted mid-run:
// both ends reconnect, and what was lost is counted and bounded by the queue.
#include <catch2/catch.hpp>

#include <caf/all.hpp>

#include <sys/resource.h>

#include <chrono>
#include <cstdlib>
#include <mutex>
#include <thread>

#include "actors/pubsub/pubsub_actor.hpp"
#include "tests/pubsub/mosquitto_broker.hpp"
#include "uactor/ua/status_codes.hpp"

using namespace uactor;
using namespace std::chrono_literals;

namespace {

// What the subscriber's targets received, per target, in order.
struct received_values {
  std::mutex m;
  std::vector<std::vector<ua::data_value>> by_target = std::vector<std::vector<ua::data_value>>(4);
  std::size_t count(std::size_t t) {
    std::lock_guard l(m);
    return by_target[t].size();
  }
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

// A publisher of two writers (one Double field "v" each) in one writer group.
actors::pubsub_setup publisher_setup(const test::mosquitto_broker& broker, std::size_t queue_limit, int qos) {
  actors::pubsub_setup s;
  s.host = "127.0.0.1";
  s.port = broker.port();
  auto& c = s.config;
  c.name = "pub";
  c.publisher_id = "plant-1";
  c.mqtt.queue_limit = queue_limit;
  c.mqtt.reconnect_min = 100ms;
  c.mqtt.reconnect_max = 1000ms;
  pubsub::writer_group_config g;
  g.name = "Fast";
  g.publishing_interval = 20ms;
  g.qos = qos;
  for (std::uint16_t w = 1; w <= 2; ++w) {
    pubsub::dataset_writer_config wc;
    wc.name = "W" + std::to_string(w);
    wc.id = w;
    wc.key_frame_count = 5;
    g.writers.push_back(wc);
  }
  c.writer_groups.push_back(g);
  auto& group = s.groups.emplace_back();
  for (std::uint32_t w = 0; w < 2; ++w) {
    pubsub::resolved_writer rw;
    rw.config = g.writers[w];
    rw.fields = {{"v", ua::builtin_type::double_, -1, {}}};
    group.push_back(rw);
    s.slots.push_back({0, w, 0});
  }
  s.message_id_prefix = "test";
  return s;
}

// A subscriber with one reader per writer, each into its own target.
actors::pubsub_setup subscriber_setup(const test::mosquitto_broker& broker, received_values& out) {
  actors::pubsub_setup s;
  s.host = "127.0.0.1";
  s.port = broker.port();
  auto& c = s.config;
  c.name = "sub";
  c.publisher_id = "reader-side";
  c.mqtt.reconnect_min = 100ms;
  c.mqtt.reconnect_max = 1000ms;
  for (std::uint16_t w = 1; w <= 2; ++w) {
    pubsub::dataset_reader_config r;
    r.name = "R" + std::to_string(w);
    r.publisher_id = "plant-1";
    r.writer_group = "Fast";
    r.writer_id = w;
    r.message_receive_timeout = 0ms;
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

void set_value(actors::pubsub_connection& pub, std::uint32_t slot, double v) {
  actors::watched_changes changes;
  ua::data_value d;
  d.set_value(v);
  changes.push_back({slot, d});
  pub.sink(std::move(changes));
}

// In order: never back (a key frame repeats the last value when nothing changed). A key frame sent
// before the first value was set carries a null field (the target gets Bad_NoData): skipped, and
// only before the first value.
bool in_order(const std::vector<ua::data_value>& values) {
  const double* last = nullptr;
  for (const auto& v : values) {
    const auto* d = v.value.get_if<double>();
    if (!d) {
      if (last || v.status != ua::status::bad_no_data) return false;
      continue;
    }
    if (last && *d < *last) return false;
    last = d;
  }
  return true;
}

std::size_t distinct(const std::vector<ua::data_value>& values) {
  std::size_t n = values.empty() ? 0 : 1;
  for (std::size_t i = 1; i < values.size(); ++i) n += !(values[i].value == values[i - 1].value);
  return n;
}

caf::actor_system_config& pubsub_test_config(caf::actor_system_config& cfg) {
  cfg.set("scheduler.max-threads", 2);
  return cfg;
}

}  // namespace

TEST_CASE("pubsub mqtt: our publisher -> mosquitto -> our subscriber, every message in order per writer", "[pubsub][mqtt]") {
  if (test::mosquitto_broker::binary().empty()) {
    WARN("no mosquitto broker (/usr/sbin/mosquitto): skipped");
    return;
  }
  test::mosquitto_broker broker;
  REQUIRE(broker.start());
  received_values got;
  caf::actor_system_config cfg;
  caf::actor_system sys{pubsub_test_config(cfg)};
  auto sub = actors::spawn_pubsub_connection(sys, subscriber_setup(broker, got));
  REQUIRE(eventually([&] { return sub.counters->up.load(); }, 5s));
  auto pub = actors::spawn_pubsub_connection(sys, publisher_setup(broker, 100, 1));
  REQUIRE(eventually([&] { return pub.counters->up.load(); }, 5s));
  // One new value per writer per cycle (a cycle is 20 ms): 100 values each.
  constexpr int n = 100;
  for (int i = 1; i <= n; ++i) {
    set_value(pub, 0, i);
    set_value(pub, 1, 1000 + i);
    std::this_thread::sleep_for(25ms);
  }
  REQUIRE(eventually([&] { return got.count(0) > 0 && got.of(0).back().value == ua::variant(double{n}); }, 5s));
  REQUIRE(eventually([&] { return got.count(1) > 0 && got.of(1).back().value == ua::variant(double{1000 + n}); }, 5s));
  const auto w1 = got.of(0), w2 = got.of(1);
  CHECK(in_order(w1));
  CHECK(in_order(w2));
  // Sampling keeps the last value of a cycle: nearly every value is its own message here.
  CHECK(distinct(w1) >= n * 8 / 10);
  CHECK(distinct(w2) >= n * 8 / 10);
  CHECK(pub.counters->dropped.load() == 0);
  CHECK(sub.counters->gaps.load() == 0);
  CHECK(sub.counters->decode_errors.load() == 0);
  // Every DataSetMessage that left arrived: the sequence numbers had no gap, and the counts agree.
  CHECK(sub.counters->received.load() > 0);
  INFO("sent " << pub.counters->messages_sent.load() << " NetworkMessages, received " << sub.counters->received.load()
               << " DataSetMessages");
  caf::anon_send_exit(pub.actor, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(sub.actor, caf::exit_reason::user_shutdown);
}

TEST_CASE("pubsub mqtt: the broker killed and restarted mid-run: reconnects, losses counted and bounded by the queue",
          "[pubsub][mqtt]") {
  if (test::mosquitto_broker::binary().empty()) {
    WARN("no mosquitto broker (/usr/sbin/mosquitto): skipped");
    return;
  }
  test::mosquitto_broker broker;
  REQUIRE(broker.start());
  received_values got;
  caf::actor_system_config cfg;
  caf::actor_system sys{pubsub_test_config(cfg)};
  auto sub = actors::spawn_pubsub_connection(sys, subscriber_setup(broker, got));
  constexpr std::size_t queue_limit = 10;
  auto pub = actors::spawn_pubsub_connection(sys, publisher_setup(broker, queue_limit, 0));
  REQUIRE(eventually([&] { return pub.counters->up.load() && sub.counters->up.load(); }, 5s));
  std::atomic<bool> run{true};
  std::atomic<int> last{0};
  std::thread feeder([&] {
    for (int i = 1; run.load(); ++i) {
      set_value(pub, 0, i);
      last = i;
      std::this_thread::sleep_for(20ms);
    }
  });
  REQUIRE(eventually([&] { return got.count(0) >= 20; }, 5s));
  const auto sent_before = pub.counters->messages_sent.load();
  broker.stop(true);  // a crash: no goodbye to the clients
  REQUIRE(eventually([&] { return !pub.counters->up.load() && !sub.counters->up.load(); }, 5s));
  std::this_thread::sleep_for(1500ms);  // ~75 cycles without a broker: the queue of 10 overflows
  const auto dropped_while_down = pub.counters->dropped.load();
  CHECK(dropped_while_down > 0);
  CHECK(pub.counters->queued.load() == static_cast<std::int64_t>(queue_limit));
  REQUIRE(broker.start());  // the same port
  REQUIRE(eventually([&] { return pub.counters->reconnects.load() >= 1 && sub.counters->reconnects.load() >= 1; }, 15s));
  const int after = last.load();
  REQUIRE(eventually([&] {
    const auto v = got.of(0);
    const auto* d = v.empty() ? nullptr : v.back().value.get_if<double>();
    return d && *d >= after;
  }, 5s));
  run = false;
  feeder.join();
  CHECK(pub.counters->queued.load() == 0);
  CHECK(in_order(got.of(0)));
  // What the subscriber missed it counted (SequenceNumber gaps), and it is bounded: at most the
  // cycles of the outage (the queue's oldest dropped, the rest sent before the subscriber was back).
  const auto gaps = sub.counters->gaps.load();
  const auto dropped = pub.counters->dropped.load();
  INFO("sent before " << sent_before << ", dropped " << dropped << ", subscriber gaps " << gaps << ", reconnects pub "
                      << pub.counters->reconnects.load() << " sub " << sub.counters->reconnects.load());
  CHECK(gaps >= dropped);
  CHECK(gaps <= dropped + queue_limit + 50);
  caf::anon_send_exit(pub.actor, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(sub.actor, caf::exit_reason::user_shutdown);
}

TEST_CASE("pubsub mqtt: a broker that wants a user and password takes ours, and refuses a wrong one", "[pubsub][mqtt]") {
  if (test::mosquitto_broker::binary().empty()) {
    WARN("no mosquitto broker (/usr/sbin/mosquitto): skipped");
    return;
  }
  test::mosquitto_broker broker;
  if (!broker.require_user("plant", "s3cret")) {
    WARN("no mosquitto_passwd: skipped");
    return;
  }
  REQUIRE(broker.start());
  received_values got;
  caf::actor_system_config cfg;
  caf::actor_system sys{pubsub_test_config(cfg)};
  auto good = publisher_setup(broker, 10, 1);
  good.config.mqtt.username = "plant";
  good.config.mqtt.password = "s3cret";
  auto wrong = publisher_setup(broker, 10, 1);
  wrong.config.name = "wrong";
  wrong.config.mqtt.username = "plant";
  wrong.config.mqtt.password = "guess";
  auto a = actors::spawn_pubsub_connection(sys, std::move(good));
  auto b = actors::spawn_pubsub_connection(sys, std::move(wrong));
  CHECK(eventually([&] { return a.counters->up.load(); }, 5s));
  std::this_thread::sleep_for(500ms);
  CHECK_FALSE(b.counters->up.load());
  CHECK(b.counters->connects.load() == 0);
  caf::anon_send_exit(a.actor, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(b.actor, caf::exit_reason::user_shutdown);
}

// Hidden: what one publisher gets through mosquitto on this machine, and what one subscriber of
// ours decodes. `uactor_pubsub_tests "[.pubsub-throughput]"`; UACTOR_PUBSUB_FIELDS (default 10,000)
// Double fields in one writer, key frames only (every field every cycle), every 100 ms for 5 s.
TEST_CASE("pubsub mqtt: throughput of one writer group through mosquitto", "[.pubsub-throughput]") {
  if (test::mosquitto_broker::binary().empty()) return;
  const char* env = std::getenv("UACTOR_PUBSUB_FIELDS");
  const std::size_t fields = env ? std::strtoul(env, nullptr, 10) : 10'000;
  const char* ms_env = std::getenv("UACTOR_PUBSUB_INTERVAL_MS");
  const auto interval = std::chrono::milliseconds(ms_env ? std::strtoul(ms_env, nullptr, 10) : 100);
  test::mosquitto_broker broker;
  REQUIRE(broker.start());
  received_values got;
  caf::actor_system_config cfg;
  caf::actor_system sys{pubsub_test_config(cfg)};
  auto sub_setup = subscriber_setup(broker, got);
  sub_setup.targets = {};  // count, do not keep
  auto sub = actors::spawn_pubsub_connection(sys, std::move(sub_setup));
  auto s = publisher_setup(broker, 100, 0);
  auto& g = s.config.writer_groups[0];
  g.publishing_interval = interval;
  g.max_network_message_size = 64 << 20;
  g.writers.resize(1);
  g.writers[0].key_frame_count = 1;
  s.groups[0].resize(1);
  s.groups[0][0].config = g.writers[0];
  s.groups[0][0].fields.clear();
  s.slots.clear();
  for (std::size_t f = 0; f < fields; ++f) {
    s.groups[0][0].fields.push_back({"v" + std::to_string(f), ua::builtin_type::double_, -1, {}});
    s.slots.push_back({0, 0, static_cast<std::uint32_t>(f)});
  }
  // The subscriber's reader takes writer 1's field "v0" only: the decode is of the whole message.
  auto pub = actors::spawn_pubsub_connection(sys, std::move(s));
  REQUIRE(eventually([&] { return pub.counters->up.load() && sub.counters->up.load(); }, 5s));
  actors::watched_changes initial;
  for (std::uint32_t f = 0; f < fields; ++f) {
    ua::data_value d;
    d.set_value(double(f) + 0.5);
    initial.push_back({f, d});
  }
  pub.sink(std::move(initial));
  std::this_thread::sleep_for(1s);
  const auto v0 = pub.counters->values_sent.load();
  const auto m0 = pub.counters->messages_sent.load();
  const auto r0 = sub.counters->received.load();
  rusage u0{};
  getrusage(RUSAGE_SELF, &u0);
  const auto t0 = std::chrono::steady_clock::now();
  std::this_thread::sleep_for(5s);
  const double secs = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  rusage u1{};
  getrusage(RUSAGE_SELF, &u1);
  const auto cpu = [](const rusage& u) {
    return double(u.ru_utime.tv_sec + u.ru_stime.tv_sec) + double(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
  };
  const double values = double(pub.counters->values_sent.load() - v0);
  const double messages = double(pub.counters->messages_sent.load() - m0);
  const double decoded = double(sub.counters->received.load() - r0);
  WARN(fields << " fields every " << interval.count() << " ms: " << values / secs << " values/s published in "
              << messages / secs << " NetworkMessages/s; the subscriber decoded " << decoded / secs
              << " DataSetMessages/s (" << decoded * double(fields) / secs << " values/s); process CPU "
              << (cpu(u1) - cpu(u0)) / secs * 100 << " % of one core (publisher and subscriber), "
              << (cpu(u1) - cpu(u0)) / (values + decoded * double(fields)) * 1e9 << " ns per value published or decoded; dropped "
              << pub.counters->dropped.load());
  caf::anon_send_exit(pub.actor, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(sub.actor, caf::exit_reason::user_shutdown);
}
