// node-opcua's client against events raised through the embedding API (docs/events.md): a runtime with a
// server on port 0, tests/interop/node_events.js subscribing to the Server object's events with
// select clauses and a where clause, events raised with server::raise_events once it is ready.
// Hidden ([.]): events_interop.sh runs it when node and node_modules are there.
#include <catch2/catch.hpp>

#include <cstdio>
#include <functional>
#include <map>
#include <string>
#include <vector>

#include "uactor/runtime.hpp"

using namespace uactor;

namespace {

event make_event(std::uint16_t severity, const char* message) {
  event e;
  e.severity = severity;
  e.message = ua::localized_text{ua::ua_string("en"), ua::ua_string(message)};
  return e;
}

std::string trim(std::string s) {
  while (!s.empty() && (s.back() == '\n' || s.back() == '\r')) s.pop_back();
  return s;
}

}  // namespace

TEST_CASE("events interop: node-opcua receives the events that pass its where clause, with its select clauses",
          "[.][interop-events]") {
  runtime rt;
  auto plan = default_server_plan();
  plan.listen_address = "127.0.0.1";
  plan.port = 0;
  plan.security = {"none"};
  auto started = rt.start_server(plan);
  REQUIRE(started.has_value());
  server& srv = **started;

  const std::string cmd = "node " UACTOR_SOURCE_DIR "/tests/interop/node_events.js opc.tcp://127.0.0.1:" +
                          std::to_string(srv.port()) + " --expect 2 --timeout 30";
  FILE* node = popen(cmd.c_str(), "r");
  REQUIRE(node);
  std::vector<std::string> lines;
  char buf[512];
  bool raised = false;
  // Bounded: node_events.js exits by itself within 30 s, which ends this loop.
  while (std::fgets(buf, sizeof buf, node)) {
    lines.push_back(trim(buf));
    if (lines.back() == "ready" && !raised) {
      raised = true;
      const std::vector<event> events{make_event(600, "pump 1 tripped"), make_event(100, "pump 1 low flow"),
                                      make_event(900, "valve 3 stuck"), make_event(950, "pump 2 tripped")};
      REQUIRE(srv.raise_events(events) == status::good);
    }
  }
  const int rc = pclose(node);
  INFO("node_events.js said:\n" << [&] {
    std::string all;
    for (const auto& l : lines) all += l + "\n";
    return all;
  }());
  CHECK(rc == 0);
  const std::vector<std::string> want{"ready", "event 600 pump 1 tripped Server ns=0;i=2041 16",
                                      "event 950 pump 2 tripped Server ns=0;i=2041 16", "done"};
  CHECK(lines == want);
}

TEST_CASE("events interop: node-opcua acknowledges and confirms a limit alarm, then ConditionRefresh",
          "[.][interop-events]") {
  runtime rt;
  auto plan = default_server_plan();
  plan.listen_address = "127.0.0.1";
  plan.port = 0;
  plan.security = {"none"};
  auto started = rt.start_server(plan);
  REQUIRE(started.has_value());
  server& srv = **started;
  const std::uint16_t ns = srv.register_namespace("urn:test:alarms");
  variable_node level;
  level.id = node_id::string(ns, "Tank.Level");
  level.parent = ns0::objects_folder;
  level.browse_name = qualified_name{ns, ua::ua_string("TankLevel")};
  level.data_type = ns0::double_;
  level.value.set_value(50.0);
  REQUIRE(srv.apply(level) == status::good);
  limit_alarm alarm;
  alarm.id = node_id::string(ns, "Tank.Level.Alarm");
  alarm.input = level.id;
  alarm.name = "TankLevelAlarm";
  alarm.high_high = 90;
  alarm.high = 70;
  alarm.deadband = 1;
  REQUIRE(srv.add_limit_alarm(alarm) == status::good);
  auto handle = srv.resolve(level.id);
  REQUIRE(handle.has_value());

  const std::string cmd = "node " UACTOR_SOURCE_DIR "/tests/interop/node_events.js opc.tcp://127.0.0.1:" +
                          std::to_string(srv.port()) + " --alarms --timeout 30";
  FILE* node = popen(cmd.c_str(), "r");
  REQUIRE(node);
  std::vector<std::string> lines;
  char buf[512];
  while (std::fgets(buf, sizeof buf, node)) {  // bounded by the script's own timeout
    lines.push_back(trim(buf));
    if (lines.back() == "ready") {
      value_update u;
      u.node = *handle;
      u.value = 80.0;
      REQUIRE(srv.write_values(std::span(&u, 1)) == status::good);
    }
  }
  const int rc = pclose(node);
  INFO("node_events.js said:\n" << [&] {
    std::string all;
    for (const auto& l : lines) all += l + "\n";
    return all;
  }());
  CHECK(rc == 0);
  const std::vector<std::string> want{"ready",
                                      "active 700 TankLevelAlarm High",
                                      "ack Good",
                                      "ack-old-event BadEventIdUnknown",
                                      "acked",
                                      "confirm Good",
                                      "confirmed retain=true",
                                      "refresh Good",
                                      "refresh-start",
                                      "refreshed TankLevelAlarm active=true acked=true",
                                      "refresh-end",
                                      "done"};
  CHECK(lines == want);
}

namespace {

// A runtime serving a Double (Tank.Level, 50) and a Boolean (Pump.Dry, false) for the alarms of
// the two tests below; node_events.js --alarms drives the Part 9 flow once `ready`.
struct alarm_bench {
  runtime rt;
  server* srv = nullptr;
  node_id level, dry;

  alarm_bench() {
    auto plan = default_server_plan();
    plan.listen_address = "127.0.0.1";
    plan.port = 0;
    plan.security = {"none"};
    auto started = rt.start_server(plan);
    REQUIRE(started.has_value());
    srv = *started;
    const std::uint16_t ns = srv->register_namespace("urn:test:alarms");
    level = node_id::string(ns, "Tank.Level");
    dry = node_id::string(ns, "Pump.Dry");
    variable_node v;
    v.id = level;
    v.parent = ns0::objects_folder;
    v.browse_name = qualified_name{ns, ua::ua_string("TankLevel")};
    v.data_type = ns0::double_;
    v.value.set_value(50.0);
    REQUIRE(srv->apply(v) == status::good);
    v.id = dry;
    v.browse_name = qualified_name{ns, ua::ua_string("PumpDry")};
    v.data_type = ns0::boolean;
    v.value.set_value(false);
    REQUIRE(srv->apply(v) == status::good);
  }

  void write(const node_id& input, ua::variant value) {
    auto handle = srv->resolve(input);
    REQUIRE(handle.has_value());
    value_update u;
    u.node = *handle;
    u.value = std::move(value);
    REQUIRE(srv->write_values(std::span(&u, 1)) == status::good);
  }

  // Runs node_events.js with `flags`, handing each line it prints to `on_line`. Its lines.
  std::vector<std::string> run(const std::string& flags, const std::function<void(const std::string&)>& on_line) {
    const std::string cmd = "node " UACTOR_SOURCE_DIR "/tests/interop/node_events.js opc.tcp://127.0.0.1:" +
                            std::to_string(srv->port()) + " " + flags + " --timeout 30";
    FILE* node = popen(cmd.c_str(), "r");
    REQUIRE(node);
    std::vector<std::string> lines;
    char buf[512];
    while (std::fgets(buf, sizeof buf, node)) {  // bounded by the script's own timeout
      lines.push_back(trim(buf));
      on_line(lines.back());
    }
    CHECK(pclose(node) == 0);
    return lines;
  }

  // Runs node_events.js with `flags`; at `ready` writes `value` to `input`.
  std::vector<std::string> run(const std::string& flags, const node_id& input, ua::variant value) {
    return run(flags, [&](const std::string& line) {
      if (line == "ready") write(input, value);
    });
  }
};

std::string joined(const std::vector<std::string>& lines) {
  std::string all;
  for (const auto& l : lines) all += l + "\n";
  return all;
}

}  // namespace

TEST_CASE("events interop: node-opcua sees HighHigh and High active at once on a non-exclusive limit alarm",
          "[.][interop-events]") {
  alarm_bench b;
  limit_alarm alarm;
  alarm.id = node_id::string(b.level.namespace_index(), "Tank.Level.Alarm");
  alarm.input = b.level;
  alarm.name = "TankLevelAlarm";
  alarm.high_high = 90;
  alarm.high = 70;
  alarm.low = 20;
  alarm.exclusive = false;
  REQUIRE(b.srv->add_limit_alarm(alarm) == status::good);
  const auto lines = b.run("--alarms --states", b.level, 95.0);
  INFO("node_events.js said:\n" << joined(lines));
  const std::vector<std::string> want{"ready",
                                      "active 900 TankLevelAlarm HighHigh, High hh=true h=true l=false ll=null",
                                      "ack Good",
                                      "ack-old-event BadEventIdUnknown",
                                      "acked",
                                      "confirm Good",
                                      "confirmed retain=true",
                                      "refresh Good",
                                      "refresh-start",
                                      "refreshed TankLevelAlarm active=true acked=true",
                                      "refresh-end",
                                      "done"};
  CHECK(lines == want);
}

TEST_CASE("events interop: node-opcua acknowledges and confirms a discrete alarm, then ConditionRefresh",
          "[.][interop-events]") {
  alarm_bench b;
  discrete_alarm alarm;
  alarm.id = node_id::string(b.dry.namespace_index(), "Pump.Dry.Alarm");
  alarm.input = b.dry;
  alarm.name = "PumpDry";
  alarm.active = true;
  alarm.severity = 650;
  REQUIRE(b.srv->add_discrete_alarm(alarm) == status::good);
  const auto lines = b.run("--alarms", b.dry, true);
  INFO("node_events.js said:\n" << joined(lines));
  const std::vector<std::string> want{"ready",
                                      "active 650 PumpDry active",
                                      "ack Good",
                                      "ack-old-event BadEventIdUnknown",
                                      "acked",
                                      "confirm Good",
                                      "confirmed retain=true",
                                      "refresh Good",
                                      "refresh-start",
                                      "refreshed PumpDry active=true acked=true",
                                      "refresh-end",
                                      "done"};
  CHECK(lines == want);
}

TEST_CASE("events interop: ConditionRefresh on a new connection sends node-opcua exactly the retained conditions",
          "[.][interop-events]") {
  alarm_bench b;
  const std::uint16_t ns = b.level.namespace_index();
  // Four discrete alarms PumpA..PumpD (Part 9 §5.8.24.1) on the Booleans A..D, all false.
  std::map<std::string, node_id> inputs;
  for (const char* n : {"A", "B", "C", "D"}) {
    variable_node v;
    v.id = node_id::string(ns, std::string("Pump.") + n);
    v.parent = ns0::objects_folder;
    v.browse_name = qualified_name{ns, ua::ua_string(std::string("Pump") + n)};
    v.data_type = ns0::boolean;
    v.value.set_value(false);
    REQUIRE(b.srv->apply(v) == status::good);
    discrete_alarm alarm;
    alarm.id = node_id::string(ns, std::string("Pump.") + n + ".Alarm");
    alarm.input = v.id;
    alarm.name = std::string("Pump") + n;
    REQUIRE(b.srv->add_discrete_alarm(alarm) == status::good);
    inputs[n] = v.id;
  }
  const auto lines = b.run("--refresh-after-reconnect", [&](const std::string& line) {
    // `set <input> <true|false>`
    if (line.rfind("set ", 0) != 0 || line.size() < 7) return;
    const auto it = inputs.find(line.substr(4, 1));
    REQUIRE(it != inputs.end());
    b.write(it->second, line.substr(6) == "true");
  });
  INFO("node_events.js said:\n" << joined(lines));
  const std::string n = "ns=" + std::to_string(ns) + ";s=Pump.";
  // Retain (Part 9 §5.5.2): A active; B back to normal but unacknowledged; C acknowledged,
  // confirmed and back to normal: not retained, so not refreshed; D never active: no event at all.
  const std::vector<std::string> want{
      "set A true",
      "set B true",
      "set C true",
      "set B false",
      "ack PumpC Good",
      "confirm PumpC Good",
      "set C false",
      "before PumpA " + n + "A.Alarm " + n + "A active=true acked=false confirmed=true retain=true",
      "before PumpB " + n + "B.Alarm " + n + "B active=false acked=false confirmed=true retain=true",
      "before PumpC " + n + "C.Alarm " + n + "C active=false acked=true confirmed=true retain=false",
      "refresh Good",
      "refreshed PumpA " + n + "A.Alarm " + n + "A active=true acked=false confirmed=true retain=true",
      "refreshed PumpB " + n + "B.Alarm " + n + "B active=false acked=false confirmed=true retain=true",
      "refresh-end",
      "done"};
  CHECK(lines == want);
}
