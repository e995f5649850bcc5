// The audit events of the Part 9 methods (§5.10) through server_core with audit_events on: one
// AuditConditionEventType subtype per method call (Enable, AddComment, Acknowledge, Confirm,
// Shelving, Suppression, OutOfService), refused calls too, SourceNode the ConditionId, SourceName
// "Method/<name>", and the fields of each subtype; none without audit_events, none for
// ConditionRefresh.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "engine/server/server_core.hpp"
#include "tests/engine/server/condition_client.hpp"

// Everything in a namespace of its own (docs/decisions/0050).
namespace server_condition_audit_test {

using namespace uactor;
namespace status = ua::status;
using test::at;

const ua::node_id au_alarm = ua::node_id::string(1, "Alarm.Double");
const ua::node_id au_input = ua::node_id::string(1, "Demo.Static.Scalar.Double");

actors::server_core au_core(bool audit) {
  actors::server_core_config c;
  c.description.application_uri = "urn:test:uactor:server";
  c.description.endpoint_url = "opc.tcp://localhost:4840";
  c.sessions.random = [n = std::uint8_t{0}](std::span<std::uint8_t> out) mutable {
    for (auto& b : out) b = ++n;
  };
  c.audit_events = audit;
  return actors::make_demo_server_core(std::move(c), "test", at(0).utc);
}

// One audit event as the tests compare it.
struct audit_note {
  std::uint32_t type = 0;
  ua::node_id source;
  std::string source_name;
  bool status = false;
  ua::node_id method;
  ua::variant condition_event_id, comment, shelving_time;
  std::size_t input_arguments = 0;
};

ua::event_filter au_filter() {
  ua::event_filter f;
  f.select_clauses.push_back(test::event_field(2041, {"EventType"}));
  f.select_clauses.push_back(test::event_field(2041, {"SourceNode"}));
  f.select_clauses.push_back(test::event_field(2041, {"SourceName"}));
  f.select_clauses.push_back(test::event_field(2052, {"Status"}));
  f.select_clauses.push_back(test::event_field(2127, {"MethodId"}));
  f.select_clauses.push_back(test::event_field(8944, {"ConditionEventId"}));
  f.select_clauses.push_back(test::event_field(8944, {"Comment"}));
  f.select_clauses.push_back(test::event_field(11093, {"ShelvingTime"}));
  f.select_clauses.push_back(test::event_field(2127, {"InputArguments"}));
  // Only the audit events of conditions (OfType AuditConditionEventType).
  ua::content_filter_element e;
  e.filter_operator = ua::filter_operator::of_type;
  ua::literal_operand t;
  t.value = ua::node_id(0, 2790);
  e.filter_operands.push_back(ua::extension_object(t));
  f.where_clause.elements.push_back(std::move(e));
  return f;
}

// The events of one Publish answered after `ms` (moved on by 100 ms), in order; RefreshStart and
// RefreshEnd (which pass every where clause) left out.
std::vector<audit_note> au_events(test::condition_client& c, std::int64_t& ms) {
  ms += 100;
  std::vector<audit_note> out;
  ua::extension_object answer;
  if (c.publish(ms)) {
    answer = c.response;
  } else {
    c.core.publish_tick(at(ms));
    if (c.core.deferred().empty()) return out;
    REQUIRE(ua::decode_message(c.core.deferred()[0].message.bytes(), answer) == ua::status::good);
    c.core.clear_deferred();
  }
  const auto* p = answer.get_if<ua::publish_response>();
  REQUIRE(p);
  for (const auto& eo : p->notification_message.notification_data) {
    const auto* l = eo.get_if<ua::event_notification_list>();
    if (!l) continue;
    for (const auto& e : l->events) {
      REQUIRE(e.event_fields.size() == 9);
      const auto& f = e.event_fields;
      audit_note n;
      if (const auto* t = f[0].get_if<ua::node_id>()) n.type = t->numeric();
      if (n.type == 2787 || n.type == 2788) continue;  // RefreshStartEventType, RefreshEndEventType
      if (const auto* s = f[1].get_if<ua::node_id>()) n.source = *s;
      if (const auto* s = f[2].get_if<ua::ua_string>()) n.source_name = std::string(s->view());
      if (const auto* b = f[3].get_if<bool>()) n.status = *b;
      if (const auto* m = f[4].get_if<ua::node_id>()) n.method = *m;
      n.condition_event_id = f[5];
      n.comment = f[6];
      n.shelving_time = f[7];
      if (const auto* a = f[8].get_if<ua::ua_array<ua::variant>>()) n.input_arguments = a->size();
      out.push_back(std::move(n));
    }
  }
  return out;
}

TEST_CASE("condition audit: each Part 9 method raises its AuditConditionEventType subtype with its fields",
          "[events][alarms][audit]") {
  auto core = au_core(true);
  test::apply_value(core, au_input, 50, 0);
  limit_alarm a;
  a.id = au_alarm;
  a.input = au_input;
  a.name = "TankLevel";
  a.high = 70;
  REQUIRE(core.add_limit_alarm(a, at(0)) == status::good);
  test::condition_client c(core);
  const auto sub = c.subscribe();
  REQUIRE(c.monitor_events(sub, 1, au_filter()) == status::good);
  std::int64_t ms = 0;
  au_events(c, ms);
  test::apply_value(core, au_input, 80, 100);  // active: a state event, no audit event
  ms = 100;
  CHECK(au_events(c, ms).empty());
  const ua::byte_string event_id = core.conditions().last_event_id(0);
  const auto comment = ua::variant(test::condition_comment("seen"));

  struct row {
    std::uint32_t method;
    ua::node_id object;
    std::vector<ua::variant> args;
    ua::status_code want;
    std::uint32_t type;
    const char* source_name;
  };
  const ua::node_id shelving = ua::node_id::string(1, "Alarm.Double.ShelvingState");
  const std::vector<row> table{
      {9111, au_alarm, {ua::variant(event_id), comment}, status::good, 8944, "Method/Acknowledge"},
      // Refused (the EventId is no longer the latest): audited too, with Status false.
      {9111, au_alarm, {ua::variant(event_id), comment}, status::bad_event_id_unknown, 8944, "Method/Acknowledge"},
      {9113, au_alarm, {ua::variant(event_id), comment}, status::bad_event_id_unknown, 8961, "Method/Confirm"},
      {9029, au_alarm, {ua::variant(ua::byte_string()), comment}, status::bad_event_id_unknown, 2829, "Method/AddComment"},
      {2949, shelving, {ua::variant(60'000.0)}, status::good, 11093, "Method/TimedShelve"},
      {2947, au_alarm, {}, status::good, 11093, "Method/Unshelve"},
      {16403, au_alarm, {}, status::good, 17225, "Method/Suppress"},
      {24318, au_alarm, {comment}, status::good, 17225, "Method/Unsuppress2"},
      {17869, au_alarm, {}, status::good, 17259, "Method/RemoveFromService"},
      {17870, au_alarm, {}, status::good, 17259, "Method/PlaceInService"},
      {9028, au_alarm, {}, status::good, 2803, "Method/Disable"},
      {9027, au_alarm, {}, status::good, 2803, "Method/Enable"},
  };
  std::int64_t t = 1'000;
  for (std::size_t i = 0; i < table.size(); ++i) {
    const row& r = table[i];
    INFO("row " << i << " " << r.source_name);
    CHECK(c.call_method(r.object, r.method, r.args, t) == r.want);
    ms = t;
    const auto seen = au_events(c, ms);
    REQUIRE(seen.size() == 1);
    const audit_note& n = seen[0];
    CHECK(n.type == r.type);
    CHECK(n.source == au_alarm);  // the ConditionId, also for a method called on the ShelvingState
    CHECK(n.source_name == r.source_name);
    CHECK(n.status == r.want.is_good());
    CHECK(n.method == ua::node_id(0, r.method));
    CHECK(n.input_arguments == r.args.size());
    if (r.type == 8944 || r.type == 8961 || r.type == 2829) {
      CHECK(n.condition_event_id == r.args[0]);
      CHECK(n.comment == comment);
    } else {
      CHECK(n.condition_event_id.empty());
    }
    if (r.type == 11093 && !r.args.empty()) CHECK(n.shelving_time == ua::variant(60'000.0));
    t += 1'000;
  }
  // ConditionRefresh raises none (its RefreshStart and RefreshEnd are no audit events, left out above).
  CHECK(c.call_method(ua::node_id(0, 2782), 3875, {ua::variant(sub)}, t) == status::good);
  ms = t;
  CHECK(au_events(c, ms).empty());
}

TEST_CASE("condition audit: nothing without audit_events", "[events][alarms][audit]") {
  auto core = au_core(false);
  test::apply_value(core, au_input, 80, 0);
  limit_alarm a;
  a.id = au_alarm;
  a.input = au_input;
  a.name = "TankLevel";
  a.high = 70;
  REQUIRE(core.add_limit_alarm(a, at(0)) == status::good);
  test::condition_client c(core);
  REQUIRE(c.monitor_events(c.subscribe(), 1, au_filter()) == status::good);
  std::int64_t ms = 0;
  au_events(c, ms);
  CHECK(c.call_method(au_alarm, 16403, {}, 1'000) == status::good);
  ms = 1'000;
  CHECK(au_events(c, ms).empty());
}

}  // namespace server_condition_audit_test
