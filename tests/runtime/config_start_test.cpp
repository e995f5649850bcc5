// A plant file started: its namespaces, nodes and writers served through the embedding API, read
// back over a socket by our client. Bounded in time (the writer's tick is 20 ms; 5 s at most).
#include <catch2/catch.hpp>

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <thread>

#include <spdlog/spdlog.h>

#include "uactor/ua/attribute_ids.hpp"
#include "uactor/ua/node_ids.hpp"
#include "runtime/config/config.hpp"
#include "runtime/config/start.hpp"
#include "uactor/runtime.hpp"

using namespace uactor;
using namespace std::chrono_literals;

namespace {

constexpr auto plant_text = R"(
[server]
demo = false
product_name = "Plant X"
manufacturer_name = "ACME"
[[server.endpoints]]
listen_address = "127.0.0.1"
port = 0
security = ["none"]

[[namespaces]]
uri = "urn:test:plant"

[[folders]]
id = "ns=2;s=Plant"

[[variables]]
id = "ns=2;s=Plant.Setpoint"
parent = "ns=2;s=Plant"
type = "Double"
value = 42.5
access = "read_write"

[[variables]]
id = "ns=2;s=Plant.Count{i}"
parent = "ns=2;s=Plant"
count = 100
type = "UInt32"

[[writers]]
kind = "counter"
interval_ms = 20
min = 0
max = 1000000
targets = ["ns=2;s=Plant.Count{i}"]
count = 100
)";

ua::data_value read(client& c, const node_id& node) {
  ua::read_request r;
  r.nodes_to_read.resize(1);
  r.nodes_to_read[0].node_id = node;
  r.nodes_to_read[0].attribute_id = static_cast<std::uint32_t>(ua::attribute_id::value);
  auto resp = c.read_sync(r);
  REQUIRE(resp.has_value());
  REQUIRE(resp->results.size() == 1);
  return resp->results[0];
}

}  // namespace

TEST_CASE("config: a started plant serves its nodes, and its writers change them", "[config]") {
  auto loaded = config::load(plant_text, "plant.toml", ".", false);
  REQUIRE(loaded.errors.empty());
  config::plant_runner runner;
  std::string error;
  REQUIRE(runner.start(loaded.value, error));
  REQUIRE(runner.server() != nullptr);

  runtime client_side;
  client_options o;
  o.endpoint_url = "opc.tcp://127.0.0.1:" + std::to_string(runner.server()->port());
  auto c = client_side.connect(o);
  REQUIRE(c.has_value());

  const auto sp = read(*c, node_id::string(2, "Plant.Setpoint"));
  REQUIRE(sp.value.get_if<double>() != nullptr);
  CHECK(*sp.value.get_if<double>() == 42.5);
  const auto product = read(*c, node_id(0, ua::ids::server_server_status_build_info_product_name));
  REQUIRE(product.value.get_if<ua::ua_string>());
  CHECK(product.value.get_if<ua::ua_string>()->view() == "Plant X");
  const auto maker = read(*c, node_id(0, ua::ids::server_server_status_build_info_manufacturer_name));
  REQUIRE(maker.value.get_if<ua::ua_string>());
  CHECK(maker.value.get_if<ua::ua_string>()->view() == "ACME");

  // The counter's 100 targets move together, one a tick.
  std::uint32_t first = 0, later = 0;
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (std::chrono::steady_clock::now() < deadline) {
    const auto v = read(*c, node_id::string(2, "Plant.Count99"));
    if (const auto* n = v.value.get_if<std::uint32_t>()) {
      if (first == 0) first = *n;
      later = *n;
      if (first > 0 && later >= first + 3) break;
    }
    std::this_thread::sleep_for(20ms);
  }
  CHECK(first > 0);
  CHECK(later >= first + 3);
  c->close();
  client_side.stop();
  runner.stop();
  // Every tick but each writer's first was measured for how late it ran (/metrics, actor="writers").
  CHECK(runner.writer_cycles() >= 4);
  CHECK(runner.writer_waits() == runner.writer_cycles() - 1);
  CHECK(runner.writer_wait_ns() > 0);
}

TEST_CASE("config: a plant's [[nodesets]] file is loaded before its nodes, which hang below the NodeSet's", "[config]") {
  // small.NodeSet2.xml's urn:test:small gets index 3, after the file's [[namespaces]].
  const auto small = std::filesystem::path(UACTOR_SOURCE_DIR) / "tests/fuzz/nodeset_seeds/small.NodeSet2.xml";
  const std::string text = R"(
[server]
demo = false
[[server.endpoints]]
listen_address = "127.0.0.1"
port = 0
security = ["none"]
[[namespaces]]
uri = "urn:test:plant"
[[nodesets]]
path = ")" + small.string() + R"("
[[objects]]
id = "ns=2;s=Pump1.Motor"
parent = "ns=3;s=Pump1"
[[variables]]
id = "ns=2;s=Pump1.Motor.Current"
parent = "ns=2;s=Pump1.Motor"
type = "Double"
value = 7.5
)";
  auto loaded = config::load(text, "plant.toml", ".", false);
  for (const auto& e : loaded.errors) INFO(e.to_string());
  REQUIRE(loaded.errors.empty());
  config::plant_runner runner;
  std::string error;
  INFO(error);
  REQUIRE(runner.start(loaded.value, error));

  runtime client_side;
  client_options o;
  o.endpoint_url = "opc.tcp://127.0.0.1:" + std::to_string(runner.server()->port());
  auto c = client_side.connect(o);
  REQUIRE(c.has_value());
  const auto ns = read(*c, node_id(0, ua::ids::server_namespace_array));
  const auto* uris = ns.value.get_if<ua::ua_array<ua::ua_string>>();
  REQUIRE(uris);
  REQUIRE(uris->size() == 4);
  CHECK((*uris)[3].view() == "urn:test:small");
  const auto speed = read(*c, node_id(3, 1001));  // the NodeSet's PumpType.Speed, its Value from the file
  REQUIRE(speed.value.get_if<std::int32_t>());
  CHECK(*speed.value.get_if<std::int32_t>() == 42);
  const auto current = read(*c, node_id::string(2, "Pump1.Motor.Current"));
  REQUIRE(current.value.get_if<double>());
  CHECK(*current.value.get_if<double>() == 7.5);

  // The plant's object is a child of the NodeSet's Pump1 (HasComponent, the default).
  ua::browse_request b;
  ua::browse_description d;
  d.node_id = node_id::string(3, "Pump1");
  d.browse_direction = ua::browse_direction::forward;
  d.include_subtypes = true;
  d.reference_type_id = ua::node_id(0, 33);  // HierarchicalReferences
  d.result_mask = 63;
  b.nodes_to_browse.push_back(d);
  auto browsed = c->browse_sync(b);
  REQUIRE(browsed.has_value());
  REQUIRE(browsed->results.size() == 1);
  bool motor = false;
  for (const auto& r : browsed->results[0].references)
    motor = motor || r.node_id.id == node_id::string(2, "Pump1.Motor");
  CHECK(motor);
  c->close();
  client_side.stop();
  runner.stop();
}

TEST_CASE("config: a plant whose NodeSet file cannot be read does not start, and says which", "[config]") {
  config::plant p;
  p.server = default_server_plan();
  p.server.port = 0;
  p.server.listen_address = "127.0.0.1";
  p.server.security = {"none"};
  const auto gone = std::filesystem::temp_directory_path() / ("uactor-no-such-" + std::to_string(::getpid()) + ".xml");
  p.nodesets.push_back({gone.string(), {}});
  config::plant_runner runner;
  std::string error;
  CHECK_FALSE(runner.start(p, error));
  CHECK(error.find(gone.string()) != std::string::npos);
}

TEST_CASE("config: JSON log lines escape what the message holds", "[config]") {
  const auto dir = std::filesystem::temp_directory_path() / ("uactor-json-log-" + std::to_string(::getpid()));
  std::filesystem::create_directories(dir);
  config::logging_spec l;
  l.format = "json";
  l.file = (dir / "log.jsonl").string();
  auto previous = spdlog::default_logger();
  config::apply_logging(l);
  spdlog::info("user \"o'brien\\x\" said:\nhello\t\x01");
  spdlog::default_logger()->flush();
  spdlog::set_default_logger(previous);
  std::ifstream in(dir / "log.jsonl");
  std::string line;
  REQUIRE(std::getline(in, line));
  CHECK_THAT(line, Catch::EndsWith(R"("message":"user \"o'brien\\x\" said:\nhello\t\u0001"})"));
  CHECK_THAT(line, Catch::StartsWith(R"({"time":")"));
  CHECK_FALSE(std::getline(in, line));  // one line: the newline of the message is escaped
  std::filesystem::remove_all(dir);
}

TEST_CASE("config: a discrete alarm whose input only the server knows refuses the start, naming the alarm",
          "[config][alarms]") {
  constexpr auto text = R"(
[server]
demo = false
[[server.endpoints]]
listen_address = "127.0.0.1"
port = 0
security = ["none"]
[[namespaces]]
uri = "urn:test:tank"
[[variables]]
id = "ns=2;s=Tank.Level"
[[limit_alarms]]
id = "ns=2;s=Tank.Level.Alarm"
input = "ns=2;s=Tank.Level"
high = 80
exclusive = false
[[discrete_alarms]]
id = "ns=2;s=Server.Alarm"
input = "i=2253"
)";
  auto loaded = config::load(text, "plant.toml", ".", false);
  REQUIRE(loaded.errors.empty());
  config::plant_runner runner;
  std::string error;
  CHECK_FALSE(runner.start(loaded.value, error));
  CHECK(error.starts_with("discrete alarm ns=2;s=Server.Alarm (input i=2253) could not be added: BadNodeClassInvalid"));
}

TEST_CASE("config: an alarm whose input only the server knows refuses the start, naming the alarm", "[config][alarms]") {
  constexpr auto text = R"(
[server]
demo = false
[[server.endpoints]]
listen_address = "127.0.0.1"
port = 0
security = ["none"]
[[namespaces]]
uri = "urn:test:tank"
[[variables]]
id = "ns=2;s=Tank.Level"
[[limit_alarms]]
id = "ns=2;s=Tank.Level.Alarm"
input = "ns=2;s=Tank.Level"
high = 80
[[off_normal_alarms]]
id = "ns=2;s=Server.Alarm"
input = "i=2253"
)";
  auto loaded = config::load(text, "plant.toml", ".", false);
  REQUIRE(loaded.errors.empty());
  config::plant_runner runner;
  std::string error;
  CHECK_FALSE(runner.start(loaded.value, error));
  CHECK(error.starts_with("off-normal alarm ns=2;s=Server.Alarm (input i=2253) could not be added: BadNodeClassInvalid"));
}

namespace {

constexpr auto methods_text = R"(
[server]
demo = false
hello_timeout_ms = 300
max_browse_continuation_points = 3
[[server.endpoints]]
listen_address = "127.0.0.1"
port = 0
security = ["none"]

[actors]
writers = "detached"

[[namespaces]]
uri = "urn:test:pump"

[[objects]]
id = "ns=2;s=Pump"

[[variables]]
id = "ns=2;s=Pump.Running"
parent = "ns=2;s=Pump"
type = "Boolean"

[[variables]]
id = "ns=2;s=Pump.Speed"
parent = "ns=2;s=Pump"
value = 10.0

[[variables]]
id = "ns=2;s=Pump.Starts"
parent = "ns=2;s=Pump"
type = "UInt32"
value = 7

[[variables]]
id = "ns=2;s=Pump.Ticks"
parent = "ns=2;s=Pump"
type = "UInt32"

[[methods]]
id = "ns=2;s=Pump.Start"
parent = "ns=2;s=Pump"
handler = "set"
targets = ["ns=2;s=Pump.Running", "ns=2;s=Pump.Starts"]
value = 1

[[methods]]
id = "ns=2;s=Pump.SetSpeed"
parent = "ns=2;s=Pump"
handler = "write"
targets = ["ns=2;s=Pump.Speed"]

[[methods]]
id = "ns=2;s=Pump.Reset"
parent = "ns=2;s=Pump"
handler = "reset"
targets = ["ns=2;s=Pump.Running", "ns=2;s=Pump.Speed", "ns=2;s=Pump.Starts"]

[[writers]]
kind = "counter"
interval_ms = 20
max = 1000000
targets = ["ns=2;s=Pump.Ticks"]
)";

ua::status_code call(client& c, std::string_view method, std::vector<ua::variant> inputs = {}) {
  ua::call_request r;
  r.methods_to_call.resize(1);
  r.methods_to_call[0].object_id = node_id::string(2, "Pump");
  r.methods_to_call[0].method_id = node_id::string(2, std::string(method));
  for (auto& v : inputs) r.methods_to_call[0].input_arguments.push_back(std::move(v));
  auto resp = c.call_sync(r);
  REQUIRE(resp.has_value());
  REQUIRE(resp->results.size() == 1);
  return resp->results[0].status_code;
}

template <class T>
T value_of(client& c, std::string_view node) {
  const auto v = read(c, node_id::string(2, std::string(node)));
  REQUIRE(v.value.get_if<T>() != nullptr);
  return *v.value.get_if<T>();
}

}  // namespace

TEST_CASE("config: methods with built-in handlers set their targets, and the file's limits reach the server",
          "[config]") {
  auto loaded = config::load(methods_text, "methods.toml", ".", false);
  REQUIRE(loaded.errors.empty());
  config::plant_runner runner;
  std::string error;
  REQUIRE(runner.start(loaded.value, error));
  const auto port = runner.server()->port();

  runtime client_side;
  client_options o;
  o.endpoint_url = "opc.tcp://127.0.0.1:" + std::to_string(port);
  auto c = client_side.connect(o);
  REQUIRE(c.has_value());

  // set: every target the file's value in its type; seen by the next Read (the batch is applied
  // before the Call's answer).
  CHECK(call(*c, "Pump.Start") == ua::status::good);
  CHECK(value_of<bool>(*c, "Pump.Running"));
  CHECK(value_of<std::uint32_t>(*c, "Pump.Starts") == 1);
  // write: the inputs, checked against InputArguments by the server.
  CHECK(call(*c, "Pump.SetSpeed", {ua::variant(42.5)}) == ua::status::good);
  CHECK(value_of<double>(*c, "Pump.Speed") == 42.5);
  CHECK(call(*c, "Pump.SetSpeed", {ua::variant(ua::ua_string("fast"))}) == ua::status::bad_invalid_argument);
  CHECK(call(*c, "Pump.SetSpeed") == ua::status::bad_arguments_missing);
  CHECK(value_of<double>(*c, "Pump.Speed") == 42.5);
  // reset: the file's initial values (Boolean false when none is given).
  CHECK(call(*c, "Pump.Reset") == ua::status::good);
  CHECK_FALSE(value_of<bool>(*c, "Pump.Running"));
  CHECK(value_of<double>(*c, "Pump.Speed") == 10.0);
  CHECK(value_of<std::uint32_t>(*c, "Pump.Starts") == 7);

  // A detached writer ticks like one on the scheduler.
  const auto ticks = value_of<std::uint32_t>(*c, "Pump.Ticks");
  const auto deadline = std::chrono::steady_clock::now() + 5s;
  while (value_of<std::uint32_t>(*c, "Pump.Ticks") < ticks + 3 && std::chrono::steady_clock::now() < deadline)
    std::this_thread::sleep_for(20ms);
  CHECK(value_of<std::uint32_t>(*c, "Pump.Ticks") >= ticks + 3);

  // server.max_browse_continuation_points is what ServerCapabilities says.
  const auto points = read(*c, node_id(0, ua::ids::server_server_capabilities_max_browse_continuation_points));
  REQUIRE(points.value.get_if<std::uint16_t>() != nullptr);
  CHECK(*points.value.get_if<std::uint16_t>() == 3);

  // server.hello_timeout_ms: a connection that never says Hello is closed (housekeeping runs each
  // second: within 300 ms + 1 s, here at most 5 s).
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  REQUIRE(::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0);
  timeval tv{5, 0};
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof tv);
  const auto connected = std::chrono::steady_clock::now();
  char buffer[256];
  ssize_t got = 0;
  for (int reads = 0; reads < 16 && (got = ::recv(fd, buffer, sizeof buffer, 0)) > 0; ++reads) {
  }  // an ERR message (Part 6 §7.1.2.5) may come first
  CHECK(got == 0);  // closed by the server, not the 5 s receive timeout
  CHECK(std::chrono::steady_clock::now() - connected < 4s);
  ::close(fd);

  c->close();
  client_side.stop();
  runner.stop();
}

TEST_CASE("config: a node the server still refuses at start is named at its line and column", "[config]") {
  // The checker applies the nodes as the server does; turning the demo on after the check stands
  // for what it could not see.
  constexpr auto text = R"(
[server]
demo = false
[[server.endpoints]]
listen_address = "127.0.0.1"
port = 0
security = ["none"]
[[folders]]
id = "ns=1;s=Demo"
)";
  auto loaded = config::load(text, "plant.toml", ".", false);
  REQUIRE(loaded.errors.empty());
  REQUIRE(loaded.value.node_places.size() == loaded.value.nodes.size());
  loaded.value.server.demo = true;
  config::plant_runner runner;
  std::string error;
  CHECK_FALSE(runner.start(loaded.value, error));
  INFO(error);
  CHECK(error.starts_with("plant.toml:9:6: folders[0].id: the node ns=1;s=Demo could not be added: BadNodeIdExists"));
}
