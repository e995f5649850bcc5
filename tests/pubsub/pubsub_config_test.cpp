// [pubsub] of the plant file as examples/config/pubsub.toml has it, the broker URL and topics
// (Part 14 §7.3.5.7), the resolution of PublishedDataSets over an address space, and the
// DataSetReader's filters, order and MessageReceiveTimeout.
#include <catch2/catch.hpp>

#include "pubsub/dataset_reader.hpp"
#include "pubsub/pubsub_config.hpp"
#include "runtime/config/config.hpp"
#include "uactor/ua/status_codes.hpp"

using namespace uactor;
using namespace uactor::pubsub;
using namespace std::chrono_literals;

TEST_CASE("pubsub config: examples/config/pubsub.toml reads into the model", "[pubsub][config]") {
  const auto r = config::load_file(std::string(UACTOR_SOURCE_DIR) + "/examples/config/pubsub.toml", false, false);
  REQUIRE(r.ok());
  const auto& ps = r.value.server.pubsub;
  REQUIRE(ps.connections.size() == 2);
  const auto& c = ps.connections[0];
  CHECK(c.url == "mqtt://127.0.0.1:1883");
  CHECK(c.publisher_id == "uactor-demo");
  CHECK(c.mqtt.queue_limit == 1000);
  REQUIRE(c.writer_groups.size() == 1);
  const auto& g = c.writer_groups[0];
  CHECK(g.name == "Dynamic");
  CHECK(g.publishing_interval == 500ms);
  CHECK(g.keep_alive_time == 5000ms);
  CHECK(g.qos == 1);
  REQUIRE(g.writers.size() == 1);
  CHECK(g.writers[0].id == 1);
  CHECK(g.writers[0].key_frame_count == 10);
  CHECK(g.writers[0].encoding == field_encoding::variant);
  CHECK(g.writers[0].variables == std::vector<std::string>{"ns=1;s=Demo.Dynamic.*"});
  REQUIRE(c.readers.size() == 1);
  CHECK(c.readers[0].writer_id == 1);
  CHECK(c.readers[0].message_receive_timeout == 3000ms);
  REQUIRE(c.readers[0].targets.size() == 3);
  CHECK(c.readers[0].targets[1].field == "Sine");
  CHECK(c.readers[0].targets[1].node == "ns=2;s=FromBroker.Sine");
  CHECK(c.encoding == message_encoding::json);

  // Beside it, UADP over UDP and a reader of it.
  const auto& u = ps.connections[1];
  CHECK(u.url == "opc.udp://127.0.0.1:4841");
  CHECK(u.encoding == message_encoding::uadp);
  CHECK(u.publisher_id == "1001");
  CHECK(u.publisher_id_kind == publisher_id_type::uint16);
  REQUIRE(u.writer_groups.size() == 1);
  CHECK(u.writer_groups[0].id == 2);
  CHECK(u.writer_groups[0].writers[0].encoding == field_encoding::raw);
  REQUIRE(u.readers.size() == 1);
  CHECK(u.readers[0].publisher_id == "1001");
  CHECK(u.readers[0].writer_group_id == 2);
  CHECK(u.readers[0].fields == std::vector<std::string>{"Counter", "Sine", "Time"});
  CHECK(u.udp.max_chunked_message_size == 1048576);
  CHECK(u.udp.chunk_timeout == 2000ms);
  CHECK(u.udp.chunks_in_flight == 3);
}

TEST_CASE("pubsub config: opc.udp:// URLs (Part 14 §7.3.2)", "[pubsub][config]") {
  std::string host, why;
  std::uint16_t port = 0;
  transport_kind kind = transport_kind::mqtt;
  REQUIRE(parse_pubsub_url("opc.udp://239.0.0.1:4840", kind, host, port, why));
  CHECK(kind == transport_kind::udp);
  CHECK(host == "239.0.0.1");
  CHECK(port == 4840);
  REQUIRE(parse_pubsub_url("mqtt://b", kind, host, port, why));
  CHECK(kind == transport_kind::mqtt);
  CHECK_FALSE(parse_udp_url("opc.udp://h", host, port, why));
  CHECK_FALSE(parse_udp_url("opc.udp://:4840", host, port, why));
  CHECK_FALSE(parse_udp_url("opc.udp://h:70000", host, port, why));
  CHECK_FALSE(parse_pubsub_url("http://h:1", kind, host, port, why));
}

TEST_CASE("pubsub config: the broker URL and the topics of Part 14 §7.3.5.7", "[pubsub][config]") {
  std::string host, why;
  std::uint16_t port = 0;
  REQUIRE(parse_mqtt_url("mqtt://broker.local", host, port, why));
  CHECK(host == "broker.local");
  CHECK(port == 1883);
  REQUIRE(parse_mqtt_url("mqtt://[::1]:1884/", host, port, why));
  CHECK(host == "::1");
  CHECK(port == 1884);
  CHECK_FALSE(parse_mqtt_url("mqtts://b:8883", host, port, why));
  CHECK_FALSE(parse_mqtt_url("mqtt://b:0", host, port, why));
  CHECK_FALSE(parse_mqtt_url("mqtt://b/x", host, port, why));
  mqtt_settings m;
  CHECK(data_topic(m, "p", "G", "W") == "opcua/json/data/p/G/W");
  CHECK(data_topic(m, "p", "G") == "opcua/json/data/p/G");
  CHECK(metadata_topic(m, "p", "G", "W") == "opcua/json/metadata/p/G/W");
}

namespace {

decoded_dataset_message message(std::uint16_t writer, std::uint32_t seq, double v) {
  decoded_dataset_message m;
  m.writer_id = writer;
  m.sequence_number = seq;
  m.has_payload = true;
  decoded_field f;
  f.name = "v";
  f.value.set_value(v);
  m.fields.push_back(f);
  return m;
}

}  // namespace

TEST_CASE("pubsub reader: filters, SequenceNumber order, type conversion, MessageReceiveTimeout", "[pubsub]") {
  dataset_reader_config c;
  c.publisher_id = "p";
  c.writer_group = "G";
  c.writer_id = 2;
  c.message_receive_timeout = 1000ms;
  c.targets = {{"v", "ns=2;s=T"}};
  dataset_reader_state r(c, {ua::builtin_type::int32});
  decoded_network_message n;
  n.publisher_id = "p";
  n.writer_group_name = "G";
  CHECK(r.accepts(n, message(2, 1, 1)));
  CHECK_FALSE(r.accepts(n, message(3, 1, 1)));
  n.publisher_id = "other";
  CHECK_FALSE(r.accepts(n, message(2, 1, 1)));
  n.publisher_id = "p";
  n.writer_group_name = "H";
  CHECK_FALSE(r.accepts(n, message(2, 1, 1)));

  std::vector<target_write> out;
  r.start(0);
  r.take(message(2, 10, 5), 100, out);
  REQUIRE(out.size() == 1);
  CHECK(out[0].value.value == ua::variant(std::int32_t{5}));  // a Double 5 into an Int32 target
  r.take(message(2, 10, 6), 110, out);                       // the same SequenceNumber: dropped
  r.take(message(2, 9, 6), 120, out);                        // older: dropped
  CHECK(out.size() == 1);
  CHECK(r.counters().out_of_order == 2);
  r.take(message(2, 13, 7.5), 130, out);                     // two missed; 7.5 does not fit an Int32
  REQUIRE(out.size() == 2);
  CHECK(r.counters().gaps == 2);
  CHECK(out[1].value.status == ua::status::bad_type_mismatch);
  out.clear();
  r.check_timeout(1000, {}, out);
  CHECK(out.empty());
  r.check_timeout(1200, {}, out);  // 1070 ms after the last message
  REQUIRE(out.size() == 1);
  CHECK(out[0].value.status == ua::status::bad_no_communication);
  CHECK(r.state() == reader_state_kind::error);
  out.clear();
  r.check_timeout(5000, {}, out);  // once
  CHECK(out.empty());
  r.take(message(2, 14, 8), 5100, out);
  CHECK(r.state() == reader_state_kind::operational);
  CHECK(r.counters().timeouts == 1);
}

TEST_CASE("pubsub reader: one field into several targets, by name (JSON) and by position (UADP), unknown fields skipped",
          "[pubsub]") {
  dataset_reader_config c;
  c.fields = {"a", "b", "c"};  // UADP's places; JSON ignores them
  c.targets = {{"b", "ns=2;s=T0"}, {"a", "ns=2;s=T1"}, {"b", "ns=2;s=T2"}, {"zz", "ns=2;s=T3"}};
  dataset_reader_state r(c, std::vector<ua::builtin_type>(4, ua::builtin_type::double_));
  r.start(0);
  decoded_dataset_message m;
  m.has_payload = true;
  for (const auto* name : {"b", "x", "a"}) {
    decoded_field f;
    f.name = name;
    f.value.set_value(double(m.fields.size()));
    m.fields.push_back(f);
  }
  std::vector<target_write> out;
  r.take(m, 1, out);  // by name: b -> T0 and T2 (targets' order), x -> none, a -> T1
  REQUIRE(out.size() == 3);
  CHECK((out[0].target == 0 && out[0].value.value == ua::variant(0.0)));
  CHECK((out[1].target == 2 && out[1].value.value == ua::variant(0.0)));
  CHECK((out[2].target == 1 && out[2].value.value == ua::variant(2.0)));

  out.clear();
  for (auto& f : m.fields) f.name.clear();
  m.fields[0].index = 1;  // b
  m.fields[1].index = 7;  // past the DataSet's fields: no target
  m.fields[2].index = 2;  // c: no target
  r.take(m, 2, out);
  REQUIRE(out.size() == 2);
  CHECK((out[0].target == 0 && out[1].target == 2));
  CHECK(r.counters().values == 5);
}
