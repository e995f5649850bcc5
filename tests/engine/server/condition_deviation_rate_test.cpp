// Deviation alarms (Part 9 §5.8.22) and rate-of-change alarms (§5.8.23) through server_core with a
// passed-in clock: the limit state machines of §5.8.18 (exclusive) and §5.8.20 (non-exclusive) on the
// input minus its setpoint and on the input's rate per second over a window (docs/decisions/0070),
// each through a table of input values, setpoint changes and ticks with the events expected.
// Discrepancy alarms (§5.8.25 of 1.05, docs/decisions/0081: the input against a target within
// ExpectedTime) and trip alarms (§5.8.24.4) the same way.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "engine/server/server_core.hpp"
#include "tests/engine/server/condition_client.hpp"
#include "uactor/ua/node_ids.hpp"

// Everything in a namespace of its own (docs/decisions/0050).
namespace server_condition_deviation_rate_test {

using namespace uactor;
namespace status = ua::status;
using test::at;
using std::chrono::milliseconds;

const ua::node_id dr_alarm = ua::node_id::string(1, "Alarm.Deviation");
const ua::node_id dr_input = ua::node_id::string(1, "Demo.Static.Scalar.Double");
const ua::node_id dr_setpoint = ua::node_id::string(1, "Demo.Static.Scalar.Float");
const ua::node_id dr_base = ua::node_id::string(1, "Demo.Static.Scalar.Int32");
ua::node_id dr_child(const char* path) { return ua::node_id::string(1, std::string("Alarm.Deviation.") + path); }

const std::string dr_active = "trunk active unacked confirmed retain";
const std::string dr_inactive = "trunk inactive unacked confirmed retain";

template <class Alarm>
Alarm dr_limits(bool exclusive) {
  Alarm a;
  a.id = dr_alarm;
  a.input = dr_input;
  a.name = "Deviation";
  a.high_high = 10;
  a.high = 5;
  a.low = -5;
  a.low_low = -10;
  a.deadband = 1;
  a.exclusive = exclusive;
  a.max_branches = 0;  // the limit states are what is looked at here (branches: condition_branches_test)
  return a;
}

std::string dr_text(const ua::variant& v) {
  const auto* t = v.get_if<ua::localized_text>();
  return t ? std::string(t->text.view()) : std::string();
}

// One step: a value of the input or of the setpoint, or a tick, at a time; then the alarm's limit
// state (exclusive: LimitState/CurrentState; non-exclusive: the active states, most severe first,
// as its Message names them; "" when none), the quantity the limits were compared with, and the events.
struct dr_step {
  std::int64_t at;
  enum { input, setpoint, tick } what;
  double v = 0;
  std::string state;
  double measured = NAN;  // NaN: not checked
  std::vector<std::string> events{};
};

void dr_run(actors::server_core& core, test::condition_client& c, std::int64_t& ms, const std::vector<dr_step>& table,
            bool exclusive) {
  for (std::size_t i = 0; i < table.size(); ++i) {
    const dr_step& s = table[i];
    INFO("row " << i << " at " << s.at);
    if (s.what == dr_step::input) test::apply_value(core, dr_input, s.v, s.at);
    else if (s.what == dr_step::setpoint) test::apply_value(core, dr_setpoint, s.v, s.at);
    else core.on_tick(at(s.at));
    if (exclusive) {
      CHECK(dr_text(c.read(dr_child("LimitState.CurrentState"))) == s.state);
    } else {
      std::string states;
      for (const char* st : {"HighHigh", "LowLow", "High", "Low"}) {
        const auto id = c.read(dr_child((std::string(st) + "State.Id").c_str()));
        if (const bool* on = id.get_if<bool>(); on && *on) states += states.empty() ? st : std::string(", ") + st;
      }
      CHECK(states == s.state);
    }
    CHECK(core.conditions().active(0) == !s.state.empty());
    if (!std::isnan(s.measured)) CHECK(core.conditions().measured(0) == Approx(s.measured));
    ms = std::max(ms, s.at);
    std::vector<std::string> seen;
    for (const auto& e : c.events(ms)) seen.push_back(e.brief());
    CHECK(seen == s.events);
  }
}

TEST_CASE("deviation alarm: ExclusiveDeviationAlarmType's limits apply to the input minus the setpoint",
          "[events][alarms][deviation]") {
  auto core = test::make_core();
  test::apply_value(core, dr_input, 50, 0);
  test::apply_value(core, dr_setpoint, 50, 0);
  auto a = dr_limits<deviation_alarm>(true);
  a.setpoint = dr_setpoint;
  a.base_setpoint = dr_base;
  REQUIRE(core.add_deviation_alarm(a, at(0)) == status::good);
  test::condition_client c(core);
  // §5.8.22: SetpointNode (mandatory) and BaseSetpointNode (optional) are NodeId properties.
  CHECK(c.read(dr_child("SetpointNode")) == ua::variant(dr_setpoint));
  CHECK(c.read(dr_child("BaseSetpointNode")) == ua::variant(dr_base));
  CHECK(c.read(dr_child("EventType")) == ua::variant(ua::node_id(0, ua::ids::exclusive_deviation_alarm_type)));
  REQUIRE(core.space().find(dr_alarm) != ua::no_node);
  REQUIRE(c.monitor_events(c.subscribe(), 1) == status::good);
  std::int64_t ms = 0;
  c.events(ms);
  dr_run(core, c, ms,
         {
             {1'000, dr_step::input, 56, "High", 6, {dr_active}},       // 6 above the setpoint
             {2'000, dr_step::input, 61, "HighHigh", 11, {dr_active}},  // HighToHighHigh
             // The setpoint moves the limits: 61 - 55 = 6 is High again (HighHighToHigh).
             {3'000, dr_step::setpoint, 55, "High", 6, {dr_active}},
             // 9.5 is not past HighHigh (10): no change, no event.
             {4'000, dr_step::setpoint, 51.5, "High", 9.5, {}},
             // Inside the deadband (High ends at 5 - 1 = 4): still High.
             {5'000, dr_step::input, 56, "High", 4.5, {}},
             {6'000, dr_step::input, 55.5, "", 4, {dr_inactive}},
             {7'000, dr_step::input, 45, "Low", -6.5, {dr_active}},
             {8'000, dr_step::input, 40, "LowLow", -11.5, {dr_active}},  // LowToLowLow
             {9'000, dr_step::setpoint, 45, "Low", -5, {dr_active}},     // LowLowToLow: -5 > -10 + 1
             {10'000, dr_step::setpoint, 40, "", 0, {dr_inactive}},
         },
         true);
}

TEST_CASE("deviation alarm: NonExclusiveDeviationAlarmType has HighHigh and High at once",
          "[events][alarms][deviation]") {
  auto core = test::make_core();
  test::apply_value(core, dr_input, 0, 0);
  test::apply_value(core, dr_setpoint, 0, 0);
  auto a = dr_limits<deviation_alarm>(false);
  a.setpoint = dr_setpoint;
  REQUIRE(core.add_deviation_alarm(a, at(0)) == status::good);
  test::condition_client c(core);
  CHECK(c.read(dr_child("EventType")) == ua::variant(ua::node_id(0, ua::ids::non_exclusive_deviation_alarm_type)));
  CHECK(core.space().find(dr_child("BaseSetpointNode")) == ua::no_node);  // optional: not given
  REQUIRE(c.monitor_events(c.subscribe(), 1) == status::good);
  std::int64_t ms = 0;
  c.events(ms);
  dr_run(core, c, ms,
         {
             {1'000, dr_step::input, 12, "HighHigh, High", 12, {dr_active}},
             {2'000, dr_step::setpoint, 3, "High", 9, {dr_active}},      // HighHigh ends (9 <= 10 - 1)
             {3'000, dr_step::setpoint, -1, "HighHigh, High", 13, {dr_active}},
             {4'000, dr_step::input, 3, "", 4, {dr_inactive}},           // both end at once
             {5'000, dr_step::setpoint, 14, "LowLow, Low", -11, {dr_active}},
         },
         false);
}

TEST_CASE("rate-of-change alarm: ExclusiveRateOfChangeAlarmType on the change per second over the window",
          "[events][alarms][rate]") {
  auto core = test::make_core();
  test::apply_value(core, dr_input, 0, 0);
  auto a = dr_limits<rate_of_change_alarm>(true);
  a.high = 4;
  a.low = -4;
  a.deadband = 0.5;
  a.window = milliseconds(1'000);
  engineering_units eu;
  eu.unit_id = 5067859;  // UNECE "MTS": metre per second
  eu.display_name = ua::localized_text{ua::ua_string("en"), ua::ua_string("m/s")};
  a.units = eu;
  REQUIRE(core.add_rate_of_change_alarm(a, at(0)) == status::good);
  test::condition_client c(core);
  CHECK(c.read(dr_child("EventType")) == ua::variant(ua::node_id(0, ua::ids::exclusive_rate_of_change_alarm_type)));
  // §5.8.23: EngineeringUnits, an EUInformation property, when the definition has units.
  const auto units = c.read(dr_child("EngineeringUnits"));
  const auto* eo = units.get_if<ua::extension_object>();
  REQUIRE(eo);
  const auto* info = eo->get_if<ua::eu_information>();
  REQUIRE(info);
  CHECK(info->unit_id == 5067859);
  CHECK(std::string(info->display_name.text.view()) == "m/s");
  CHECK(core.space().find(dr_child("SetpointNode")) == ua::no_node);
  REQUIRE(c.monitor_events(c.subscribe(), 1) == status::good);
  std::int64_t ms = 0;
  c.events(ms);
  dr_run(core, c, ms,
         {
             // A value inside the window is noted only: nothing is measured yet.
             {500, dr_step::input, 3, "", NAN, {}},
             // The window (from 0 at 0) is over: (6 - 0) / 1 s = 6 per second, High.
             {1'000, dr_step::input, 6, "High", 6, {dr_active}},
             {1'500, dr_step::input, 8, "High", 6, {}},
             // No value for the whole window: the tick closes it with the latest, (8 - 6) / 1 s.
             {2'000, dr_step::tick, 0, "", 2, {dr_inactive}},
             {3'000, dr_step::tick, 0, "", 0, {}},  // holding still: a rate of 0
             {3'200, dr_step::input, 20, "", 0, {}},
             {4'000, dr_step::tick, 0, "HighHigh", 12, {dr_active}},
             // (20 - 20) / 1 s: a rise that stopped ends the alarm on the tick, without a value.
             {5'000, dr_step::tick, 0, "", 0, {dr_inactive}},
             {5'500, dr_step::input, 15, "", 0, {}},
             {6'000, dr_step::tick, 0, "Low", -5, {dr_active}},
             // Inside the deadband: -3.6 is still Low (it ends above -4 + 0.5).
             {6'900, dr_step::input, 11.4, "Low", -5, {}},
             {7'000, dr_step::tick, 0, "Low", -3.6, {}},
             // No tick for 2.5 s: the value that comes then divides by 2.5 s, (-18.6 - 11.4) / 2.5.
             {9'500, dr_step::input, -18.6, "LowLow", -12, {dr_active}},
         },
         true);
  // A rate alarm stays on the tick's list (it closes windows); nothing else is timed.
  CHECK(core.conditions().timed_count() == 1);
}

TEST_CASE("rate-of-change alarm: NonExclusiveRateOfChangeAlarmType, a longer window",
          "[events][alarms][rate]") {
  auto core = test::make_core();
  test::apply_value(core, dr_input, 100, 0);
  auto a = dr_limits<rate_of_change_alarm>(false);
  a.window = milliseconds(5'000);
  REQUIRE(core.add_rate_of_change_alarm(a, at(0)) == status::good);
  test::condition_client c(core);
  CHECK(c.read(dr_child("EventType")) == ua::variant(ua::node_id(0, ua::ids::non_exclusive_rate_of_change_alarm_type)));
  CHECK(core.space().find(dr_child("EngineeringUnits")) == ua::no_node);  // none given
  REQUIRE(c.monitor_events(c.subscribe(), 1) == status::good);
  std::int64_t ms = 0;
  c.events(ms);
  dr_run(core, c, ms,
         {
             {1'000, dr_step::tick, 0, "", NAN, {}},
             {2'000, dr_step::input, 160, "", NAN, {}},
             {4'000, dr_step::tick, 0, "", NAN, {}},  // the window is not over
             {5'000, dr_step::tick, 0, "HighHigh, High", 12, {dr_active}},  // (160 - 100) / 5 s
             {10'000, dr_step::tick, 0, "", 0, {dr_inactive}},
         },
         false);
}

TEST_CASE("deviation and rate-of-change alarms: bad definitions are refused, nothing left behind",
          "[events][alarms][deviation][rate]") {
  auto core = test::make_core();
  auto d = dr_limits<deviation_alarm>(true);
  CHECK(core.add_deviation_alarm(d, at(0)) == status::bad_invalid_argument);  // no setpoint
  d.setpoint = ua::node_id::string(1, "No.Such.Node");
  CHECK(core.add_deviation_alarm(d, at(0)) == status::bad_node_id_unknown);
  d.setpoint = ua::node_id(0, ua::ids::server);
  CHECK(core.add_deviation_alarm(d, at(0)) == status::bad_node_class_invalid);
  d.setpoint = dr_setpoint;
  d.base_setpoint = ua::node_id::string(1, "No.Such.Node");
  CHECK(core.add_deviation_alarm(d, at(0)) == status::bad_node_id_unknown);
  d.base_setpoint = {};
  d.high = 20;  // above high_high
  CHECK(core.add_deviation_alarm(d, at(0)) == status::bad_invalid_argument);
  auto r = dr_limits<rate_of_change_alarm>(true);
  r.window = milliseconds(999);
  CHECK(core.add_rate_of_change_alarm(r, at(0)) == status::bad_invalid_argument);
  r.window = milliseconds(3'600'001);
  CHECK(core.add_rate_of_change_alarm(r, at(0)) == status::bad_invalid_argument);
  r.window = milliseconds(1'000);
  r.deadband = -1;
  CHECK(core.add_rate_of_change_alarm(r, at(0)) == status::bad_invalid_argument);
  CHECK(core.conditions().size() == 0);
  CHECK(core.space().find(dr_alarm) == ua::no_node);
  CHECK(core.conditions().timed_count() == 0);
}

// ---------------------------------------------------------------------------------------------
// Discrepancy alarms (§5.8.25, docs/decisions/0081) and trip alarms (§5.8.24.4)

const ua::node_id dc_alarm = ua::node_id::string(1, "Valve.Discrepancy");
const ua::node_id dc_bool_input = ua::node_id::string(1, "Demo.Static.Scalar.Boolean");
ua::node_id dc_child(const char* path) { return ua::node_id::string(1, std::string("Valve.Discrepancy.") + path); }

// One step: a value of the input or of the target, or a tick, at a time; then whether the input is
// in alarm (away from the target for ExpectedTime), whether the alarm is active, and the events.
struct dc_step {
  std::int64_t at;
  enum { input, target, tick } what;
  double v = 0;
  bool input_active = false;
  bool active = false;
  std::vector<std::string> events{};
};

void dc_run(actors::server_core& core, test::condition_client& c, std::int64_t& ms, const std::vector<dc_step>& table,
            const ua::node_id& input, const ua::node_id& target) {
  for (std::size_t i = 0; i < table.size(); ++i) {
    const dc_step& s = table[i];
    INFO("row " << i << " at " << s.at);
    if (s.what == dc_step::tick) {
      core.on_tick(at(s.at));
    } else if (s.what == dc_step::input && input == dc_bool_input) {
      value_update u;
      u.node.index = core.space().find(input);
      u.value = s.v != 0;
      REQUIRE(core.apply_values(std::span(&u, 1), at(s.at)) == 0);
    } else {
      test::apply_value(core, s.what == dc_step::input ? input : target, s.v, s.at);
    }
    CHECK(core.conditions().input_active(0) == s.input_active);
    CHECK(core.conditions().active(0) == s.active);
    ms = std::max(ms, s.at);
    std::vector<std::string> seen;
    for (const auto& e : c.events(ms)) seen.push_back(e.brief());
    CHECK(seen == s.events);
  }
}

discrepancy_alarm dc_definition(const ua::node_id& input, const ua::node_id& target, milliseconds expected) {
  discrepancy_alarm a;
  a.id = dc_alarm;
  a.input = input;
  a.target = target;
  a.name = "ValvePosition";
  a.expected_time = expected;
  a.max_branches = 0;  // the state machine is what is looked at here (branches: condition_branches_test)
  return a;
}

TEST_CASE("discrepancy alarm: DiscrepancyAlarmType, a numeric input within Tolerance of its target",
          "[events][alarms][discrepancy]") {
  auto core = test::make_core();
  test::apply_value(core, dr_input, 50, 0);     // the valve's position
  test::apply_value(core, dr_setpoint, 50, 0);  // its demand: TargetValueNode
  auto a = dc_definition(dr_input, dr_setpoint, milliseconds(5'000));
  a.tolerance = 0.5;
  a.severity = 650;
  REQUIRE(core.add_discrepancy_alarm(a, at(0)) == status::good);
  test::condition_client c(core);
  // §5.8.25: TargetValueNode (NodeId) and ExpectedTime (Duration) are mandatory properties, Tolerance
  // (Double) the optional one; each is also the event's field (the Variables mirror the events).
  CHECK(c.read(dc_child("EventType")) == ua::variant(ua::node_id(0, ua::ids::discrepancy_alarm_type)));
  CHECK(c.read(dc_child("TargetValueNode")) == ua::variant(dr_setpoint));
  CHECK(c.read(dc_child("ExpectedTime")) == ua::variant(5'000.0));
  CHECK(c.read(dc_child("Tolerance")) == ua::variant(0.5));
  const auto& space = core.space();
  const auto expected = space.find(dc_child("ExpectedTime"));
  REQUIRE(expected != ua::no_node);
  CHECK(space.variable(expected)->data_type.matches(ua::node_id(0, 290)));  // Duration
  CHECK(std::string(space.at(expected).browse_name) == "ExpectedTime");
  CHECK(space.find(dc_child("NormalState")) == ua::no_node);
  CHECK(space.find(dc_child("SetpointNode")) == ua::no_node);
  REQUIRE(c.monitor_events(c.subscribe(), 1) == status::good);
  std::int64_t ms = 0;
  c.events(ms);
  const std::string on = "trunk active unacked confirmed retain", off = "trunk inactive unacked confirmed retain";
  dc_run(core, c, ms,
         {
             // A new target: the input has ExpectedTime (5 s) to reach it; within Tolerance is reached.
             {1'000, dc_step::target, 80, false, false, {}},
             {3'000, dc_step::tick, 0, false, false, {}},
             {4'000, dc_step::input, 79.6, false, false, {}},
             {10'000, dc_step::tick, 0, false, false, {}},  // nothing is counting
             // Not there 5 s after the target changed: active on the tick, whatever the input did meanwhile.
             {11'000, dc_step::target, 20, false, false, {}},
             {13'000, dc_step::input, 60, false, false, {}},
             {15'900, dc_step::tick, 0, false, false, {}},
             {16'000, dc_step::tick, 0, true, true, {on}},
             {17'000, dc_step::input, 20.4, false, false, {off}},  // at the target: it ends
             // The input leaves the target: the count starts then; a new target starts it again.
             {18'000, dc_step::input, 25, false, false, {}},
             {22'000, dc_step::target, 30, false, false, {}},
             {26'000, dc_step::tick, 0, false, false, {}},  // 4 s since the target's change, 8 s since the input left
             {27'000, dc_step::tick, 0, true, true, {on}},
             // A new target while active: the alarm stays until the input is at it.
             {28'000, dc_step::target, 40, true, true, {}},
             {28'500, dc_step::input, 39.4, true, true, {}},  // outside Tolerance still
             {29'000, dc_step::input, 40, false, false, {off}},
         },
         dr_input, dr_setpoint);
  CHECK(core.conditions().timed_count() == 0);  // nothing counting once the input is at its target
  CHECK(c.read(dc_child("Message")) == ua::variant(ua::localized_text{ua::ua_string("en"), ua::ua_string("ValvePosition normal")}));
}

TEST_CASE("discrepancy alarm: a Boolean feedback against its command, no Tolerance, with OnDelay",
          "[events][alarms][discrepancy]") {
  auto core = test::make_core();
  value_update off;
  off.node.index = core.space().find(dc_bool_input);
  off.value = false;
  REQUIRE(core.apply_values(std::span(&off, 1), at(0)) == 0);
  test::apply_value(core, dr_base, 0, 0);  // the command, 0 or 1 (a Boolean compares as 0 or 1)
  auto a = dc_definition(dc_bool_input, dr_base, milliseconds(2'000));
  a.parameters.on_delay = milliseconds(1'000);  // §5.8.2: on top of ExpectedTime
  REQUIRE(core.add_discrepancy_alarm(a, at(0)) == status::good);
  test::condition_client c(core);
  CHECK(core.space().find(dc_child("Tolerance")) == ua::no_node);  // optional: not given
  CHECK(c.read(dc_child("TargetValueNode")) == ua::variant(dr_base));
  REQUIRE(c.monitor_events(c.subscribe(), 1) == status::good);
  std::int64_t ms = 0;
  c.events(ms);
  const std::string on = "trunk active unacked confirmed retain", done = "trunk inactive unacked confirmed retain";
  dc_run(core, c, ms,
         {
             {1'000, dc_step::target, 1, false, false, {}},  // start
             {2'000, dc_step::input, 1, false, false, {}},   // running within ExpectedTime
             {5'000, dc_step::target, 0, false, false, {}},  // stop
             {7'000, dc_step::tick, 0, true, false, {}},     // still running: in alarm, OnDelay counting
             {8'000, dc_step::tick, 0, true, true, {on}},
             {8'500, dc_step::input, 0, false, false, {done}},
             // It starts by itself: away from the command (0) for ExpectedTime, then OnDelay.
             {10'000, dc_step::input, 1, false, false, {}},
             {12'000, dc_step::tick, 0, true, false, {}},
             {13'000, dc_step::tick, 0, true, true, {on}},
         },
         dc_bool_input, dr_base);
  CHECK(c.read(dc_child("Message")) == ua::variant(ua::localized_text{ua::ua_string("en"), ua::ua_string("ValvePosition discrepancy")}));
}

TEST_CASE("discrepancy alarm: bad definitions are refused, nothing left behind", "[events][alarms][discrepancy]") {
  auto core = test::make_core();
  auto a = dc_definition(dr_input, ua::node_id(), milliseconds(5'000));
  CHECK(core.add_discrepancy_alarm(a, at(0)) == status::bad_invalid_argument);  // no TargetValueNode
  a.target = ua::node_id::string(1, "No.Such.Node");
  CHECK(core.add_discrepancy_alarm(a, at(0)) == status::bad_node_id_unknown);
  a.target = ua::node_id(0, ua::ids::server);
  CHECK(core.add_discrepancy_alarm(a, at(0)) == status::bad_node_class_invalid);
  a.target = dr_setpoint;
  a.expected_time = milliseconds(999);  // shorter than the tick
  CHECK(core.add_discrepancy_alarm(a, at(0)) == status::bad_invalid_argument);
  a.expected_time = milliseconds(86'400'001);
  CHECK(core.add_discrepancy_alarm(a, at(0)) == status::bad_invalid_argument);
  a.expected_time = milliseconds(1'000);
  a.tolerance = -1;
  CHECK(core.add_discrepancy_alarm(a, at(0)) == status::bad_invalid_argument);
  a.tolerance = NAN;
  CHECK(core.add_discrepancy_alarm(a, at(0)) == status::bad_invalid_argument);
  a.tolerance = {};
  a.input = ua::node_id(0, ua::ids::server);
  CHECK(core.add_discrepancy_alarm(a, at(0)) == status::bad_node_class_invalid);
  CHECK(core.conditions().size() == 0);
  CHECK(core.space().find(dc_alarm) == ua::no_node);
  CHECK(core.conditions().timed_count() == 0);
}

TEST_CASE("trip alarm: TripAlarmType is an off-normal alarm of that type", "[events][alarms][trip]") {
  auto core = test::make_core();
  value_update u;
  u.node.index = core.space().find(dc_bool_input);
  u.value = false;
  REQUIRE(core.apply_values(std::span(&u, 1), at(0)) == 0);
  trip_alarm a;
  a.id = ua::node_id::string(1, "Motor.Trip");
  a.input = dc_bool_input;
  a.name = "MotorTrip";
  a.severity = 900;
  REQUIRE(core.add_trip_alarm(a, at(0)) == status::good);
  test::condition_client c(core);
  const auto child = [](const char* path) { return ua::node_id::string(1, std::string("Motor.Trip.") + path); };
  // §5.8.24.4: the condition's TypeDefinition and its events' EventType are TripAlarmType; the
  // off-normal alarm's NormalState (a null NodeId: the normal value is the definition's) stays.
  CHECK(c.read(child("EventType")) == ua::variant(ua::node_id(0, ua::ids::trip_alarm_type)));
  CHECK(c.read(child("NormalState")) == ua::variant(ua::node_id()));
  const auto& space = core.space();
  const auto node = space.find(a.id);
  REQUIRE(node != ua::no_node);
  bool typed = false;
  for (const auto& r : space.forward_references(node))
    if (r.type == space.find(ua::node_id(0, ua::ids::has_type_definition)))
      typed = r.target == space.find(ua::node_id(0, ua::ids::trip_alarm_type));
  CHECK(typed);
  const auto sub = c.subscribe();
  REQUIRE(c.monitor_events(sub, 1) == status::good);
  // A second item whose where clause is OfType OffNormalAlarmType: a trip alarm is one (a subtype).
  auto off_normal_only = test::condition_client::select();
  ua::content_filter_element of_type;
  of_type.filter_operator = ua::filter_operator::of_type;
  ua::literal_operand t;
  t.value = ua::node_id(0, ua::ids::off_normal_alarm_type);
  of_type.filter_operands.push_back(ua::extension_object(t));
  off_normal_only.where_clause.elements.push_back(std::move(of_type));
  REQUIRE(c.monitor_events(sub, 2, off_normal_only) == status::good);
  std::int64_t ms = 0;
  c.events(ms);
  u.value = true;
  REQUIRE(core.apply_values(std::span(&u, 1), at(1'000)) == 0);
  ms = 1'000;
  auto events = c.events(ms);
  REQUIRE(events.size() == 2);
  CHECK(events[0].handle + events[1].handle == 3);  // one to each item
  CHECK(events[1].type == ua::ids::trip_alarm_type);
  CHECK(events[0].type == ua::ids::trip_alarm_type);
  CHECK(events[0].brief() == "trunk active unacked confirmed retain");
  CHECK(c.read(child("Message")) == ua::variant(ua::localized_text{ua::ua_string("en"), ua::ua_string("MotorTrip tripped")}));
  CHECK(c.read(child("Severity")) == ua::variant(std::uint16_t{900}));
  u.value = false;
  REQUIRE(core.apply_values(std::span(&u, 1), at(2'000)) == 0);
  ms = 2'000;
  events = c.events(ms);
  REQUIRE(events.size() == 2);
  CHECK(events[0].brief() == "trunk inactive unacked confirmed retain");
  CHECK(c.read(child("Message")) == ua::variant(ua::localized_text{ua::ua_string("en"), ua::ua_string("MotorTrip normal")}));
}

}  // namespace server_condition_deviation_rate_test
