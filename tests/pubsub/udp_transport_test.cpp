// Our publisher -> UADP datagrams over UDP unicast on 127.0.0.1 -> our subscriber (Part 14 §7.2.4,
// §7.3.2): every value arrives, in order per writer, in the Variant and the RawData encodings;
// DataSetMessages over the datagram's limit go as chunks (§7.2.4.4.4) and are reassembled, several
// that do not fit one datagram go in several NetworkMessages; when the publisher goes silent
// the targets turn Bad_NoCommunication after MessageReceiveTimeout. The subscriber binds port 0
// and the publisher sends to the port it got.
#include <catch2/catch.hpp>

#include <caf/all.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <chrono>
#include <mutex>
#include <thread>

#include "actors/pubsub/pubsub_actor.hpp"
#include "uactor/ua/status_codes.hpp"

namespace pubsub_udp_transport_test {

using namespace uactor;
using namespace std::chrono_literals;

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

// Two writers of one Double field "v" in one writer group (WriterGroupId 3): writer 1 in Variant
// fields, writer 2 in RawData.
actors::pubsub_setup udp_publisher_setup(std::uint16_t port, std::size_t fields_per_writer = 1) {
  actors::pubsub_setup s;
  s.transport = pubsub::transport_kind::udp;
  s.host = "127.0.0.1";
  s.port = port;
  auto& c = s.config;
  c.name = "pub";
  c.url = "opc.udp://127.0.0.1:" + std::to_string(port);
  c.publisher_id = "513";
  c.publisher_id_kind = pubsub::publisher_id_type::uint16;
  c.encoding = pubsub::message_encoding::uadp;
  pubsub::writer_group_config g;
  g.name = "Fast";
  g.id = 3;
  g.publishing_interval = 20ms;
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
    for (std::size_t f = 0; f < fields_per_writer; ++f) rw.fields.push_back({f == 0 ? "v" : "x" + std::to_string(f), ua::builtin_type::double_, -1, {}});
    group.push_back(rw);
    s.slots.push_back({0, w, 0});
  }
  s.message_id_prefix = "test";
  return s;
}

// One reader per writer, each into its own target; readers bound to 127.0.0.1 port 0.
actors::pubsub_setup udp_subscriber_setup(received_values& out, std::chrono::milliseconds timeout) {
  actors::pubsub_setup s;
  s.transport = pubsub::transport_kind::udp;
  s.host = "127.0.0.1";
  s.port = 0;
  auto& c = s.config;
  c.name = "sub";
  c.url = "opc.udp://127.0.0.1:0";
  c.encoding = pubsub::message_encoding::uadp;
  for (std::uint16_t w = 1; w <= 2; ++w) {
    pubsub::dataset_reader_config r;
    r.name = "R" + std::to_string(w);
    r.publisher_id = "513";
    r.writer_group_id = 3;
    r.writer_id = w;
    r.message_receive_timeout = timeout;
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

void udp_set_value(actors::pubsub_connection& pub, std::uint32_t slot, double v) {
  actors::watched_changes changes;
  ua::data_value d;
  d.set_value(v);
  changes.push_back({slot, d});
  pub.sink(std::move(changes));
}

// Never back; a key frame before the first value carries a null (Variant: Bad_NoData at the
// target) or the type's default (RawData: 0).
bool udp_in_order(const std::vector<ua::data_value>& values) {
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

// The values as a line, for a failure's message: a number, or the status of a value without one.
std::string udp_values_text(const std::vector<ua::data_value>& values) {
  std::string out;
  for (const auto& v : values) {
    const auto* d = v.value.get_if<double>();
    out += (d ? std::to_string(static_cast<long long>(*d)) : std::string(v.status.name())) + " ";
  }
  return out;
}

std::size_t udp_distinct(const std::vector<ua::data_value>& values) {
  std::size_t n = values.empty() ? 0 : 1;
  for (std::size_t i = 1; i < values.size(); ++i) n += !(values[i].value == values[i - 1].value);
  return n;
}

caf::actor_system_config& udp_test_config(caf::actor_system_config& cfg) {
  cfg.set("scheduler.max-threads", 2);
  return cfg;
}

TEST_CASE("pubsub udp: our publisher -> UDP unicast -> our subscriber, every value in order per writer", "[pubsub][udp]") {
  received_values got;
  caf::actor_system_config cfg;
  caf::actor_system sys{udp_test_config(cfg)};
  auto sub = actors::spawn_pubsub_connection(sys, udp_subscriber_setup(got, 0ms));
  REQUIRE(eventually([&] { return sub.counters->udp_port.load() != 0; }, 5s));
  auto pub = actors::spawn_pubsub_connection(sys, udp_publisher_setup(sub.counters->udp_port.load()));
  REQUIRE(eventually([&] { return pub.counters->up.load(); }, 5s));
  constexpr int n = 100;
  for (int i = 1; i <= n; ++i) {
    udp_set_value(pub, 0, i);
    udp_set_value(pub, 1, 1000 + i);
    std::this_thread::sleep_for(25ms);
  }
  REQUIRE(eventually([&] { return got.count(0) > 0 && got.of(0).back().value == ua::variant(double{n}); }, 5s));
  REQUIRE(eventually([&] { return got.count(1) > 0 && got.of(1).back().value == ua::variant(double{1000 + n}); }, 5s));
  const auto w1 = got.of(0), w2 = got.of(1);
  CHECK(udp_in_order(w1));
  CHECK(udp_in_order(w2));
  // Sampling keeps the last value of a cycle: nearly every value is its own DataSetMessage.
  CHECK(udp_distinct(w1) >= n * 8 / 10);
  CHECK(udp_distinct(w2) >= n * 8 / 10);
  CHECK(pub.counters->dropped.load() == 0);
  CHECK(sub.counters->gaps.load() == 0);
  CHECK(sub.counters->decode_errors.load() == 0);
  CHECK(sub.counters->received.load() >= static_cast<std::uint64_t>(n));
  caf::anon_send_exit(pub.actor, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(sub.actor, caf::exit_reason::user_shutdown);
}

TEST_CASE("pubsub udp: a silent publisher turns the targets Bad_NoCommunication after MessageReceiveTimeout", "[pubsub][udp]") {
  received_values got;
  caf::actor_system_config cfg;
  caf::actor_system sys{udp_test_config(cfg)};
  auto sub = actors::spawn_pubsub_connection(sys, udp_subscriber_setup(got, 300ms));
  REQUIRE(eventually([&] { return sub.counters->udp_port.load() != 0; }, 5s));
  auto pub = actors::spawn_pubsub_connection(sys, udp_publisher_setup(sub.counters->udp_port.load()));
  udp_set_value(pub, 0, 7);
  udp_set_value(pub, 1, 8);
  REQUIRE(eventually([&] { return got.count(0) > 0 && got.of(0).back().value == ua::variant(7.0); }, 5s));
  caf::anon_send_exit(pub.actor, caf::exit_reason::user_shutdown);
  REQUIRE(eventually([&] { return sub.counters->timeouts.load() >= 2; }, 5s));
  for (std::size_t t = 0; t < 2; ++t) {
    const auto v = got.of(t);
    REQUIRE_FALSE(v.empty());
    CHECK(v.back().status == ua::status::bad_no_communication);
    CHECK_FALSE(v.back().has_value);
  }
  caf::anon_send_exit(sub.actor, caf::exit_reason::user_shutdown);
}

// Reader 1 only (writer 1's Variant fields, the first named "v").
actors::pubsub_setup udp_variant_subscriber_setup(received_values& out) {
  auto s = udp_subscriber_setup(out, 0ms);
  s.config.readers.pop_back();
  s.reader_types.pop_back();
  return s;
}

TEST_CASE("pubsub udp: DataSetMessages over the datagram limit go as chunks and are reassembled, every value in order", "[pubsub][udp]") {
  received_values got;
  caf::actor_system_config cfg;
  caf::actor_system sys{udp_test_config(cfg)};
  auto sub = actors::spawn_pubsub_connection(sys, udp_variant_subscriber_setup(got));
  REQUIRE(eventually([&] { return sub.counters->udp_port.load() != 0; }, 5s));
  // 1,000 Doubles a writer: a key frame of ~9 KB in Variant fields, 3 chunks of a 4,096-byte datagram.
  // Every field of writer 1 has a value (a null Variant would be one byte).
  auto setup = udp_publisher_setup(sub.counters->udp_port.load(), 1000);
  setup.config.udp.max_datagram = 4096;
  for (std::uint32_t f = 1; f < 1000; ++f) setup.slots.push_back({0, 0, f});
  auto pub = actors::spawn_pubsub_connection(sys, std::move(setup));
  actors::watched_changes all;
  for (std::uint32_t f = 1; f < 1000; ++f) {
    ua::data_value d;
    d.set_value(0.25 * f);
    all.push_back({f + 1, d});
  }
  pub.sink(std::move(all));
  constexpr int n = 40;
  for (int i = 1; i <= n; ++i) {
    udp_set_value(pub, 0, i);
    std::this_thread::sleep_for(25ms);
  }
  REQUIRE(eventually([&] { return got.count(0) > 0 && got.of(0).back().value == ua::variant(double{n}); }, 5s));
  const auto w1 = got.of(0);
  INFO(udp_values_text(w1));
  CHECK(udp_in_order(w1));
  CHECK(udp_distinct(w1) >= n * 7 / 10);
  CHECK(pub.counters->oversize.load() == 0);
  CHECK(pub.counters->dropped.load() == 0);
  CHECK(pub.counters->chunks_sent.load() >= 3);
  // Key frames every 5 cycles of 20 ms: about 10 in the second the values took, each 3 chunks.
  CHECK(sub.counters->chunked_received.load() >= 5);
  CHECK(sub.counters->chunked_dropped.load() == 0);
  CHECK(sub.counters->chunks_refused.load() == 0);
  CHECK(sub.counters->decode_errors.load() == 0);
  CHECK(sub.counters->gaps.load() == 0);

  // A chunk that lies about its TotalSize (another than its sibling's) is refused and counted
  // (the publisher stopped first: its chunks do not push the lie's first chunk out).
  caf::anon_send_exit(pub.actor, caf::exit_reason::user_shutdown);
  std::this_thread::sleep_for(100ms);
  const int fd = ::socket(AF_INET, SOCK_DGRAM, 0);
  REQUIRE(fd >= 0);
  sockaddr_in to{};
  to.sin_family = AF_INET;
  to.sin_port = htons(sub.counters->udp_port.load());
  to.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  const auto chunk = [&](std::uint32_t offset, std::uint32_t total) {
    // Table 154 (UInt16 PublisherId 513, ExtendedFlags2: chunk), GroupHeader of group 3, Tables 141/142.
    std::vector<std::uint8_t> b = {0xF1, 0x81, 0x01, 0x01, 0x02, 0x0F, 0x03, 0x00, 1, 0, 0, 0, 1, 0, 1, 0, 0x01, 0x00,
                                   0x09, 0x00};
    const auto u32 = [&](std::uint32_t v) { for (int k = 0; k < 4; ++k) b.push_back(static_cast<std::uint8_t>(v >> (8 * k))); };
    u32(offset);
    u32(total);
    u32(10);
    b.insert(b.end(), 10, 0xAB);
    ::sendto(fd, b.data(), b.size(), 0, reinterpret_cast<const sockaddr*>(&to), sizeof to);
  };
  chunk(0, 100);
  chunk(10, 200);
  REQUIRE(eventually([&] { return sub.counters->chunks_refused.load() == 1; }, 5s));
  CHECK(sub.counters->decode_errors.load() == 1);
  ::close(fd);
  caf::anon_send_exit(sub.actor, caf::exit_reason::user_shutdown);
}

TEST_CASE("pubsub udp: DataSetMessages that do not fit one datagram together go in several NetworkMessages a cycle", "[pubsub][udp]") {
  received_values got;
  caf::actor_system_config cfg;
  caf::actor_system sys{udp_test_config(cfg)};
  auto sub = actors::spawn_pubsub_connection(sys, udp_variant_subscriber_setup(got));
  REQUIRE(eventually([&] { return sub.counters->udp_port.load() != 0; }, 5s));
  // 2 x 400 Doubles: ~3.6 KB each in Variant, ~3.2 KB in RawData; one datagram of 4,096 holds one.
  auto setup = udp_publisher_setup(sub.counters->udp_port.load(), 400);
  setup.config.udp.max_datagram = 4096;
  auto pub = actors::spawn_pubsub_connection(sys, std::move(setup));
  for (int i = 1; i <= 10; ++i) {
    udp_set_value(pub, 0, i);
    std::this_thread::sleep_for(25ms);
  }
  REQUIRE(eventually([&] { return got.count(0) > 0 && got.of(0).back().value == ua::variant(10.0); }, 5s));
  // A key frame cycle's two DataSetMessages (~6.8 KB) went in two datagrams: nothing over the
  // limit, nothing chunked, nothing dropped.
  CHECK(pub.counters->chunks_sent.load() == 0);
  CHECK(pub.counters->oversize.load() == 0);
  CHECK(pub.counters->dropped.load() == 0);
  CHECK(sub.counters->decode_errors.load() == 0);
  caf::anon_send_exit(pub.actor, caf::exit_reason::user_shutdown);
  caf::anon_send_exit(sub.actor, caf::exit_reason::user_shutdown);
}

}  // namespace pubsub_udp_transport_test
