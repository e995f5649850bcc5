// The plant file read into the embedding API's structures: the embedded default, templates,
// writers, users, endpoints, and the signals of the writers.
#include <catch2/catch.hpp>

#include <filesystem>

#include "runtime/config/config.hpp"
#include "runtime/config/signal.hpp"
#include "security/password_hash.hpp"

using namespace uactor;

TEST_CASE("config: the embedded default is today's uactor run: the demo on 4840, every policy, anonymous", "[config]") {
  const auto r = config::load(config::default_toml(), "(default)", ".", false);
  REQUIRE(r.errors.empty());
  const auto& s = r.value.server;
  REQUIRE(s.endpoints.size() == 1);
  const auto& e = s.endpoints[0];
  const auto d = default_server_plan();
  CHECK(s.demo);
  CHECK(e.port == 4840);
  CHECK(e.listen_address == "0.0.0.0");
  CHECK(s.host_name == d.host_name);
  CHECK(s.endpoint_url() == "opc.tcp://" + d.host_name + ":4840");
  CHECK(s.application_uri == d.application_uri);
  CHECK(s.demo_namespace_uri == "urn:uactor:demo");
  CHECK(e.security == std::vector<std::string>{"all"});
  CHECK(e.user_tokens == std::vector<std::string>{"anonymous", "username", "x509"});
  CHECK(s.max_connections == d.max_connections);
  CHECK(s.max_sessions == d.max_sessions);
  CHECK(s.receive_buffer_size == d.receive_buffer_size);
  CHECK(s.send_buffer_size == d.send_buffer_size);
  CHECK(s.max_message_size == d.max_message_size);
  CHECK(s.max_chunk_count == d.max_chunk_count);
  CHECK(s.max_nodes_per_operation == d.max_nodes_per_operation);
  CHECK(s.writer_interval == d.writer_interval);
  CHECK(s.session_host == "multiplexer");
  // The demo alarms (docs/demo-namespace.md "Demo alarms"): two writer-driven variables of
  // Demo.Dynamic and a condition on each, so that the default's event view is not empty.
  CHECK(r.value.nodes.size() == 2);
  REQUIRE(r.value.writers.size() == 2);
  CHECK(r.value.writers[0].kind == "ramp");
  CHECK(r.value.writers[0].targets == std::vector<node_id>{node_id::string(1, "Demo.Dynamic.Ramp")});
  CHECK(r.value.writers[1].kind == "square");
  CHECK(r.value.writers[1].targets == std::vector<node_id>{node_id::string(1, "Demo.Dynamic.Toggle")});
  REQUIRE(r.value.limit_alarms.size() == 1);
  const auto& ramp = r.value.limit_alarms[0];
  CHECK(ramp.id == node_id::string(1, "Demo.Dynamic.Ramp.Alarm"));
  CHECK(ramp.input == node_id::string(1, "Demo.Dynamic.Ramp"));
  CHECK(ramp.name == "RampLimit");
  // The ramp's values 0, 10, ... 90 fall between the limits: Low, normal, High and HighHigh in turn.
  CHECK(ramp.low == 15);
  CHECK(ramp.high == 65);
  CHECK(ramp.high_high == 85);
  REQUIRE(r.value.off_normal_alarms.size() == 1);
  const auto& toggle = r.value.off_normal_alarms[0];
  CHECK(toggle.id == node_id::string(1, "Demo.Dynamic.Toggle.Alarm"));
  CHECK(toggle.input == node_id::string(1, "Demo.Dynamic.Toggle"));
  CHECK(toggle.name == "ToggleOffNormal");
  CHECK(toggle.normal == ua::variant(false));
  CHECK(r.value.discrete_alarms.empty());
  // Both come and go within seconds: a 5 s saw (10 ticks of 500 ms), a 4 s square (1 s ticks).
  config::signal ramp_signal(r.value.writers[0]);
  std::vector<double> saw;
  for (int i = 0; i < 11; ++i) saw.push_back(ramp_signal.next());
  CHECK(saw == std::vector<double>{0, 10, 20, 30, 40, 50, 60, 70, 80, 90, 0});
  CHECK(r.value.writers[0].interval == std::chrono::milliseconds(500));
  config::signal toggle_signal(r.value.writers[1]);
  std::vector<double> square;
  for (int i = 0; i < 5; ++i) square.push_back(toggle_signal.next());
  CHECK(square == std::vector<double>{1, 1, 0, 0, 1});
  CHECK(r.value.writers[1].interval == std::chrono::milliseconds(1000));
}

TEST_CASE("config: a template of 10,000 variables, parents first, a writer over all of them", "[config]") {
  const auto text = R"(
[[namespaces]]
uri = "urn:example:plant"

[[variables]]
id = "ns=2;s=Plant.Line1.Tag{i}"
parent = "ns=2;s=Plant.Line1"
count = 10000
type = "Float"
access = "read_write"
eu_range = [0, 100]
units = { id = 4408652, name = "°C" }
minimum_sampling_interval = 100

[[folders]]
id = "ns=2;s=Plant"

[[objects]]
id = "ns=2;s=Plant.Line1"
parent = "ns=2;s=Plant"

[[writers]]
kind = "sine"
interval_ms = 500
targets = ["ns=2;s=Plant.Line1.Tag{i}"]
count = 10000
)";
  const auto r = config::load(text, "plant.toml", ".", false);
  REQUIRE(r.errors.empty());
  REQUIRE(r.value.namespaces == std::vector<std::string>{"urn:example:plant"});
  REQUIRE(r.value.nodes.size() == 10002);
  const auto& f = std::get<object_node>(r.value.nodes[0]);
  CHECK(f.id == node_id::string(2, "Plant"));
  CHECK(f.type_definition == ns0::folder_type);
  CHECK(f.parent == ns0::objects_folder);
  CHECK(std::get<object_node>(r.value.nodes[1]).id == node_id::string(2, "Plant.Line1"));
  const auto& v = std::get<variable_node>(r.value.nodes[2 + 42]);
  CHECK(v.id == node_id::string(2, "Plant.Line1.Tag42"));
  CHECK(v.browse_name.name.view() == "Tag42");
  CHECK(v.browse_name.namespace_index == 2);
  CHECK(v.data_type == node_id(0, 10));
  CHECK(v.access_level == access::read_write);
  CHECK(v.minimum_sampling_interval == 100);
  REQUIRE(v.range);
  CHECK(v.range->high == 100);
  REQUIRE(v.units);
  CHECK(v.units->unit_id == 4408652);
  CHECK(v.value.has_value);
  CHECK(v.value.value.get_if<float>() != nullptr);
  REQUIRE(r.value.writers.size() == 1);
  const auto& w = r.value.writers[0];
  CHECK(w.kind == "sine");
  CHECK(w.interval == std::chrono::milliseconds(500));
  REQUIRE(w.targets.size() == 10000);
  CHECK(w.targets[9999] == node_id::string(2, "Plant.Line1.Tag9999"));
  CHECK(w.target_types[0] == ua::builtin_type::float_);
}

TEST_CASE("config: two endpoints of one server with their own security, users as hashes", "[config]") {
  const auto hash = security::hash_password("pw", 1000);
  const auto text = R"(
[server]
host_name = "plant1"
[[server.endpoints]]
port = 0
security = ["none"]
[[server.endpoints]]
port = 0
security = ["Basic256Sha256:SignAndEncrypt"]
anonymous = false
[[users]]
name = "op"
hash = ")" + hash + R"("
)";
  const auto r = config::load(text, "plant.toml", ".", false);
  REQUIRE(r.errors.empty());
  const auto& s = r.value.server;
  REQUIRE(s.endpoints.size() == 2);
  CHECK(s.endpoints[0].security == std::vector<std::string>{"none"});
  CHECK(s.endpoints[0].user_tokens == std::vector<std::string>{"anonymous", "username", "x509"});
  CHECK(s.endpoints[1].security == std::vector<std::string>{"Basic256Sha256:SignAndEncrypt"});
  CHECK(s.endpoints[1].user_tokens == std::vector<std::string>{"username", "x509"});  // anonymous = false
  CHECK(s.application_uri == "urn:plant1:uactor:server");
  CHECK(s.user_hashes == std::vector<std::string>{"op:" + hash});
}

TEST_CASE("config: a variable's initial value in the TOML form of its DataType", "[config]") {
  const auto text = R"(
[[variables]]
id = "ns=1;s=A"
type = "Int32"
value = [1, -2, 3]
[[variables]]
id = "ns=1;s=B"
type = "String"
value = "uactor"
[[variables]]
id = "ns=1;s=C"
type = "Boolean"
value = true
)";
  const auto r = config::load(text, "plant.toml", ".", false);
  REQUIRE(r.errors.empty());
  REQUIRE(r.value.nodes.size() == 3);
  const auto& a = std::get<variable_node>(r.value.nodes[0]);
  CHECK(a.value_rank == 1);
  CHECK(a.value.has_value);
  CHECK(a.value.value.is_array());
  CHECK(std::get<variable_node>(r.value.nodes[1]).value.value.get_if<ua::ua_string>()->view() == "uactor");
  CHECK(*std::get<variable_node>(r.value.nodes[2]).value.value.get_if<bool>());
}

TEST_CASE("config: writers, scripts and alarms may name the nodes of the demo and load namespaces the file turns on",
          "[config]") {
  // A writer's target, a script's input, an alarm's input: the server's own variables, typed as
  // the namespaces that make them type them (runtime/namespaces).
  constexpr auto text = R"(
[server]
demo = true
load_variables = 3
[[variables]]
id = "ns=1;s=Twice"
parent = "ns=1;s=Demo"
type = "Double"
[[writers]]
kind = "counter"
targets = ["ns=1;s=Demo.Static.Scalar.Double", "ns=1;s=Load.V2"]
[[virtual_tags]]
output = "ns=1;s=Twice"
inputs = { v = "ns=1;s=Load.V0" }
expression = "v * 2"
[[limit_alarms]]
id = "ns=1;s=Twice.High"
input = "ns=1;s=Demo.Static.Scalar.Double"
high = 10
)";
  const auto loaded = config::load(text, "plant.toml", ".", false, false);
  INFO((loaded.errors.empty() ? std::string() : loaded.errors.front().to_string()));
  REQUIRE(loaded.ok());
  REQUIRE(loaded.value.writers.size() == 1);
  CHECK(loaded.value.writers[0].target_types ==
        std::vector<ua::builtin_type>{ua::builtin_type::double_, ua::builtin_type::uint32});
  CHECK(loaded.value.node_places.size() == loaded.value.nodes.size());
  CHECK(loaded.value.node_places[0].to_string() == "plant.toml:6:6: variables[0].id: ");

  // A million load variables are not built to check three names (a load variable is taken when
  // named): the last one is a target, the one past it is not, and a file's node may not take one.
  {
    constexpr auto big = R"(
[server]
load_variables = 1000000
[[variables]]
id = "ns=1;s=Load.V17"
parent = "ns=1;s=Load"
[[writers]]
kind = "counter"
targets = ["ns=1;s=Load.V999999", "ns=1;s=Load.V1000000", "ns=1;s=Load.V01"]
)";
    const auto many = config::load(big, "plant.toml", ".", false, false);
    std::vector<std::string> errors;
    for (const auto& e : many.errors) errors.push_back(e.to_string());
    CHECK(errors == std::vector<std::string>{
                        "plant.toml:5:6: variables[0].id: ns=1;s=Load.V17 is already a node of the server's demo or load "
                        "namespace (server.demo, server.load_variables)",
                        "plant.toml:9:35: writers[0].targets[1]: ns=1;s=Load.V1000000 is not a variable of this file",
                        "plant.toml:9:59: writers[0].targets[2]: ns=1;s=Load.V01 is not a variable of this file"});
  }

  // The same names without the namespaces that make them: refused at their places.
  std::string without(text);
  without.replace(without.find("demo = true\nload_variables = 3"), 30, "demo = false\nload_variables = 2");
  const auto refused = config::load(without, "plant.toml", ".", false, false);
  std::vector<std::string> errors;
  for (const auto& e : refused.errors) errors.push_back(e.to_string());
  CHECK(errors == std::vector<std::string>{
                      "plant.toml:7:10: variables[0].parent: ns=1;s=Demo is not a node of this file (folders, objects, variables)",
                      "plant.toml:11:12: writers[0].targets[0]: ns=1;s=Demo.Static.Scalar.Double is not a variable of this file",
                      "plant.toml:11:48: writers[0].targets[1]: ns=1;s=Load.V2 is not a variable of this file",
                      "plant.toml:18:9: limit_alarms[0].input: ns=1;s=Demo.Static.Scalar.Double is not a variable of this file"});
}

TEST_CASE("config: the writers' signals", "[config]") {
  config::writer_spec w;
  w.interval = std::chrono::milliseconds(250);
  w.min = 0;
  w.max = 3;
  w.step = 1;
  w.kind = "counter";
  {
    config::signal s(w);
    std::vector<double> got;
    for (int i = 0; i < 6; ++i) got.push_back(s.next());
    CHECK(got == std::vector<double>{0, 1, 2, 3, 0, 1});
  }
  w.kind = "square";
  w.period = std::chrono::milliseconds(1000);
  {
    config::signal s(w);
    std::vector<double> got;
    for (int i = 0; i < 5; ++i) got.push_back(s.next());
    CHECK(got == std::vector<double>{3, 3, 0, 0, 3});
  }
  w.kind = "sine";
  {
    config::signal s(w);
    CHECK(s.next() == Approx(1.5));
    CHECK(s.next() == Approx(3));
  }
  w.kind = "steps";
  w.values = {5, 7};
  {
    config::signal s(w);
    CHECK(s.next() == 5);
    CHECK(s.next() == 7);
    CHECK(s.next() == 5);
  }
  w.kind = "random_walk";
  w.step = 0.5;
  {
    config::signal s(w);
    double last = s.next();
    for (int i = 0; i < 100; ++i) {
      const double v = s.next();
      CHECK(v >= 0);
      CHECK(v <= 3);
      CHECK(std::abs(v - last) <= 0.5);
      last = v;
    }
  }
}

TEST_CASE("config: [[mirrors]] become mirror specs: remote NodeIds as written, defaults, on_loss", "[config]") {
  const auto r = config::load(R"(
[[mirrors]]
name = "line1"
endpoint = "opc.tcp://plc1:4840"
nodes = ["ns=2;s=Line1.Speed", "i=2258"]

[[mirrors]]
name = "line-2.b"
endpoint = "opc.tcp://plc2:4840/ua"
nodes = ["ns=7;i=12"]
security = "none"
sampling_interval_ms = 0
publishing_interval_ms = 500
on_loss = "last_usable"
subtrees = ["ns=7;s=Line2", "ns=7;i=5"]
max_nodes = 250
)",
                              "m.toml", ".", false);
  REQUIRE(r.errors.empty());
  REQUIRE(r.value.mirrors.size() == 2);
  const auto& a = r.value.mirrors[0];
  CHECK(a.name == "line1");
  CHECK(a.endpoint == "opc.tcp://plc1:4840");
  // Namespace 2 and 7 are the remote's: nothing in this file declares them, and that is fine.
  CHECK(a.nodes == std::vector<ua::node_id>{ua::node_id::string(2, "Line1.Speed"), ua::node_id(0, 2258)});
  CHECK(a.sampling_interval == std::chrono::milliseconds(100));
  CHECK(a.publishing_interval == std::chrono::milliseconds(100));
  CHECK(a.on_loss == app::mirror_loss::bad);
  CHECK(a.subtrees.empty());
  CHECK(a.max_nodes == 10'000);
  const auto& b = r.value.mirrors[1];
  CHECK(b.subtrees == std::vector<ua::node_id>{ua::node_id::string(7, "Line2"), ua::node_id(7, 5)});
  CHECK(b.max_nodes == 250);
  CHECK(b.name == "line-2.b");
  CHECK(b.nodes == std::vector<ua::node_id>{ua::node_id(7, 12)});
  CHECK(b.sampling_interval == std::chrono::milliseconds(0));
  CHECK(b.publishing_interval == std::chrono::milliseconds(500));
  CHECK(b.on_loss == app::mirror_loss::last_usable);
  // The local NodeId: the remote's text as a String id in the mirror's namespace.
  CHECK(app::mirror_node_id(5, a.nodes[0]) == ua::node_id::string(5, "ns=2;s=Line1.Speed"));
  CHECK(app::mirror_node_id(5, a.nodes[1]) == ua::node_id::string(5, "i=2258"));
  CHECK(app::mirror_namespace_uri("line1") == "urn:uactor:mirror:line1");
}

TEST_CASE("config: a mirror of more than 100,000 nodes is refused, at the nodes key", "[config]") {
  std::string text = "[[mirrors]]\nname = \"big\"\nendpoint = \"opc.tcp://plc:4840\"\nnodes = [";
  for (int i = 0; i <= 100'000; ++i) text += (i ? ",\"i=" : "\"i=") + std::to_string(i + 1) + "\"";
  text += "]\n";
  const auto r = config::load(text, "big.toml", ".", false);
  REQUIRE(r.errors.size() == 1);
  CHECK(r.errors[0].to_string() == "big.toml:4:9: mirrors[0].nodes: 100001 NodeIds: at most 100000 per mirror");
}

TEST_CASE("config: [[limit_alarms]], [[off_normal_alarms]], notifiers and audit events become the API's structures",
          "[config][alarms]") {
  constexpr auto text = R"(
[server]
demo = false
audit_events = true
[[namespaces]]
uri = "urn:test:tank"
[[objects]]
id = "ns=2;s=Tank"
event_notifier = true
[[variables]]
id = "ns=2;s=Tank.Level"
parent = "ns=2;s=Tank"
[[variables]]
id = "ns=2;s=Tank.Trip"
parent = "ns=2;s=Tank"
type = "Boolean"
[[variables]]
id = "ns=2;s=Tank.Mode"
type = "Int32"
[[limit_alarms]]
id = "ns=2;s=Tank.Level.Alarm"
input = "ns=2;s=Tank.Level"
notifier = "ns=2;s=Tank"
high = 80
low = 20.5
deadband = 0.5
severity_high = 650
[[limit_alarms]]
id = "i=5001"
input = "ns=2;s=Tank.Level"
name = "Second"
notifier = "ns=2;s=Tank"
high_high = 95
enabled = false
[[off_normal_alarms]]
id = "ns=2;s=Tank.Trip.Alarm"
input = "ns=2;s=Tank.Trip"
normal = true
severity = 900
[[off_normal_alarms]]
id = "ns=2;s=Tank.Mode.Alarm"
input = "ns=2;s=Tank.Mode"
[[off_normal_alarms]]
id = "ns=2;s=Demo.Alarm"
input = "i=2258"
)";
  const auto r = config::load(text, "alarms.toml", ".", false);
  for (const auto& e : r.errors) INFO(e.to_string());
  REQUIRE(r.errors.empty());
  CHECK(r.value.server.audit_events);
  REQUIRE(r.value.limit_alarms.size() == 2);
  const auto& a = r.value.limit_alarms[0];
  CHECK(a.id == node_id::string(2, "Tank.Level.Alarm"));
  CHECK(a.input == node_id::string(2, "Tank.Level"));
  CHECK(a.name == "Alarm");  // the last part of the id
  CHECK(a.high == 80);
  CHECK(a.low == 20.5);
  CHECK_FALSE(a.high_high);
  CHECK_FALSE(a.low_low);
  CHECK(a.deadband == 0.5);
  CHECK(a.severity_high == 650);
  CHECK(a.severity_high_high == 900);  // the API's defaults
  CHECK(a.enabled);
  const auto& b = r.value.limit_alarms[1];
  CHECK(b.id == node_id(0, 5001));
  CHECK(b.name == "Second");
  CHECK_FALSE(b.enabled);
  // One HasEventSource for the two alarms of the same input and notifier.
  REQUIRE(r.value.event_sources.size() == 1);
  CHECK(r.value.event_sources[0].source == node_id::string(2, "Tank"));
  CHECK(r.value.event_sources[0].type == node_id(0, 36));
  CHECK(r.value.event_sources[0].target == node_id::string(2, "Tank.Level"));
  // The notifier object has SubscribeToEvents.
  bool notifier = false;
  for (const auto& n : r.value.nodes)
    if (const auto* o = std::get_if<object_node>(&n); o && o->id == node_id::string(2, "Tank")) notifier = o->event_notifier == 1;
  CHECK(notifier);
  REQUIRE(r.value.off_normal_alarms.size() == 3);
  CHECK(r.value.off_normal_alarms[0].normal == ua::variant(true));
  CHECK(r.value.off_normal_alarms[0].severity == 900);
  CHECK(r.value.off_normal_alarms[1].normal == ua::variant(0.0));  // a numeric input's default
  CHECK(r.value.off_normal_alarms[1].severity == 500);
  CHECK(r.value.off_normal_alarms[2].input == node_id(0, 2258));  // namespace 0: the server checks it
}

TEST_CASE("config: limit_alarms exclusive = false and [[discrete_alarms]] become the API's structures",
          "[config][alarms]") {
  constexpr auto text = R"(
[server]
demo = false
[[namespaces]]
uri = "urn:test:pump"
[[variables]]
id = "ns=2;s=Pump.Speed"
[[variables]]
id = "ns=2;s=Pump.Dry"
type = "Boolean"
[[variables]]
id = "ns=2;s=Pump.Fault"
type = "Int32"
[[limit_alarms]]
id = "ns=2;s=Pump.Speed.Alarm"
input = "ns=2;s=Pump.Speed"
high_high = 3000
high = 2800
exclusive = false
[[discrete_alarms]]
id = "ns=2;s=Pump.Dry.Alarm"
input = "ns=2;s=Pump.Dry"
severity = 650
[[discrete_alarms]]
id = "ns=2;s=Pump.Fault.Alarm"
input = "ns=2;s=Pump.Fault"
name = "PumpFault"
active = 3
enabled = false
)";
  const auto r = config::load(text, "pump.toml", ".", false);
  for (const auto& e : r.errors) INFO(e.to_string());
  REQUIRE(r.errors.empty());
  REQUIRE(r.value.limit_alarms.size() == 1);
  CHECK_FALSE(r.value.limit_alarms[0].exclusive);
  REQUIRE(r.value.discrete_alarms.size() == 2);
  const auto& dry = r.value.discrete_alarms[0];
  CHECK(dry.id == node_id::string(2, "Pump.Dry.Alarm"));
  CHECK(dry.input == node_id::string(2, "Pump.Dry"));
  CHECK(dry.name == "Alarm");
  CHECK(dry.active == ua::variant(true));  // the default alarm value
  CHECK(dry.severity == 650);
  CHECK(dry.enabled);
  const auto& fault = r.value.discrete_alarms[1];
  CHECK(fault.name == "PumpFault");
  CHECK(fault.active == ua::variant(3.0));
  CHECK_FALSE(fault.enabled);
}

TEST_CASE("config: suppressed_by and max_branches of each alarm kind become the API's structures",
          "[config][alarms][suppression]") {
  constexpr auto text = R"(
[server]
demo = false
[[namespaces]]
uri = "urn:test:pump"
[[variables]]
id = "ns=2;s=Pump.Speed"
[[variables]]
id = "ns=2;s=Pump.Dry"
type = "Boolean"
[[variables]]
id = "ns=2;s=Pump.Stopped"
type = "Boolean"
[[limit_alarms]]
id = "ns=2;s=Pump.Speed.Alarm"
input = "ns=2;s=Pump.Speed"
high = 2800
suppressed_by = "ns=2;s=Pump.Stopped"
max_branches = 4
[[off_normal_alarms]]
id = "ns=2;s=Pump.Dry.Alarm"
input = "ns=2;s=Pump.Dry"
suppressed_by = "ns=2;s=Pump.Stopped"
max_branches = 0
[[discrete_alarms]]
id = "ns=2;s=Pump.Dry.Trip"
input = "ns=2;s=Pump.Dry"
)";
  const auto r = config::load(text, "pump.toml", ".", false);
  for (const auto& e : r.errors) INFO(e.to_string());
  REQUIRE(r.errors.empty());
  REQUIRE(r.value.limit_alarms.size() == 1);
  CHECK(r.value.limit_alarms[0].suppressed_by == node_id::string(2, "Pump.Stopped"));
  CHECK(r.value.limit_alarms[0].max_branches == 4);
  REQUIRE(r.value.off_normal_alarms.size() == 1);
  CHECK(r.value.off_normal_alarms[0].suppressed_by == node_id::string(2, "Pump.Stopped"));
  CHECK(r.value.off_normal_alarms[0].max_branches == 0);
  REQUIRE(r.value.discrete_alarms.size() == 1);
  CHECK(r.value.discrete_alarms[0].suppressed_by.is_null());  // none
  CHECK(r.value.discrete_alarms[0].max_branches == 16);       // the API's default
}

TEST_CASE("config: [[nodesets]] loads node-opcua-nodesets' DI and Machinery, strict or with accept_older_models", "[config]") {
  const auto dir = std::filesystem::path(UACTOR_SOURCE_DIR) / "tests/interop/node_modules/node-opcua-nodesets/nodesets";
  if (!std::filesystem::exists(dir / "Opc.Ua.Machinery.NodeSet2.xml")) {
    WARN("skipped: node-opcua-nodesets not installed (scripts/setup.sh runs npm ci)");
    return;
  }
  // DI, IA, Machinery: namespaces 2, 3, 4 in the order the files use them. The plant's machine
  // hangs below DI's DeviceSet (i=5001), typed as Machinery's MachineIdentificationType (i=1012).
  auto plant = [&](const char* accept) {
    std::string text = "[server]\ndemo = false\n";
    for (const char* f : {"Opc.Ua.Di.NodeSet2.xml", "Opc.Ua.IA.NodeSet2.xml", "Opc.Ua.Machinery.NodeSet2.xml"})
      text += "[[nodesets]]\npath = \"" + (dir / f).string() + "\"\n" + accept;
    return text + "[[objects]]\nid = \"ns=4;s=Press\"\nparent = \"ns=2;i=5001\"\ntype = \"ns=4;i=1012\"\n";
  };
  const auto relaxed = config::load(plant("accept_older_models = true\n"), "plant.toml", ".", false);
  for (const auto& e : relaxed.errors) INFO(e.to_string());
  REQUIRE(relaxed.errors.empty());
  REQUIRE(relaxed.value.nodesets.size() == 3);
  CHECK(relaxed.value.nodesets[0].options.accept_older_models);

  // node-opcua-nodesets' DI asks for namespace 0 1.05.04, this build has 1.05.07: strict loads it
  // too (a newer RequiredModel is refused: config_bad/77-nodeset-required-model-newer.toml).
  const auto strict = config::load(plant(""), "plant.toml", ".", false);
  for (const auto& e : strict.errors) INFO(e.to_string());
  REQUIRE(strict.errors.empty());
  REQUIRE(strict.value.nodesets.size() == 3);
  CHECK_FALSE(strict.value.nodesets[0].options.accept_older_models);
}

TEST_CASE("config: runner = shadow with its workers and queue reaches the script plan", "[config]") {
  const auto r = config::load(R"([[namespaces]]
uri = "urn:test"

[[variables]]
id = "ns=2;s=P1"
type = "Double"

[[variables]]
id = "ns=2;s=Flow"
type = "Double"

[[virtual_tags]]
output = "ns=2;s=Flow"
inputs = { p = "ns=2;s=P1" }
expression = "p * 2"

[scripts]
runner = "shadow"
workers = 3
shadow_queue = 500
)", "shadow.toml", ".", false);
  for (const auto& e : r.errors) UNSCOPED_INFO(e.to_string());
  REQUIRE(r.errors.empty());
  CHECK(r.value.scripts.runner == script_runner::shadow);
  CHECK(r.value.scripts.workers == 3);
  CHECK(r.value.scripts.shadow_queue == 500);
  CHECK(r.value.scripts.scripts.size() == 1);
}

TEST_CASE("config: [redundancy] declares a warm pair: support, the set's URIs, ServiceLevel, the drop before stop",
          "[config]") {
  const std::string text = R"(
[redundancy]
support = "warm"
server_uris = ["urn:a:uactor:server", "urn:b:uactor:server"]
service_level = 190
)";
  const auto r = config::load(text, "plant.toml", ".", false);
  INFO((r.errors.empty() ? std::string() : r.errors[0].to_string()));
  REQUIRE(r.ok());
  const auto& red = r.value.server.redundancy;
  CHECK(red.support == redundancy_support::warm);
  CHECK(red.server_uris == std::vector<std::string>{"urn:a:uactor:server", "urn:b:uactor:server"});
  CHECK(red.service_level == 190);
  CHECK(red.shutdown_delay == std::chrono::milliseconds(1000));  // the default of a redundant server

  const auto none = config::load("", "plant.toml", ".", false);
  REQUIRE(none.ok());
  CHECK(none.value.server.redundancy.support == redundancy_support::none);
  CHECK(none.value.server.redundancy.shutdown_delay == std::chrono::milliseconds(0));
  CHECK(none.value.server.redundancy.service_level == 255);

  const auto hot = config::load("[redundancy]\nsupport = \"hot\"\nserver_uris = [\"urn:x\"]\nshutdown_delay_ms = 0\n",
                                "plant.toml", ".", false);
  REQUIRE(hot.ok());
  CHECK(hot.value.server.redundancy.support == redundancy_support::hot);
  CHECK(hot.value.server.redundancy.shutdown_delay == std::chrono::milliseconds(0));
}

TEST_CASE("config: [history] and historize = true on a variable", "[config][history]") {
  const auto r = config::load(R"(
[history]
path = "plant-history.sqlite"
retention_days = 30
max_values_per_node = 5000
historize = ["ns=1;s=Line1.*", "ns=1;i=7"]

[[variables]]
id = "ns=1;s=Boiler.Temperature"
type = "Double"
historize = true

[[variables]]
id = "ns=1;s=Boiler.Pressure"
type = "Double"
)", "plant.toml", std::filesystem::temp_directory_path().string(), false);
  REQUIRE(r.errors.empty());
  const auto& h = r.value.server.history;
  CHECK(h.backend == "sqlite");
  CHECK(h.path == (std::filesystem::temp_directory_path() / "plant-history.sqlite").string());  // by the plant file
  CHECK(h.retention_days == 30);
  CHECK(h.max_values_per_node == 5000);
  CHECK(h.historize == std::vector<std::string>{"ns=1;s=Line1.*", "ns=1;i=7"});
  CHECK_FALSE(h.updates);  // HistoryUpdate is opt-in (docs/decisions/0060)
  int historizing = 0;
  for (const auto& n : r.value.nodes) {
    const auto* v = std::get_if<variable_node>(&n);
    if (!v) continue;
    const bool temperature = v->id == node_id::string(1, "Boiler.Temperature");
    CHECK(v->historizing == temperature);
    CHECK(((v->access_level & access::history_read) != 0) == temperature);
    historizing += v->historizing ? 1 : 0;
  }
  CHECK(historizing == 1);
  // Without [history]: no store, nothing historizes by pattern.
  const auto none = config::load("", "plant.toml", std::filesystem::temp_directory_path().string(), false);
  REQUIRE(none.errors.empty());
  CHECK(none.value.server.history.path.empty());
  // The embedded default historizes the demo's dynamic variables in the working folder.
  const auto d = config::load(config::default_toml(), "(default)", ".", false);
  REQUIRE(d.errors.empty());
  CHECK(d.value.server.history.path == "./uactor-history.sqlite");
  CHECK(d.value.server.history.historize == std::vector<std::string>{"ns=1;s=Demo.Dynamic.*"});
  CHECK(d.value.server.history.updates);
}

TEST_CASE("config: [history.defaults] and [[history.configurations]] (Part 11 §5.2 HistoricalDataConfiguration)",
          "[config][history]") {
  const auto r = config::load(R"(
[history]
path = "plant-history.sqlite"
historize = ["ns=1;s=Line1.*"]

[history.defaults]
percent_data_good = 90
use_sloped_extrapolation = true

[[history.configurations]]
nodes = ["ns=1;s=Line1.Valve*", "ns=1;i=7"]
stepped = true
definition = "valve position"
treat_uncertain_as_bad = false
percent_data_bad = 40

[[history.configurations]]
nodes = ["ns=1;s=Line1.*"]
)", "plant.toml", std::filesystem::temp_directory_path().string(), false);
  REQUIRE(r.errors.empty());
  const auto& h = r.value.server.history;
  CHECK(h.defaults.percent_data_good == 90);
  CHECK(h.defaults.percent_data_bad == 100);
  CHECK(h.defaults.use_sloped_extrapolation);
  CHECK_FALSE(h.defaults.stepped);
  REQUIRE(h.configurations.size() == 2);
  CHECK(h.configurations[0].nodes == std::vector<std::string>{"ns=1;s=Line1.Valve*", "ns=1;i=7"});
  CHECK(h.configurations[0].stepped);
  CHECK(h.configurations[0].definition == "valve position");
  CHECK_FALSE(h.configurations[0].treat_uncertain_as_bad);
  CHECK(h.configurations[0].percent_data_bad == 40);
  CHECK(h.configurations[1].nodes == std::vector<std::string>{"ns=1;s=Line1.*"});
  CHECK_FALSE(h.configurations[1].stepped);
  // The embedded default: Toggle is Stepped.
  const auto d = config::load(config::default_toml(), "(default)", ".", false);
  REQUIRE(d.errors.empty());
  REQUIRE(d.value.server.history.configurations.size() == 1);
  CHECK(d.value.server.history.configurations[0].nodes == std::vector<std::string>{"ns=1;s=Demo.Dynamic.Toggle"});
  CHECK(d.value.server.history.configurations[0].stepped);
}

TEST_CASE("config: [[server.reverse_connect]] lists the clients to dial, with defaults, and refuses a bad URL",
          "[config]") {
  const std::string text = R"(
[[server.reverse_connect]]
client_url = "opc.tcp://scada.example:4843"

[[server.reverse_connect]]
client_url = "opc.tcp://historian.example:4844"
endpoint_url = "opc.tcp://plant-server.example:4840"
max_connections = 2
backoff_min_ms = 100
backoff_max_ms = 5000
)";
  const auto r = config::load(text, "plant.toml", ".", false);
  INFO((r.errors.empty() ? std::string() : r.errors[0].to_string()));
  REQUIRE(r.ok());
  const auto& rc = r.value.server.reverse_connect;
  REQUIRE(rc.size() == 2);
  CHECK(rc[0].client_url == "opc.tcp://scada.example:4843");
  CHECK(rc[0].endpoint_url.empty());  // the first endpoint's URL, decided at start
  CHECK(rc[0].max_connections == 1);
  CHECK(rc[0].backoff_min == std::chrono::milliseconds(500));
  CHECK(rc[0].backoff_max == std::chrono::milliseconds(30'000));
  CHECK(rc[1].endpoint_url == "opc.tcp://plant-server.example:4840");
  CHECK(rc[1].max_connections == 2);
  CHECK(rc[1].backoff_min == std::chrono::milliseconds(100));
  CHECK(rc[1].backoff_max == std::chrono::milliseconds(5000));

  const auto bad = config::load("[[server.reverse_connect]]\nclient_url = \"http://x:1\"\n", "plant.toml", ".", false);
  REQUIRE_FALSE(bad.ok());
  CHECK(bad.errors[0].to_string().find("server.reverse_connect[0].client_url") != std::string::npos);
  const auto missing = config::load("[[server.reverse_connect]]\nmax_connections = 1\n", "plant.toml", ".", false);
  CHECK_FALSE(missing.ok());
}
