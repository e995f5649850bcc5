// The alarm parameters of Part 9 §5.8.2 (1.05) through server_core with a passed-in clock: OnDelay
// and OffDelay between the input's state and the alarm's, ReAlarmTime and ReAlarmRepeatCount, each a
// property of the condition; the timers run on the housekeeping tick (docs/decisions/0065). Then a
// latching alarm (LatchedState, Reset, Reset2; docs/decisions/0076).
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/server/server_core.hpp"
#include "tests/engine/server/condition_client.hpp"

// Everything in a namespace of its own (docs/decisions/0050).
namespace server_condition_parameters_test {

using namespace uactor;
namespace status = ua::status;
using test::at;
using std::chrono::milliseconds;

const ua::node_id pa_alarm = ua::node_id::string(1, "Alarm.Double");
const ua::node_id pa_input = ua::node_id::string(1, "Demo.Static.Scalar.Double");
const ua::node_id pa_bool_alarm = ua::node_id::string(1, "Alarm.Boolean");
const ua::node_id pa_bool_input = ua::node_id::string(1, "Demo.Static.Scalar.Boolean");
ua::node_id pa_child(const char* path) { return ua::node_id::string(1, std::string("Alarm.Double.") + path); }

constexpr std::uint32_t pa_acknowledge = 9111, pa_disable = 9028, pa_enable = 9027;

limit_alarm pa_limit_alarm(alarm_parameters p) {
  limit_alarm a;
  a.id = pa_alarm;
  a.input = pa_input;
  a.name = "TankLevel";
  a.high_high = 90;
  a.high = 70;
  a.max_branches = 0;  // the delays are what is looked at here, not the branches (condition_branches_test)
  a.parameters = p;
  return a;
}

std::string pa_text(const ua::variant& v) {
  const auto* t = v.get_if<ua::localized_text>();
  return t ? std::string(t->text.view()) : std::string();
}

TEST_CASE("alarm parameters: OnDelay, OffDelay, ReAlarmTime and ReAlarmRepeatCount are properties of the condition",
          "[events][alarms][parameters]") {
  auto core = test::make_core();
  test::apply_value(core, pa_input, 50, 0);
  alarm_parameters p;
  p.on_delay = milliseconds(2'000);
  p.off_delay = milliseconds(3'500);
  p.re_alarm_time = milliseconds(60'000);
  REQUIRE(core.add_limit_alarm(pa_limit_alarm(p), at(0)) == status::good);
  test::condition_client c(core);
  CHECK(c.read(pa_child("OnDelay")) == ua::variant(2'000.0));
  CHECK(c.read(pa_child("OffDelay")) == ua::variant(3'500.0));
  CHECK(c.read(pa_child("ReAlarmTime")) == ua::variant(60'000.0));
  CHECK(c.read(pa_child("ReAlarmRepeatCount")) == ua::variant(std::int16_t{0}));
  // Duration properties of AlarmConditionType (§5.8.2), ReAlarmRepeatCount an Int16 component.
  const auto& space = core.space();
  const auto on_delay = space.find(pa_child("OnDelay"));
  REQUIRE(on_delay != ua::no_node);
  CHECK(space.variable(on_delay)->data_type.matches(ua::node_id(0, 290)));
  CHECK(std::string(space.at(on_delay).browse_name) == "OnDelay");
  CHECK(space.variable(space.find(pa_child("ReAlarmRepeatCount")))->data_type.matches(ua::node_id(0, 4)));

  // An alarm without parameters has none of these nodes.
  limit_alarm plain = pa_limit_alarm({});
  plain.id = ua::node_id::string(1, "Plain.Alarm");
  plain.name = "Plain";
  REQUIRE(core.add_limit_alarm(plain, at(0)) == status::good);
  for (const char* path : {"OnDelay", "OffDelay", "ReAlarmTime", "ReAlarmRepeatCount"})
    CHECK(space.find(ua::node_id::string(1, std::string("Plain.Alarm.") + path)) == ua::no_node);
}

TEST_CASE("alarm parameters: parameters out of range are Bad_InvalidArgument, nothing left behind",
          "[events][alarms][parameters]") {
  auto core = test::make_core();
  const auto refused = [&](alarm_parameters p) {
    INFO(p.on_delay.count() << " " << p.off_delay.count() << " " << p.re_alarm_time.count() << " " << p.re_alarm_max_count);
    CHECK(core.add_limit_alarm(pa_limit_alarm(p), at(0)) == status::bad_invalid_argument);
    off_normal_alarm o;
    o.id = pa_bool_alarm;
    o.input = pa_bool_input;
    o.name = "Trip";
    o.parameters = p;
    CHECK(core.add_off_normal_alarm(o, at(0)) == status::bad_invalid_argument);
  };
  alarm_parameters p;
  p.on_delay = milliseconds(-1);
  refused(p);
  p = {};
  p.off_delay = milliseconds(86'400'001);  // longer than a day
  refused(p);
  p = {};
  p.re_alarm_time = milliseconds(999);  // shorter than the tick
  refused(p);
  p = {};
  p.re_alarm_time = milliseconds(10'000);
  p.re_alarm_max_count = 32'768;  // past ReAlarmRepeatCount's Int16
  refused(p);
  CHECK(core.conditions().size() == 0);
  CHECK(core.space().find(pa_alarm) == ua::no_node);
  CHECK(core.space().find(pa_bool_alarm) == ua::no_node);
}

// Each step an input value or a tick at a time: whether the input and the alarm are in alarm after
// it, and the events it caused (condition_note::brief()).
struct pa_step {
  std::int64_t at;
  enum { input, tick } what;
  double v = 0;
  bool input_active = false;
  bool active = false;
  std::vector<std::string> events{};
};

void pa_run(actors::server_core& core, test::condition_client& c, std::int64_t& ms, const std::vector<pa_step>& table,
            const ua::node_id& input = pa_input, std::size_t alarm = 0) {
  for (std::size_t i = 0; i < table.size(); ++i) {
    const pa_step& s = table[i];
    INFO("row " << i << " at " << s.at);
    if (s.what == pa_step::input) {
      if (input == pa_bool_input) {
        value_update u;
        u.node.index = core.space().find(input);
        u.value = s.v != 0;
        REQUIRE(core.apply_values(std::span(&u, 1), at(s.at)) == 0);
      } else {
        test::apply_value(core, input, s.v, s.at);
      }
    } else {
      core.on_tick(at(s.at));
    }
    CHECK(core.conditions().input_active(alarm) == s.input_active);
    CHECK(core.conditions().active(alarm) == s.active);
    ms = std::max(ms, s.at);
    std::vector<std::string> seen;
    for (const auto& e : c.events(ms)) seen.push_back(e.brief());
    CHECK(seen == s.events);
  }
}

TEST_CASE("alarm parameters: OnDelay and OffDelay of a limit alarm through a table of values and ticks",
          "[events][alarms][parameters]") {
  const std::string active = "trunk active unacked confirmed retain", inactive = "trunk inactive unacked confirmed retain";
  const std::vector<pa_step> table{
      // A spike shorter than OnDelay (2 s) raises nothing; the count starts again at the next one.
      {1'000, pa_step::input, 80, true, false, {}},
      {2'000, pa_step::tick, 0, true, false, {}},
      {2'500, pa_step::input, 50, false, false, {}},
      {3'000, pa_step::input, 80, true, false, {}},
      {4'000, pa_step::tick, 0, true, false, {}},
      {4'900, pa_step::tick, 0, true, false, {}},
      // In alarm for the whole OnDelay: active on the tick.
      {5'000, pa_step::tick, 0, true, true, {active}},
      // High to HighHigh while active needs no delay.
      {5'500, pa_step::input, 95, true, true, {active}},
      {5'800, pa_step::input, 80, true, true, {active}},
      // A dip shorter than OffDelay (3 s) keeps the alarm active, and raises nothing.
      {6'000, pa_step::input, 50, false, true, {}},
      {7'000, pa_step::input, 80, true, true, {}},
      {8'000, pa_step::input, 50, false, true, {}},
      {10'000, pa_step::tick, 0, false, true, {}},
      // Normal for the whole OffDelay: inactive on the tick.
      {11'000, pa_step::tick, 0, false, false, {inactive}},
      // A value that comes after the delay ran out takes effect at once, without waiting for the tick.
      {12'000, pa_step::input, 80, true, false, {}},
      {14'500, pa_step::input, 85, true, true, {active}},
      {15'000, pa_step::tick, 0, true, true, {}},
  };
  auto core = test::make_core();
  test::apply_value(core, pa_input, 50, 0);
  alarm_parameters p;
  p.on_delay = milliseconds(2'000);
  p.off_delay = milliseconds(3'000);
  REQUIRE(core.add_limit_alarm(pa_limit_alarm(p), at(0)) == status::good);
  test::condition_client c(core);
  const auto sub = c.subscribe();
  REQUIRE(c.monitor_events(sub, 1) == status::good);
  std::int64_t ms = 0;
  c.events(ms);
  pa_run(core, c, ms, table);
  // Nothing is timed once the alarm agrees with its input.
  CHECK(core.conditions().timed_count() == 0);
  // The alarm's ActiveState/TransitionTime is when the delay ran out, not when the input crossed.
  CHECK(c.read(pa_child("ActiveState.TransitionTime")) == ua::variant(at(14'500).utc));
}

TEST_CASE("alarm parameters: OnDelay and OffDelay of a non-exclusive limit alarm and of an off-normal alarm",
          "[events][alarms][parameters]") {
  const std::string active = "trunk active unacked confirmed retain", inactive = "trunk inactive unacked confirmed retain";
  SECTION("non-exclusive: the delay is on being in alarm at all; the limit states follow at once meanwhile") {
    auto core = test::make_core();
    test::apply_value(core, pa_input, 50, 0);
    alarm_parameters p;
    p.on_delay = milliseconds(1'000);
    p.off_delay = milliseconds(1'000);
    auto a = pa_limit_alarm(p);
    a.exclusive = false;
    REQUIRE(core.add_limit_alarm(a, at(0)) == status::good);
    test::condition_client c(core);
    REQUIRE(c.monitor_events(c.subscribe(), 1) == status::good);
    std::int64_t ms = 0;
    c.events(ms);
    pa_run(core, c, ms,
           {{500, pa_step::input, 95, true, false, {}},
            {1'500, pa_step::tick, 0, true, true, {active}},
            {2'000, pa_step::input, 80, true, true, {active}},  // HighHigh ends: no delay, still active
            {2'500, pa_step::input, 50, false, true, {}},
            {3'500, pa_step::tick, 0, false, false, {inactive}}});
    CHECK(pa_text(c.read(pa_child("HighState"))) == "Inactive");
  }
  SECTION("off-normal on a Boolean input") {
    auto core = test::make_core();
    value_update u;
    u.node.index = core.space().find(pa_bool_input);
    u.value = false;
    REQUIRE(core.apply_values(std::span(&u, 1), at(0)) == 0);
    off_normal_alarm o;
    o.id = pa_bool_alarm;
    o.input = pa_bool_input;
    o.name = "Trip";
    o.max_branches = 0;
    o.parameters.on_delay = milliseconds(2'000);
    o.parameters.off_delay = milliseconds(1'000);
    REQUIRE(core.add_off_normal_alarm(o, at(0)) == status::good);
    test::condition_client c(core);
    REQUIRE(c.monitor_events(c.subscribe(), 1) == status::good);
    std::int64_t ms = 0;
    c.events(ms);
    pa_run(core, c, ms,
           {{1'000, pa_step::input, 1, true, false, {}},
            {2'000, pa_step::tick, 0, true, false, {}},
            {3'000, pa_step::tick, 0, true, true, {active}},
            {3'500, pa_step::input, 0, false, true, {}},
            {4'000, pa_step::tick, 0, false, true, {}},
            {4'500, pa_step::tick, 0, false, false, {inactive}}},
           pa_bool_input);
  }
}

TEST_CASE("alarm parameters: ReAlarmTime alarms an active alarm again, unacknowledged, ReAlarmRepeatCount bounded",
          "[events][alarms][parameters]") {
  auto core = test::make_core();
  test::apply_value(core, pa_input, 50, 0);
  alarm_parameters p;
  p.re_alarm_time = milliseconds(5'000);
  p.re_alarm_max_count = 2;
  REQUIRE(core.add_limit_alarm(pa_limit_alarm(p), at(0)) == status::good);
  test::condition_client c(core);
  REQUIRE(c.monitor_events(c.subscribe(), 1) == status::good);
  std::int64_t ms = 0;
  c.events(ms);
  const std::string active_unacked = "trunk active unacked confirmed retain";

  test::apply_value(core, pa_input, 80, 1'000);
  ms = 1'000;
  auto seen = c.events(ms);
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].brief() == active_unacked);
  // The operator acknowledges; the alarm stays active.
  REQUIRE(c.call_method(pa_alarm, pa_acknowledge, {ua::variant(seen[0].event_id), ua::variant(test::condition_comment("seen"))},
                        2'000) == status::good);
  ms = 2'000;
  seen = c.events(ms);
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].brief() == "trunk active acked unconfirmed retain");

  // Not before ReAlarmTime (5 s from when it was alarmed at 1 s).
  core.on_tick(at(5'900));
  ms = 5'900;
  CHECK(c.events(ms).empty());
  CHECK(core.conditions().re_alarm_count(0) == 0);
  core.on_tick(at(6'000));
  ms = 6'000;
  seen = c.events(ms);
  REQUIRE(seen.size() == 1);
  CHECK(seen[0].brief() == active_unacked);  // back to unacknowledged: on top of the alarm list again
  CHECK(core.conditions().re_alarm_count(0) == 1);
  CHECK(c.read(pa_child("ReAlarmRepeatCount")) == ua::variant(std::int16_t{1}));
  CHECK(pa_text(c.read(pa_child("Message"))) == "TankLevel High (re-alarm 1)");
  CHECK(c.read(pa_child("Time")) == ua::variant(at(6'000).utc));

  // The second one, then no more (re_alarm_max_count = 2).
  core.on_tick(at(11'000));
  ms = 11'000;
  CHECK(c.events(ms).size() == 1);
  CHECK(c.read(pa_child("ReAlarmRepeatCount")) == ua::variant(std::int16_t{2}));
  CHECK(pa_text(c.read(pa_child("Message"))) == "TankLevel High (re-alarm 2)");
  core.on_tick(at(16'000));
  core.on_tick(at(21'000));
  ms = 21'000;
  CHECK(c.events(ms).empty());
  CHECK(core.conditions().re_alarms() == 2);
  CHECK(core.conditions().timed_count() == 0);

  // Back to normal, then a new occurrence: the count starts again, and so does the timer.
  test::apply_value(core, pa_input, 50, 22'000);
  test::apply_value(core, pa_input, 80, 23'000);
  ms = 23'000;
  CHECK(c.events(ms).size() == 2);
  CHECK(c.read(pa_child("ReAlarmRepeatCount")) == ua::variant(std::int16_t{0}));
  CHECK(pa_text(c.read(pa_child("Message"))) == "TankLevel High");
  // A HighHigh while active is alarmed now: ReAlarmTime counts from it.
  test::apply_value(core, pa_input, 95, 25'000);
  core.on_tick(at(28'000));
  ms = 28'000;
  CHECK(c.events(ms).size() == 1);  // HighHigh's own event only
  core.on_tick(at(30'000));
  ms = 30'000;
  CHECK(c.events(ms).size() == 1);
  CHECK(pa_text(c.read(pa_child("Message"))) == "TankLevel HighHigh (re-alarm 1)");

  // A disabled condition reports nothing: no re-alarm while it is, none counted.
  REQUIRE(c.call_method(pa_alarm, pa_disable, {}, 31'000) == status::good);
  core.on_tick(at(35'000));
  CHECK(core.conditions().re_alarm_count(0) == 1);
  REQUIRE(c.call_method(pa_alarm, pa_enable, {}, 36'000) == status::good);
  core.on_tick(at(40'000));
  CHECK(core.conditions().re_alarm_count(0) == 2);
  // Back to normal: the timer stops.
  test::apply_value(core, pa_input, 50, 41'000);
  core.on_tick(at(41'000));
  CHECK(core.conditions().timed_count() == 0);
}

// ---------------------------------------------------------------------------------------------
// A latching alarm (alarm_parameters::latching; Part 9 1.05 §5.8.2 LatchedState, §5.8.5 Reset,
// §5.8.6 Reset2, §5.10.11 AuditConditionResetEventType): latched when it goes active, retained until
// an operator resets it, Reset allowed only once the alarm is inactive, acknowledged and confirmed;
// the LatchedState Variables mirror the events.

const ua::node_id la_alarm = ua::node_id::string(1, "Alarm.Double");
const ua::node_id la_input = ua::node_id::string(1, "Demo.Static.Scalar.Double");
ua::node_id la_child(const char* path) { return ua::node_id::string(1, std::string("Alarm.Double.") + path); }

constexpr std::uint32_t la_acknowledge = 9111, la_confirm = 9113, la_reset = 18199, la_reset2 = 24324,
                        la_disable = 9028, la_enable = 9027, la_audit_reset = 15013,
                        la_alarm_type = 9341;

actors::server_core la_core() {
  actors::server_core_config c;
  c.description.application_uri = "urn:test:uactor:server";
  c.description.endpoint_url = "opc.tcp://localhost:4840";
  c.sessions.random = [n = std::uint8_t{0}](std::span<std::uint8_t> out) mutable {
    for (auto& b : out) b = ++n;
  };
  c.audit_events = true;
  return actors::make_demo_server_core(std::move(c), "test", at(0).utc);
}

limit_alarm la_limit_alarm(bool latching) {
  limit_alarm a;
  a.id = la_alarm;
  a.input = la_input;
  a.name = "TankLevel";
  a.high = 70;
  a.max_branches = 0;  // the trunk's states are what is looked at here
  a.parameters.latching = latching;
  return a;
}

// One event: the condition's states, or (type 15013) an audit event of Reset.
struct la_note {
  std::uint32_t type = 0;
  ua::byte_string event_id;
  bool active = false, acked = false, confirmed = false, retain = false, latched = false;
  std::string latched_text, comment, source_name;
  bool audit_status = false;
  // "active unacked confirmed retain latched", each state by its name.
  std::string brief() const {
    if (type == la_audit_reset) return "audit " + source_name + (audit_status ? " good" : " bad");
    std::string s = active ? "active" : "inactive";
    s += acked ? " acked" : " unacked";
    s += confirmed ? " confirmed" : " unconfirmed";
    s += retain ? " retain" : " gone";
    s += latched ? " latched" : " unlatched";
    return s;
  }
};

struct la_client : test::condition_client {
  using condition_client::condition_client;
  // The condition's fields and the audit event's, all from one event item on the Server object.
  void watch() {
    const std::uint32_t sub = subscribe();
    ua::event_filter f;
    f.select_clauses.push_back(test::event_field(2041, {"EventType"}));
    f.select_clauses.push_back(test::event_field(2041, {"EventId"}));
    f.select_clauses.push_back(test::event_field(2915, {"ActiveState", "Id"}));
    f.select_clauses.push_back(test::event_field(2881, {"AckedState", "Id"}));
    f.select_clauses.push_back(test::event_field(2881, {"ConfirmedState", "Id"}));
    f.select_clauses.push_back(test::event_field(2782, {"Retain"}));
    f.select_clauses.push_back(test::event_field(2915, {"LatchedState", "Id"}));
    f.select_clauses.push_back(test::event_field(2915, {"LatchedState"}));
    f.select_clauses.push_back(test::event_field(2782, {"Comment"}));
    f.select_clauses.push_back(test::event_field(2041, {"SourceName"}));
    f.select_clauses.push_back(test::event_field(2052, {"Status"}));
    REQUIRE(monitor_events(sub, 1, std::move(f)) == status::good);
  }
  std::vector<la_note> notes(std::int64_t& ms) {
    ms += 100;
    std::vector<la_note> out;
    ua::extension_object answer;
    if (publish(ms)) {
      answer = response;
    } else {
      core.publish_tick(at(ms));
      if (core.deferred().empty()) return out;
      REQUIRE(ua::decode_message(core.deferred()[0].message.bytes(), answer) == status::good);
      core.clear_deferred();
    }
    const auto* p = answer.get_if<ua::publish_response>();
    REQUIRE(p);
    for (const auto& eo : p->notification_message.notification_data)
      if (const auto* l = eo.get_if<ua::event_notification_list>())
        for (const auto& e : l->events) {
          REQUIRE(e.event_fields.size() == 11);
          const auto& f = e.event_fields;
          la_note n;
          if (const auto* t = f[0].get_if<ua::node_id>()) n.type = t->numeric();
          // The alarm's (ExclusiveLimitAlarmType) and Reset's audit events; the other audits left out.
          if (n.type != la_alarm_type && n.type != la_audit_reset) continue;
          if (const auto* b = f[1].get_if<ua::byte_string>()) n.event_id = *b;
          const auto flag = [&](std::size_t i) {
            const bool* b = f[i].get_if<bool>();
            return b && *b;
          };
          n.active = flag(2);
          n.acked = flag(3);
          n.confirmed = flag(4);
          n.retain = flag(5);
          n.latched = flag(6);
          if (const auto* t = f[7].get_if<ua::localized_text>()) n.latched_text = std::string(t->text.view());
          if (const auto* t = f[8].get_if<ua::localized_text>()) n.comment = std::string(t->text.view());
          if (const auto* t = f[9].get_if<ua::ua_string>()) n.source_name = std::string(t->view());
          n.audit_status = flag(10);
          out.push_back(std::move(n));
        }
    return out;
  }
  std::vector<std::string> briefs(std::int64_t& ms) {
    std::vector<std::string> out;
    for (const auto& n : notes(ms)) out.push_back(n.brief());
    return out;
  }
};

using briefs = std::vector<std::string>;

TEST_CASE("latched alarm: latched when active, retained until Reset, which waits for normal, Acknowledge and "
          "Confirm (Part 9 §5.8.2, §5.8.5)",
          "[events][alarms][latched]") {
  auto core = la_core();
  test::apply_value(core, la_input, 50, 0);
  REQUIRE(core.add_limit_alarm(la_limit_alarm(true), at(0)) == status::good);
  la_client c(core);
  c.watch();
  std::int64_t ms = 1'000;
  CHECK(c.briefs(ms).empty());  // normal, never latched: nothing retained
  CHECK_FALSE(core.conditions().latched(0));
  CHECK(c.read(la_child("LatchedState.Id")) == ua::variant(false));

  // Part 9's transitions, row by row: what the operator or the input does, the Reset's result, the events.
  const auto last_id = [&] { return ua::variant(core.conditions().last_event_id(0)); };
  const auto comment = [](const char* s) { return ua::variant(test::condition_comment(s)); };
  test::apply_value(core, la_input, 80, ms);  // goes active: latched
  CHECK(c.briefs(ms) == briefs{"active unacked confirmed retain latched"});
  CHECK(core.conditions().latched(0));
  CHECK(c.call_method(la_alarm, la_reset, {}, ms) == status::bad_invalid_state);  // active, unacknowledged
  CHECK(c.briefs(ms) == briefs{"audit Method/Reset bad"});
  test::apply_value(core, la_input, 50, ms);  // back to normal: still latched, still retained
  CHECK(c.briefs(ms) == briefs{"inactive unacked confirmed retain latched"});
  CHECK(c.call_method(la_alarm, la_reset, {}, ms) == status::bad_invalid_state);  // not acknowledged
  CHECK(c.briefs(ms) == briefs{"audit Method/Reset bad"});
  CHECK(c.call_method(la_alarm, la_acknowledge, {last_id(), comment("seen")}, ms) == status::good);
  CHECK(c.briefs(ms) == briefs{"inactive acked unconfirmed retain latched"});
  CHECK(c.call_method(la_alarm, la_reset, {}, ms) == status::bad_invalid_state);  // not confirmed
  CHECK(c.briefs(ms) == briefs{"audit Method/Reset bad"});
  CHECK(c.call_method(la_alarm, la_confirm, {last_id(), comment("fixed")}, ms) == status::good);
  // A latching alarm stays retained after Confirm (a plain one would be gone here, Table B.1 row 4).
  CHECK(c.briefs(ms) == briefs{"inactive acked confirmed retain latched"});
  CHECK(c.read(la_child("LatchedState.Id")) == ua::variant(true));
  const auto state_text = c.read(la_child("LatchedState"));
  REQUIRE(state_text.get_if<ua::localized_text>());
  CHECK(std::string(state_text.get_if<ua::localized_text>()->text.view()) == "Latched");
  // Reset2 with a comment: unlatched, no longer retained, the comment its Comment.
  CHECK(c.call_method(la_alarm, la_reset2, {comment("reset by the shift")}, ms) == status::good);
  const auto reset = c.notes(ms);
  REQUIRE(reset.size() == 2);
  CHECK(reset[0].brief() == "inactive acked confirmed gone unlatched");
  CHECK(reset[0].latched_text == "Unlatched");
  CHECK(reset[0].comment == "reset by the shift");
  CHECK(reset[1].brief() == "audit Method/Reset2 good");
  CHECK_FALSE(core.conditions().latched(0));
  CHECK(c.read(la_child("LatchedState.Id")) == ua::variant(false));
  CHECK(c.call_method(la_alarm, la_reset, {}, ms) == status::bad_invalid_state);  // not latched any more
  CHECK(c.briefs(ms) == briefs{"audit Method/Reset bad"});

  // Active again, acknowledged and confirmed while active: Reset still waits for normal.
  test::apply_value(core, la_input, 85, ms);
  CHECK(c.briefs(ms) == briefs{"active unacked confirmed retain latched"});
  CHECK(c.call_method(la_alarm, la_acknowledge, {last_id(), comment("")}, ms) == status::good);
  CHECK(c.call_method(la_alarm, la_confirm, {last_id(), comment("")}, ms) == status::good);
  CHECK(c.briefs(ms) == briefs{"active acked unconfirmed retain latched", "active acked confirmed retain latched"});
  CHECK(c.call_method(la_alarm, la_reset, {}, ms) == status::bad_invalid_state);
  CHECK(c.briefs(ms) == briefs{"audit Method/Reset bad"});
  test::apply_value(core, la_input, 50, ms);  // normal; already acknowledged and confirmed: latched only
  CHECK(c.briefs(ms) == briefs{"inactive acked confirmed retain latched"});
  CHECK(c.call_method(la_alarm, la_reset, {}, ms) == status::good);  // Reset (no comment): the Comment stays
  const auto plain = c.notes(ms);
  REQUIRE(plain.size() == 2);
  CHECK(plain[0].brief() == "inactive acked confirmed gone unlatched");
  CHECK(plain[0].comment == "");  // the last Confirm's (empty) comment, not changed by Reset
  CHECK(plain[1].brief() == "audit Method/Reset good");
}

TEST_CASE("latched alarm: Reset2's null comment leaves the Comment, a disabled alarm is Bad_ConditionDisabled, "
          "arguments are checked",
          "[events][alarms][latched]") {
  auto core = la_core();
  test::apply_value(core, la_input, 50, 0);
  REQUIRE(core.add_limit_alarm(la_limit_alarm(true), at(0)) == status::good);
  la_client c(core);
  std::int64_t ms = 1'000;
  const auto last_id = [&] { return ua::variant(core.conditions().last_event_id(0)); };
  test::apply_value(core, la_input, 80, ms);
  test::apply_value(core, la_input, 50, ms + 10);
  REQUIRE(c.call_method(la_alarm, la_acknowledge, {last_id(), ua::variant(test::condition_comment("kept"))}, ms) == status::good);
  REQUIRE(c.call_method(la_alarm, la_confirm, {last_id(), ua::variant(test::condition_comment("kept"))}, ms) == status::good);
  // Part 4 §5.11.2: Reset takes nothing, Reset2 one LocalizedText.
  CHECK(c.call_method(la_alarm, la_reset, {ua::variant(1.0)}, ms) == status::bad_too_many_arguments);
  CHECK(c.call_method(la_alarm, la_reset2, {}, ms) == status::bad_arguments_missing);
  CHECK(c.call_method(la_alarm, la_reset2, {ua::variant(1.0)}, ms) == status::bad_invalid_argument);
  CHECK(core.conditions().latched(0));
  // Disabled: no Reset (§5.5.4, as the other methods); enabled again it still waits, latched.
  REQUIRE(c.call_method(la_alarm, la_disable, {}, ms) == status::good);
  CHECK_FALSE(core.conditions().retain(0));
  CHECK(c.call_method(la_alarm, la_reset, {}, ms) == status::bad_condition_disabled);
  REQUIRE(c.call_method(la_alarm, la_enable, {}, ms) == status::good);
  CHECK(core.conditions().retain(0));
  CHECK(c.call_method(la_alarm, la_reset2, {ua::variant(ua::localized_text{})}, ms) == status::good);
  CHECK_FALSE(core.conditions().latched(0));
  CHECK_FALSE(core.conditions().retain(0));
  const auto comment = c.read(la_child("Comment"));  // kept: get_if points into it
  const auto* kept = comment.get_if<ua::localized_text>();
  REQUIRE(kept);
  CHECK(std::string(kept->text.view()) == "kept");
  // The ConditionType's Reset (the ObjectType as the object) is Bad_NodeIdInvalid (§5.8.5).
  CHECK(c.call_method(ua::node_id(0, 2915), la_reset, {}, ms) == status::bad_node_id_invalid);
}

TEST_CASE("latched alarm: an alarm that does not latch has no LatchedState and its Reset is Bad_MethodInvalid",
          "[events][alarms][latched]") {
  auto core = la_core();
  test::apply_value(core, la_input, 50, 0);
  REQUIRE(core.add_limit_alarm(la_limit_alarm(false), at(0)) == status::good);
  la_client c(core);
  const auto& space = core.space();
  CHECK(space.find(la_child("LatchedState")) == ua::no_node);
  CHECK(space.find(la_child("LatchedState.Id")) == ua::no_node);
  test::apply_value(core, la_input, 80, 100);
  test::apply_value(core, la_input, 50, 200);
  CHECK(c.call_method(la_alarm, la_reset, {}, 300) == status::bad_method_invalid);
  CHECK_FALSE(core.conditions().latched(0));
  // A latching one has both Variables (a TwoStateVariable and its Id) and references Reset and Reset2.
  limit_alarm l = la_limit_alarm(true);
  l.id = ua::node_id::string(1, "Latching.Alarm");
  l.name = "Latching";
  REQUIRE(core.add_limit_alarm(l, at(400)) == status::good);
  const auto state = space.find(ua::node_id::string(1, "Latching.Alarm.LatchedState"));
  const auto id = space.find(ua::node_id::string(1, "Latching.Alarm.LatchedState.Id"));
  REQUIRE(state != ua::no_node);
  REQUIRE(id != ua::no_node);
  CHECK(std::string(space.at(state).browse_name) == "LatchedState");
  CHECK(space.variable(id)->data_type.matches(ua::node_id(0, 1)));
  const auto node = space.find(l.id);
  const auto has_component = space.find(ua::node_id(0, 47));
  std::vector<std::uint32_t> methods;
  for (const auto& r : space.forward_references(node))
    if (r.type == has_component && space.at(r.target).cls == ua::node_class::method)
      methods.push_back(space.at(r.target).id.numeric);
  CHECK(std::find(methods.begin(), methods.end(), la_reset) != methods.end());
  CHECK(std::find(methods.begin(), methods.end(), la_reset2) != methods.end());
}

}  // namespace server_condition_parameters_test
