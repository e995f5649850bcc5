// [[deviation_alarms]] and [[rate_of_change_alarms]] (Part 9 §5.8.22, §5.8.23) read into the embedding
// API's structures: the limit alarm's keys and each kind's own (setpoint, base_setpoint; window_ms,
// units). The bad forms are in tests/runtime/config_bad/190-194. [[trip_alarms]] (§5.8.24.4) and
// [[discrepancy_alarms]] (§5.8.25: target, expected_time_ms, tolerance) the same; bad forms 214-216.
// A limit's own deadband (`low_deadband`, 1.05): bad forms 219-220.
#include <catch2/catch.hpp>

#include "runtime/config/config.hpp"

namespace config_alarm_kinds_test {

using namespace uactor;

TEST_CASE("config: [[deviation_alarms]] and [[rate_of_change_alarms]] become the API's structures",
          "[config][alarms][deviation][rate]") {
  constexpr auto text = R"(
[server]
demo = false
[[namespaces]]
uri = "urn:test:reactor"
[[variables]]
id = "ns=2;s=Reactor.Temp"
[[variables]]
id = "ns=2;s=Reactor.TempSetpoint"
type = "Float"
[[variables]]
id = "ns=2;s=Reactor.TempBase"
type = "Int32"
[[deviation_alarms]]
id = "ns=2;s=Reactor.Temp.Deviation"
input = "ns=2;s=Reactor.Temp"
setpoint = "ns=2;s=Reactor.TempSetpoint"
base_setpoint = "ns=2;s=Reactor.TempBase"
high = 5
low = -5
deadband = 0.5
low_deadband = 1.5
exclusive = false
on_delay_ms = 2000
latching = true
[[rate_of_change_alarms]]
id = "ns=2;s=Reactor.Temp.Rate"
input = "ns=2;s=Reactor.Temp"
high = 2
low_low = -4
window_ms = 10000
units = { id = 4408652, name = "°C/s" }
[[rate_of_change_alarms]]
id = "ns=2;s=Reactor.Temp.Rate2"
input = "ns=2;s=Reactor.Temp"
high = 1
)";
  const auto r = config::load(text, "reactor.toml", ".", false);
  for (const auto& e : r.errors) INFO(e.to_string());
  REQUIRE(r.errors.empty());
  REQUIRE(r.value.deviation_alarms.size() == 1);
  const auto& d = r.value.deviation_alarms[0];
  CHECK(d.id == node_id::string(2, "Reactor.Temp.Deviation"));
  CHECK(d.input == node_id::string(2, "Reactor.Temp"));
  CHECK(d.setpoint == node_id::string(2, "Reactor.TempSetpoint"));
  CHECK(d.base_setpoint == node_id::string(2, "Reactor.TempBase"));
  CHECK(d.high == 5);
  CHECK(d.deadband == 0.5);
  CHECK(d.low_deadband == 1.5);  // Low's own (Part 9 1.05 LowDeadband); the others take `deadband`
  CHECK_FALSE(d.high_deadband.has_value());
  CHECK(d.low == -5);
  CHECK_FALSE(d.high_high);
  CHECK(d.deadband == 0.5);
  CHECK_FALSE(d.exclusive);
  CHECK(d.parameters.on_delay == std::chrono::milliseconds(2000));
  CHECK(d.parameters.latching);  // Part 9 LatchedState (docs/decisions/0076)
  REQUIRE(r.value.rate_of_change_alarms.size() == 2);
  const auto& rate = r.value.rate_of_change_alarms[0];
  CHECK(rate.name == "Rate");
  CHECK(rate.high == 2);
  CHECK(rate.low_low == -4);
  CHECK(rate.window == std::chrono::milliseconds(10'000));
  REQUIRE(rate.units);
  CHECK(rate.units->unit_id == 4408652);
  CHECK(std::string(rate.units->display_name.text.view()) == "°C/s");
  const auto& plain = r.value.rate_of_change_alarms[1];
  CHECK(plain.window == std::chrono::milliseconds(1'000));  // the default window
  CHECK_FALSE(plain.units);
  CHECK_FALSE(plain.parameters.latching);
  CHECK(r.value.limit_alarms.empty());
}

TEST_CASE("config: [[alarm_groups]], an alarm's groups and the chattering keys become the API's structures",
          "[config][alarms][groups]") {
  constexpr auto text = R"(
[server]
demo = false
alarm_chattering_count = 5
alarm_chattering_window_ms = 600000
[[namespaces]]
uri = "urn:test:plant"
[[objects]]
id = "ns=2;s=Plant"
[[variables]]
id = "ns=2;s=Plant.Level"
[[variables]]
id = "ns=2;s=Plant.Trip"
type = "Boolean"
[[alarm_groups]]
id = "ns=2;s=Plant.Operator1"
parent = "ns=2;s=Plant"
[[alarm_groups]]
id = "ns=2;s=Plant.Maintenance"
name = "Maintenance alarms"
[[limit_alarms]]
id = "ns=2;s=Plant.Level.Alarm"
input = "ns=2;s=Plant.Level"
high = 80
groups = ["ns=2;s=Plant.Operator1", "ns=2;s=Plant.Maintenance"]
[[discrete_alarms]]
id = "ns=2;s=Plant.Trip.Alarm"
input = "ns=2;s=Plant.Trip"
groups = ["ns=2;s=Plant.Maintenance"]
)";
  const auto r = config::load(text, "plant.toml", ".", false);
  for (const auto& e : r.errors) INFO(e.to_string());
  REQUIRE(r.errors.empty());
  CHECK(r.value.server.alarm_chattering_count == 5);
  CHECK(r.value.server.alarm_chattering_window == std::chrono::milliseconds(600'000));
  REQUIRE(r.value.alarm_groups.size() == 2);
  CHECK(r.value.alarm_groups[0].id == node_id::string(2, "Plant.Operator1"));
  CHECK(r.value.alarm_groups[0].parent == node_id::string(2, "Plant"));
  CHECK(r.value.alarm_groups[1].name == "Maintenance alarms");
  CHECK(r.value.alarm_groups[1].parent.is_null());
  REQUIRE(r.value.limit_alarms.size() == 1);
  CHECK(r.value.limit_alarms[0].groups ==
        std::vector<node_id>{node_id::string(2, "Plant.Operator1"), node_id::string(2, "Plant.Maintenance")});
  REQUIRE(r.value.discrete_alarms.size() == 1);
  CHECK(r.value.discrete_alarms[0].groups == std::vector<node_id>{node_id::string(2, "Plant.Maintenance")});
}

TEST_CASE("config: [[trip_alarms]] and [[discrepancy_alarms]] become the API's structures",
          "[config][alarms][trip][discrepancy]") {
  constexpr auto text = R"(
[server]
demo = false
[[namespaces]]
uri = "urn:test:pump"
[[variables]]
id = "ns=2;s=Pump.Overload"
type = "Boolean"
[[variables]]
id = "ns=2;s=Pump.Start"
type = "Boolean"
[[variables]]
id = "ns=2;s=Pump.Running"
type = "Boolean"
[[variables]]
id = "ns=2;s=Valve.Demand"
[[variables]]
id = "ns=2;s=Valve.Position"
type = "Float"
[[trip_alarms]]
id = "ns=2;s=Pump.Overload.Trip"
input = "ns=2;s=Pump.Overload"
severity = 900
latching = true
[[discrepancy_alarms]]
id = "ns=2;s=Pump.Running.Discrepancy"
input = "ns=2;s=Pump.Running"
target = "ns=2;s=Pump.Start"
expected_time_ms = 5000
[[discrepancy_alarms]]
id = "ns=2;s=Valve.Position.Discrepancy"
input = "ns=2;s=Valve.Position"
target = "ns=2;s=Valve.Demand"
expected_time_ms = 10000
tolerance = 1.5
severity = 650
on_delay_ms = 1000
)";
  const auto r = config::load(text, "pump.toml", ".", false);
  for (const auto& e : r.errors) INFO(e.to_string());
  REQUIRE(r.errors.empty());
  REQUIRE(r.value.trip_alarms.size() == 1);
  const auto& t = r.value.trip_alarms[0];
  CHECK(t.id == node_id::string(2, "Pump.Overload.Trip"));
  CHECK(t.name == "Trip");
  CHECK(t.normal == ua::variant(false));
  CHECK(t.severity == 900);
  CHECK(t.parameters.latching);
  CHECK(r.value.off_normal_alarms.empty());
  REQUIRE(r.value.discrepancy_alarms.size() == 2);
  const auto& b = r.value.discrepancy_alarms[0];
  CHECK(b.input == node_id::string(2, "Pump.Running"));
  CHECK(b.target == node_id::string(2, "Pump.Start"));
  CHECK(b.expected_time == std::chrono::milliseconds(5'000));
  CHECK_FALSE(b.tolerance);
  CHECK(b.severity == 500);
  const auto& v = r.value.discrepancy_alarms[1];
  CHECK(v.target == node_id::string(2, "Valve.Demand"));
  CHECK(v.expected_time == std::chrono::milliseconds(10'000));
  REQUIRE(v.tolerance);
  CHECK(*v.tolerance == 1.5);
  CHECK(v.severity == 650);
  CHECK(v.parameters.on_delay == std::chrono::milliseconds(1'000));
}

}  // namespace config_alarm_kinds_test
