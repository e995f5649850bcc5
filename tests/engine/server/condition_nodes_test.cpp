// Conditions as nodes (Part 9 §5.5, docs/decisions/0053) and shelving (Part 9 §5.8.17) through
// server_core with a passed-in clock: the condition's Object and Variables browsed and read, equal to
// the fields of its events; a data item on one of them; the Methods reached from the Object; the
// ShelvedStateMachine walked through a table of calls, ticks and values with the expected statuses,
// states and events.
#include <catch2/catch.hpp>

#include <cfloat>
#include <string>
#include <vector>

#include "engine/server/server_core.hpp"
#include "protocol/message.hpp"
#include "tests/engine/server/core_fixture.hpp"
#include "runtime/namespaces/demo_namespace.hpp"

// Everything in a namespace of its own, so that this file can share a unity batch with neighbours
// that use the same helper names (docs/decisions/0050).
namespace server_condition_nodes_test {

using namespace uactor;
namespace status = ua::status;

namespace {

constexpr std::uint32_t cn_channel = 5;

using test::at;

// One anonymous session over None, with the subscription calls these tests make.
struct cn_client : test::core_session {
  explicit cn_client(actors::server_core& c) : core_session(c, cn_channel) {}

  std::uint32_t subscribe() {
    ua::create_subscription_request req;
    req.requested_publishing_interval = 100;
    req.requested_max_keep_alive_count = 10;
    req.requested_lifetime_count = 1000;
    req.publishing_enabled = true;
    const auto& r = call_as<ua::create_subscription_response>(req);
    REQUIRE(r.response_header.service_result == status::good);
    return r.subscription_id;
  }
  // Attribute 13 (Value) of `node`, or 12 (EventNotifier) with an event filter.
  ua::status_code monitor(std::uint32_t sub, const ua::node_id& node, std::uint32_t attribute, std::uint32_t handle_,
                          ua::extension_object filter = {}) {
    ua::create_monitored_items_request req;
    req.subscription_id = sub;
    req.timestamps_to_return = ua::timestamps_to_return::both;
    ua::monitored_item_create_request c;
    c.item_to_monitor.node_id = node;
    c.item_to_monitor.attribute_id = attribute;
    c.monitoring_mode = ua::monitoring_mode::reporting;
    c.requested_parameters.client_handle = handle_;
    c.requested_parameters.queue_size = 100;
    c.requested_parameters.discard_oldest = true;
    c.requested_parameters.filter = std::move(filter);
    req.items_to_create.push_back(std::move(c));
    auto& r = call_as<ua::create_monitored_items_response>(req);
    REQUIRE(r.results.size() == 1);
    return r.results[0].status_code;
  }
  ua::data_value read(const ua::node_id& node, std::uint32_t attribute = 13) {
    ua::read_request req;
    ua::read_value_id id;
    id.node_id = node;
    id.attribute_id = attribute;
    req.nodes_to_read.push_back(id);
    auto& r = call_as<ua::read_response>(req);
    REQUIRE(r.results.size() == 1);
    return r.results[0];
  }
  ua::call_method_result call_method(const ua::node_id& object, std::uint32_t method, std::vector<ua::variant> inputs,
                                     std::int64_t ms) {
    ua::call_request req;
    ua::call_method_request m;
    m.object_id = object;
    m.method_id = ua::node_id(0, method);
    m.input_arguments = {inputs.begin(), inputs.end()};
    req.methods_to_call.push_back(std::move(m));
    auto& r = call_as<ua::call_response>(req, ms);
    REQUIRE(r.results.size() == 1);
    return r.results[0];
  }
};

const ua::node_id cn_alarm = ua::node_id::string(1, "Alarm.Double");
const ua::node_id cn_input = ua::node_id::string(1, "Demo.Static.Scalar.Double");
ua::node_id cn_child(const char* path) { return ua::node_id::string(1, std::string("Alarm.Double.") + path); }

limit_alarm cn_limit_alarm(std::chrono::milliseconds max_time_shelved = {}) {
  limit_alarm a;
  a.id = cn_alarm;
  a.input = cn_input;
  a.name = "TankLevel";
  a.high_high = 90;
  a.high = 70;
  a.low = 20;
  a.low_low = 10;
  a.deadband = 2;
  a.max_time_shelved = max_time_shelved;
  return a;
}

// EventId, ActiveState/Id, AckedState/Id, SuppressedOrShelved, ShelvingState/CurrentState,
// ShelvingState/LastTransition, Severity, Comment.
ua::extension_object cn_filter() {
  ua::event_filter f;
  f.select_clauses.push_back(test::event_field(2041, {"EventId"}));
  f.select_clauses.push_back(test::event_field(2915, {"ActiveState", "Id"}));
  f.select_clauses.push_back(test::event_field(2881, {"AckedState", "Id"}));
  f.select_clauses.push_back(test::event_field(2915, {"SuppressedOrShelved"}));
  f.select_clauses.push_back(test::event_field(2915, {"ShelvingState", "CurrentState"}));
  f.select_clauses.push_back(test::event_field(2915, {"ShelvingState", "LastTransition"}));
  f.select_clauses.push_back(test::event_field(2041, {"Severity"}));
  f.select_clauses.push_back(test::event_field(2782, {"Comment"}));
  return ua::extension_object(std::move(f));
}

struct cn_event {
  ua::byte_string event_id;
  bool active = false, acked = false, shelved_flag = false;
  std::string shelving, last_transition, comment;
  std::uint16_t severity = 0;
};

struct cn_notes {
  std::vector<cn_event> events;
  std::vector<std::pair<std::uint32_t, ua::variant>> changes;  // client handle, value
};

std::string cn_text(const ua::variant& v) {
  const auto* t = v.get_if<ua::localized_text>();
  return t ? std::string(t->text.view()) : std::string();
}

// One Publish answered at `ms` (the tick after it): the events and data changes it carries.
cn_notes cn_publish(cn_client& c, actors::server_core& core, std::int64_t& ms) {
  ms += 100;
  cn_notes n;
  ua::extension_object answer;
  if (c.publish(ms)) {
    answer = c.response;
  } else {
    core.publish_tick(at(ms));
    if (core.deferred().empty()) return n;
    REQUIRE(ua::decode_message(core.deferred()[0].message.bytes(), answer) == status::good);
    core.clear_deferred();
  }
  const auto* p = answer.get_if<ua::publish_response>();
  REQUIRE(p);
  for (const auto& eo : p->notification_message.notification_data) {
    if (const auto* l = eo.get_if<ua::event_notification_list>()) {
      for (const auto& e : l->events) {
        REQUIRE(e.event_fields.size() == 8);
        cn_event x;
        if (const auto* b = e.event_fields[0].get_if<ua::byte_string>()) x.event_id = *b;
        const auto flag = [&](std::size_t i) {
          const bool* b = e.event_fields[i].get_if<bool>();
          return b && *b;
        };
        x.active = flag(1);
        x.acked = flag(2);
        x.shelved_flag = flag(3);
        x.shelving = cn_text(e.event_fields[4]);
        x.last_transition = cn_text(e.event_fields[5]);
        if (const auto* s = e.event_fields[6].get_if<std::uint16_t>()) x.severity = *s;
        x.comment = cn_text(e.event_fields[7]);
        n.events.push_back(std::move(x));
      }
    }
    if (const auto* d = eo.get_if<ua::data_change_notification>())
      for (const auto& m : d->monitored_items) n.changes.emplace_back(m.client_handle, m.value.value);
  }
  return n;
}

std::vector<std::string> cn_browse_names(cn_client& c, const ua::node_id& node) {
  ua::browse_request req;
  ua::browse_description d;
  d.node_id = node;
  d.browse_direction = ua::browse_direction::forward;
  d.reference_type_id = ua::node_id(0, 33);  // HierarchicalReferences
  d.include_subtypes = true;
  d.result_mask = 63;
  req.nodes_to_browse.push_back(d);
  auto& r = c.call_as<ua::browse_response>(req);
  REQUIRE(r.results.size() == 1);
  REQUIRE(r.results[0].status_code == status::good);
  std::vector<std::string> names;
  for (const auto& ref : r.results[0].references) names.emplace_back(ref.browse_name.name.view());
  return names;
}

bool cn_has(const std::vector<std::string>& v, const char* s) { return std::find(v.begin(), v.end(), s) != v.end(); }

constexpr std::uint32_t cn_acknowledge = 9111, cn_disable = 9028, cn_enable = 9027, cn_timed_shelve = 2949,
                        cn_one_shot_shelve = 2948, cn_unshelve = 2947, cn_timed_shelve2 = 24756,
                        cn_one_shot_shelve2 = 24760, cn_unshelve2 = 24758;

ua::localized_text cn_comment(const char* s) { return {ua::ua_string("en"), ua::ua_string(s)}; }

}  // namespace

TEST_CASE("condition nodes: the condition is an Object with its Part 9 Variables, browsable and readable",
          "[events][alarms][conditions]") {
  auto core = test::make_core();
  test::apply_value(core, cn_input, 50, 0);  // normal
  REQUIRE(core.add_limit_alarm(cn_limit_alarm(std::chrono::milliseconds(60'000)), at(0)) == status::good);
  cn_client c(core);
  // The Object, its TypeDefinition, its components and properties; the Methods are the types'.
  CHECK(c.read(cn_alarm, 2).value == ua::variant(std::int32_t{1}));  // NodeClass Object
  const auto names = cn_browse_names(c, cn_alarm);
  for (const char* n : {"EventId", "Severity", "Retain", "EnabledState", "ActiveState", "AckedState", "ConfirmedState",
                        "Quality", "LastSeverity", "Comment", "ConditionName", "BranchId", "SourceNode", "SourceName",
                        "Message", "InputNode", "SuppressedOrShelved", "ShelvingState", "MaxTimeShelved", "LimitState",
                        "HighHighLimit", "HighLimit", "LowLimit", "LowLowLimit", "Acknowledge", "Confirm",
                        "AddComment", "Enable", "Disable"})
    CHECK(cn_has(names, n));
  const auto active = cn_browse_names(c, cn_child("ActiveState"));
  CHECK(cn_has(active, "Id"));
  CHECK(cn_has(active, "TransitionTime"));
  const auto shelving = cn_browse_names(c, cn_child("ShelvingState"));
  for (const char* n : {"CurrentState", "LastTransition", "UnshelveTime", "TimedShelve", "OneShotShelve", "Unshelve",
                        "TimedShelve2", "OneShotShelve2", "Unshelve2"})
    CHECK(cn_has(shelving, n));
  // The source finds its condition (HasCondition), the equipment holds it (its parent Object).
  CHECK(core.conditions().variable_count(0) >= 35);

  // The values: normal, enabled, acknowledged, unshelved, MaxTimeShelved as given.
  CHECK(c.read(cn_child("ActiveState.Id")).value == ua::variant(false));
  CHECK(c.read(cn_child("EnabledState.Id")).value == ua::variant(true));
  CHECK(cn_text(c.read(cn_child("EnabledState")).value) == "Enabled");
  CHECK(c.read(cn_child("ConditionName")).value == ua::variant(ua::ua_string("TankLevel")));
  CHECK(c.read(cn_child("SourceNode")).value == ua::variant(cn_input));
  CHECK(c.read(cn_child("HighLimit")).value == ua::variant(70.0));
  CHECK(c.read(cn_child("MaxTimeShelved")).value == ua::variant(60'000.0));
  CHECK(cn_text(c.read(cn_child("ShelvingState.CurrentState")).value) == "Unshelved");
  CHECK(c.read(cn_child("ShelvingState.CurrentState.Id")).value == ua::variant(ua::node_id(0, 2930)));
  CHECK(c.read(cn_child("SuppressedOrShelved")).value == ua::variant(false));
  CHECK(c.read(cn_child("ActiveState.Id"), 14).value == ua::variant(ua::node_id(0, 1)));  // DataType Boolean
}

TEST_CASE("condition nodes: the Variables equal the latest event's fields, and data items see them change",
          "[events][alarms][conditions]") {
  auto core = test::make_core();
  test::apply_value(core, cn_input, 50, 0);  // normal
  REQUIRE(core.add_limit_alarm(cn_limit_alarm(), at(0)) == status::good);
  cn_client c(core);
  const auto sub = c.subscribe();
  REQUIRE(c.monitor(sub, ua::node_id(0, 2253), 12, 1, cn_filter()) == status::good);
  REQUIRE(c.monitor(sub, cn_child("ActiveState.Id"), 13, 2) == status::good);
  REQUIRE(c.monitor(sub, cn_child("AckedState.Id"), 13, 3) == status::good);
  std::int64_t ms = 0;
  auto first = cn_publish(c, core, ms);  // the items' initial values
  CHECK(first.changes.size() == 2);

  test::apply_value(core, cn_input, 75, ms + 10);  // High
  auto high = cn_publish(c, core, ms);
  REQUIRE(high.events.size() == 1);
  CHECK(high.events[0].active);
  CHECK_FALSE(high.events[0].acked);
  std::sort(high.changes.begin(), high.changes.end(), [](const auto& x, const auto& y) { return x.first < y.first; });
  CHECK(high.changes == std::vector<std::pair<std::uint32_t, ua::variant>>{{2, ua::variant(true)}, {3, ua::variant(false)}});
  // Equal to the event: EventId, Severity, the states, the limit state's name and id.
  CHECK(c.read(cn_child("EventId")).value == ua::variant(high.events[0].event_id));
  CHECK(c.read(cn_child("Severity")).value == ua::variant(std::uint16_t{700}));
  CHECK(c.read(cn_child("LastSeverity")).value == ua::variant(std::uint16_t{1}));
  CHECK(cn_text(c.read(cn_child("ActiveState")).value) == "Active");
  CHECK(c.read(cn_child("ActiveState.TransitionTime")).value == ua::variant(at(110).utc));
  CHECK(cn_text(c.read(cn_child("LimitState.CurrentState")).value) == "High");
  CHECK(c.read(cn_child("LimitState.CurrentState.Id")).value == ua::variant(ua::node_id(0, 9331)));
  CHECK(c.read(cn_child("Retain")).value == ua::variant(true));

  // Acknowledge with the EventId read from the node: the node and the event move together.
  const auto ack = c.call_method(cn_alarm, cn_acknowledge,
                                 {c.read(cn_child("EventId")).value, ua::variant(cn_comment("seen"))}, ms + 10);
  CHECK(ack.status_code == status::good);
  auto acked = cn_publish(c, core, ms);
  REQUIRE(acked.events.size() == 1);
  CHECK(acked.events[0].acked);
  CHECK(acked.changes == std::vector<std::pair<std::uint32_t, ua::variant>>{{3, ua::variant(true)}});
  CHECK(cn_text(c.read(cn_child("Comment")).value) == "seen");
  CHECK(c.read(cn_child("EventId")).value == ua::variant(acked.events[0].event_id));
}

TEST_CASE("condition nodes: the methods answer on the condition and on its ShelvingState, not on other nodes",
          "[events][alarms][conditions][shelving]") {
  auto core = test::make_core();
  test::apply_value(core, cn_input, 50, 0);  // normal
  REQUIRE(core.add_limit_alarm(cn_limit_alarm(), at(0)) == status::good);
  cn_client c(core);
  // TimedShelve on the ShelvingState Object (the usual way) and with the ConditionId (§5.8.17.3).
  CHECK(c.call_method(cn_child("ShelvingState"), cn_timed_shelve, {ua::variant(1000.0)}, 0).status_code == status::good);
  CHECK(c.call_method(cn_alarm, cn_unshelve, {}, 0).status_code == status::good);
  // The instance declaration's method id (AlarmConditionType's ShelvingState/TimedShelve) works too.
  CHECK(c.call_method(cn_alarm, 9213, {ua::variant(1000.0)}, 0).status_code == status::good);
  // Acknowledge is the condition's, not the state machine's.
  CHECK(c.call_method(cn_child("ShelvingState"), cn_acknowledge, {ua::variant(ua::byte_string("x")), ua::variant(cn_comment("x"))}, 0)
            .status_code == status::bad_method_invalid);
  CHECK(c.call_method(cn_input, cn_timed_shelve, {ua::variant(1000.0)}, 0).status_code == status::bad_method_invalid);
  CHECK(c.call_method(ua::node_id::string(1, "nothing"), cn_unshelve, {}, 0).status_code == status::bad_node_id_unknown);
  // Arguments: count and type.
  CHECK(c.call_method(cn_alarm, cn_one_shot_shelve, {ua::variant(1.0)}, 0).status_code == status::bad_too_many_arguments);
  CHECK(c.call_method(cn_alarm, cn_timed_shelve2, {ua::variant(1.0)}, 0).status_code == status::bad_arguments_missing);
  CHECK(c.call_method(cn_alarm, cn_one_shot_shelve2, {ua::variant(std::int32_t{5})}, 0).status_code ==
        status::bad_invalid_argument);
}

// The ShelvedStateMachine (Part 9 §5.8.17) as a table: each step a call, a tick or a value at a time,
// the status it gets, then the state and the events it caused.
TEST_CASE("shelving: the state machine through a table of calls, ticks and values", "[events][alarms][shelving]") {
  struct step {
    std::int64_t at;
    enum { call, tick, value } what;
    std::uint32_t method = 0;
    std::vector<ua::variant> args{};
    double v = 0;
    ua::status_code want = status::good;
    actors::condition_manager::shelving state = actors::condition_manager::shelving::unshelved;
    std::vector<std::string> events{};  // "ShelvingState/CurrentState LastTransition" of each event
  };
  using sh = actors::condition_manager::shelving;
  const auto d = [](double ms) { return ua::variant(ms); };
  const std::vector<step> table{
      // Unshelve while unshelved; a time that is no time, or longer than MaxTimeShelved (60 s).
      {0, step::call, cn_unshelve, {}, 0, status::bad_condition_not_shelved, sh::unshelved, {}},
      {0, step::call, cn_timed_shelve, {d(0)}, 0, status::bad_shelving_time_out_of_range, sh::unshelved, {}},
      {0, step::call, cn_timed_shelve, {d(-5)}, 0, status::bad_shelving_time_out_of_range, sh::unshelved, {}},
      {0, step::call, cn_timed_shelve, {d(60'001)}, 0, status::bad_shelving_time_out_of_range, sh::unshelved, {}},
      // Timed for 5 s: shelved, not restarted, unshelved by the tick once the time is up.
      {0, step::call, cn_timed_shelve, {d(5'000)}, 0, status::good, sh::timed, {"TimedShelved UnshelvedToTimedShelved"}},
      {1'000, step::call, cn_timed_shelve, {d(5'000)}, 0, status::bad_condition_already_shelved, sh::timed, {}},
      {2'000, step::value, 0, {}, 75, status::good, sh::timed, {"TimedShelved UnshelvedToTimedShelved"}},  // flagged, not dropped
      {4'000, step::tick, 0, {}, 0, status::good, sh::timed, {}},
      {5'000, step::tick, 0, {}, 0, status::good, sh::unshelved, {"Unshelved TimedShelvedToUnshelved"}},
      // One-shot while active: ends when the alarm goes inactive, not on a tick.
      {6'000, step::call, cn_one_shot_shelve, {}, 0, status::good, sh::one_shot, {"OneShotShelved UnshelvedToOneShotShelved"}},
      {6'000, step::call, cn_one_shot_shelve, {}, 0, status::bad_condition_already_shelved, sh::one_shot, {}},
  };
  auto core = test::make_core();
  test::apply_value(core, cn_input, 50, 0);  // normal
  REQUIRE(core.add_limit_alarm(cn_limit_alarm(std::chrono::milliseconds(60'000)), at(0)) == status::good);
  cn_client c(core);
  const auto sub = c.subscribe();
  REQUIRE(c.monitor(sub, ua::node_id(0, 2253), 12, 1, cn_filter()) == status::good);
  std::int64_t ms = 0;
  cn_publish(c, core, ms);
  const auto run = [&](const std::vector<step>& rows) {
    for (std::size_t i = 0; i < rows.size(); ++i) {
      const step& s = rows[i];
      INFO("row " << i);
      if (s.what == step::call) {
        CHECK(c.call_method(cn_alarm, s.method, s.args, s.at).status_code == s.want);
      } else if (s.what == step::tick) {
        core.on_tick(at(s.at));
      } else {
        test::apply_value(core, cn_input, s.v, s.at);
      }
      CHECK(core.conditions().shelving_state(0) == s.state);
      ms = std::max(ms, s.at);
      std::vector<std::string> seen;
      for (const auto& e : cn_publish(c, core, ms).events) {
        seen.push_back(e.shelving + " " + e.last_transition);
        CHECK(e.shelved_flag == (e.shelving != "Unshelved"));
      }
      CHECK(seen == s.events);
    }
  };
  run(table);
  // With MaxTimeShelved (60 s), a one-shot shelf ends after it too (§5.8.17.2), though still active.
  core.on_tick(at(65'999));
  CHECK(core.conditions().shelving_state(0) == sh::one_shot);
  core.on_tick(at(66'000));
  CHECK(core.conditions().shelving_state(0) == sh::unshelved);
  ms = 66'000;
  const auto ended = cn_publish(c, core, ms).events;
  REQUIRE(ended.size() == 1);
  CHECK(ended[0].last_transition == "OneShotShelvedToUnshelved");

  // One-shot on an active alarm lasts until it goes inactive; the shelf kinds replace each other.
  const std::vector<step> one_shot{
      {70'000, step::call, cn_one_shot_shelve2, {ua::variant(cn_comment("nuisance"))}, 0, status::good, sh::one_shot,
       {"OneShotShelved UnshelvedToOneShotShelved"}},
      {70'100, step::value, 0, {}, 95, status::good, sh::one_shot, {"OneShotShelved UnshelvedToOneShotShelved"}},  // HighHigh
      {70'200, step::call, cn_timed_shelve2, {d(10'000), ua::variant(cn_comment("timed now"))}, 0, status::good, sh::timed,
       {"TimedShelved OneShotShelvedToTimedShelved"}},
      {70'300, step::call, cn_one_shot_shelve, {}, 0, status::good, sh::one_shot, {"OneShotShelved TimedShelvedToOneShotShelved"}},
      {70'400, step::value, 0, {}, 50, status::good, sh::unshelved, {"Unshelved OneShotShelvedToUnshelved"}},  // inactive
      {70'500, step::call, cn_timed_shelve, {d(1'000)}, 0, status::good, sh::timed, {"TimedShelved UnshelvedToTimedShelved"}},
      {70'600, step::call, cn_unshelve2, {ua::variant(cn_comment("back"))}, 0, status::good, sh::unshelved,
       {"Unshelved TimedShelvedToUnshelved"}},
      {72'000, step::tick, 0, {}, 0, status::good, sh::unshelved, {}},  // the old deadline does nothing
  };
  run(one_shot);
  CHECK(cn_text(c.read(cn_child("Comment")).value) == "back");
  CHECK(core.conditions().shelved_count() == 0);
}

TEST_CASE("shelving: UnshelveTime counts down on the tick, MaxTimeShelved bounds it, a disabled condition refuses",
          "[events][alarms][shelving]") {
  auto core = test::make_core();
  test::apply_value(core, cn_input, 50, 0);  // normal
  REQUIRE(core.add_limit_alarm(cn_limit_alarm(std::chrono::milliseconds(60'000)), at(0)) == status::good);
  cn_client c(core);
  const auto sub = c.subscribe();
  REQUIRE(c.monitor(sub, cn_child("ShelvingState.UnshelveTime"), 13, 7) == status::good);
  std::int64_t ms = 0;
  CHECK(cn_publish(c, core, ms).changes == std::vector<std::pair<std::uint32_t, ua::variant>>{{7, ua::variant(0.0)}});
  REQUIRE(c.call_method(cn_alarm, cn_timed_shelve, {ua::variant(30'000.0)}, 1'000).status_code == status::good);
  CHECK(c.read(cn_child("ShelvingState.UnshelveTime")).value == ua::variant(30'000.0));
  CHECK(c.read(cn_child("SuppressedOrShelved")).value == ua::variant(true));
  core.on_tick(at(11'000));
  CHECK(c.read(cn_child("ShelvingState.UnshelveTime")).value == ua::variant(20'000.0));
  ms = 11'000;
  const auto seen = cn_publish(c, core, ms).changes;
  REQUIRE_FALSE(seen.empty());
  CHECK(seen.back() == std::pair<std::uint32_t, ua::variant>{7, ua::variant(20'000.0)});
  core.on_tick(at(31'000));
  CHECK(c.read(cn_child("ShelvingState.UnshelveTime")).value == ua::variant(0.0));
  CHECK(c.read(cn_child("SuppressedOrShelved")).value == ua::variant(false));
  CHECK(c.read(cn_child("ShelvingState.LastTransition.Id")).value == ua::variant(ua::node_id(0, 2940)));

  // A one-shot shelf of an alarm without MaxTimeShelved reports the largest Duration (§5.8.17.2).
  auto other = test::make_core();
  test::apply_value(other, cn_input, 50, 0);
  REQUIRE(other.add_limit_alarm(cn_limit_alarm(), at(0)) == status::good);
  cn_client o(other);
  REQUIRE(o.call_method(cn_alarm, cn_one_shot_shelve, {}, 0).status_code == status::good);
  CHECK(o.read(cn_child("ShelvingState.UnshelveTime")).value == ua::variant(DBL_MAX));
  // No MaxTimeShelved: up to a year.
  CHECK(o.call_method(cn_alarm, cn_timed_shelve, {ua::variant(400.0 * 24 * 3600 * 1000)}, 0).status_code ==
        status::bad_shelving_time_out_of_range);
  // Disabled: shelving waits for Enable.
  REQUIRE(o.call_method(cn_alarm, cn_disable, {}, 0).status_code == status::good);
  CHECK(o.call_method(cn_alarm, cn_unshelve, {}, 0).status_code == status::bad_condition_disabled);
  REQUIRE(o.call_method(cn_alarm, cn_enable, {}, 0).status_code == status::good);
  CHECK(o.call_method(cn_alarm, cn_unshelve, {}, 0).status_code == status::good);
}

TEST_CASE("condition nodes: a condition whose child NodeId is taken is refused whole, nothing left behind",
          "[events][alarms][conditions]") {
  auto core = test::make_core();
  ua::node_spec s;
  s.id = cn_child("ActiveState");
  s.cls = ua::node_class::object;
  s.browse_ns = 1;
  s.browse_name = "squatter";
  REQUIRE(core.space().add_node(std::move(s)));
  CHECK(core.add_limit_alarm(cn_limit_alarm(), at(0)) == status::bad_node_id_exists);
  CHECK(core.conditions().size() == 0);
  CHECK(core.space().find(cn_alarm) == ua::no_node);
  CHECK(core.space().find(cn_child("EventId")) == ua::no_node);
}

}  // namespace server_condition_nodes_test
