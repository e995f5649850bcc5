// Roles and the subscription services (docs/security.md "Roles and permissions"): a session receives
// the events of the areas its roles may receive from (ReceiveEvents on each event's SourceNode, Part
// 3 §8.55), a condition takes its source's area (its methods refused elsewhere), ConditionRefresh
// shows only those conditions, and ModifyMonitoredItems checks the item's node again.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/server/access/permission_table.hpp"
#include "engine/server/server_core.hpp"
#include "protocol/message.hpp"
#include "tests/engine/server/core_fixture.hpp"

// Everything in a namespace of its own: the file shares a unity batch (docs/decisions/0050).
namespace roles_events_test {

using namespace uactor;
namespace status = ua::status;
namespace authz = actors::authz;
namespace perm = authz::permission;
using test::at;

constexpr std::uint32_t re_channel = 7;
constexpr std::uint32_t re_acknowledge = 9111, re_condition_refresh = 3875;

// Two areas, each with a limit alarm: Demo.Static (its alarm on Scalar.Double) and Demo.Dynamic
// (its alarm on Sine).
const ua::node_id area_a = ua::node_id::string(1, "Demo.Static");
const ua::node_id area_b = ua::node_id::string(1, "Demo.Dynamic");
const ua::node_id input_a = ua::node_id::string(1, "Demo.Static.Scalar.Double");
const ua::node_id input_b = ua::node_id::string(1, "Demo.Dynamic.Sine");
const ua::node_id alarm_a = ua::node_id::string(1, "AreaA.Alarm");
const ua::node_id alarm_b = ua::node_id::string(1, "AreaB.Alarm");

limit_alarm re_alarm(const ua::node_id& id, const ua::node_id& input, const char* name) {
  limit_alarm a;
  a.id = id;
  a.input = input;
  a.name = name;
  a.high = 70;
  return a;
}

authz::permission_rule re_rule(const ua::node_id& node, std::uint32_t anonymous_bits) {
  authz::permission_rule r;
  r.node = node.to_string();
  r.roles = {{authz::well_known::anonymous, anonymous_bits}};
  r.where = "test";
  return r;
}

// The anonymous session's role works area A (events, calls) and only looks at area B.
std::vector<authz::permission_rule> area_rules() {
  return {re_rule(area_a, perm::browse | perm::read | perm::receive_events | perm::call),
          re_rule(area_b, perm::browse | perm::read)};
}

struct re_client : test::core_session {
  explicit re_client(actors::server_core& c) : core_session(c, re_channel) {}

  std::uint32_t subscribe() {
    ua::create_subscription_request req;
    req.requested_publishing_interval = 100;
    req.requested_max_keep_alive_count = 10;
    req.requested_lifetime_count = 1000;
    req.publishing_enabled = true;
    return call_as<ua::create_subscription_response>(req).subscription_id;
  }
  ua::create_monitored_items_response& monitor(std::uint32_t sub, const ua::node_id& node, std::uint32_t attribute,
                                                ua::extension_object filter = {}) {
    ua::create_monitored_items_request req;
    req.subscription_id = sub;
    ua::monitored_item_create_request c;
    c.item_to_monitor.node_id = node;
    c.item_to_monitor.attribute_id = attribute;
    c.monitoring_mode = ua::monitoring_mode::reporting;
    c.requested_parameters.client_handle = 1;
    c.requested_parameters.queue_size = 100;
    c.requested_parameters.filter = std::move(filter);
    req.items_to_create.push_back(std::move(c));
    return call_as<ua::create_monitored_items_response>(req);
  }
  ua::status_code modify(std::uint32_t sub, std::uint32_t item) {
    ua::modify_monitored_items_request req;
    req.subscription_id = sub;
    ua::monitored_item_modify_request m;
    m.monitored_item_id = item;
    m.requested_parameters.client_handle = 2;
    m.requested_parameters.queue_size = 1;
    req.items_to_modify.push_back(m);
    auto& r = call_as<ua::modify_monitored_items_response>(req);
    REQUIRE(r.results.size() == 1);
    return r.results[0].status_code;
  }
  ua::status_code call_method(const ua::node_id& object, std::uint32_t method, std::vector<ua::variant> inputs) {
    ua::call_request req;
    ua::call_method_request m;
    m.object_id = object;
    m.method_id = ua::node_id(0, method);
    m.input_arguments = {inputs.begin(), inputs.end()};
    req.methods_to_call.push_back(std::move(m));
    auto& r = call_as<ua::call_response>(req);
    REQUIRE(r.results.size() == 1);
    return r.results[0].status_code;
  }
  ua::variant read(const ua::node_id& node) {
    ua::read_request req;
    ua::read_value_id id;
    id.node_id = node;
    id.attribute_id = 13;
    req.nodes_to_read.push_back(id);
    return call_as<ua::read_response>(req).results.at(0).value;
  }
  // The SourceName of each event the next Publish carries.
  std::vector<std::string> event_sources(std::int64_t& ms) {
    ms += 100;
    std::vector<std::string> names;
    ua::extension_object answer;
    if (publish(ms)) {
      answer = response;
    } else {
      core.publish_tick(at(ms));
      if (core.deferred().empty()) return names;
      REQUIRE(ua::decode_message(core.deferred()[0].message.bytes(), answer) == status::good);
      core.clear_deferred();
    }
    const auto* p = answer.get_if<ua::publish_response>();
    REQUIRE(p);
    for (const auto& eo : p->notification_message.notification_data)
      if (const auto* l = eo.get_if<ua::event_notification_list>())
        for (const auto& e : l->events)
          if (const auto* s = e.event_fields.at(0).get_if<ua::ua_string>()) names.emplace_back(s->view());
    return names;
  }
};

ua::extension_object source_name_filter() {
  ua::event_filter f;
  f.select_clauses.push_back(test::event_field(2041, {"SourceName"}));
  return ua::extension_object(std::move(f));
}

actors::server_core two_areas() {
  auto core = test::make_core();
  test::apply_value(core, input_a, 50, 0);
  test::apply_value(core, input_b, 0.5, 0);
  REQUIRE(core.add_limit_alarm(re_alarm(alarm_a, input_a, "LevelA"), at(0)) == status::good);
  REQUIRE(core.add_limit_alarm(re_alarm(alarm_b, input_b, "LevelB"), at(0)) == status::good);
  REQUIRE(core.set_access(nullptr, area_rules()).empty());
  return core;
}

TEST_CASE("roles: a Server-object event item receives the alarms of the areas its role may receive from",
          "[roles][events][alarms]") {
  auto core = two_areas();
  re_client c(core);
  const auto sub = c.subscribe();
  REQUIRE(c.monitor(sub, ua::node_id(0, 2253), 12, source_name_filter()).results.at(0).status_code == status::good);
  // An item on area B itself is refused: no ReceiveEvents there.
  CHECK(c.monitor(sub, input_b, 12, source_name_filter()).results.at(0).status_code == status::bad_user_access_denied);
  std::int64_t ms = 0;
  c.event_sources(ms);  // nothing yet, a keep-alive at most

  test::apply_value(core, input_a, 80, ms + 10);  // both High
  test::apply_value(core, input_b, 80, ms + 10);
  CHECK(c.event_sources(ms) == std::vector<std::string>{"Double"});

  // ConditionRefresh: area A's condition only, between the refresh markers.
  REQUIRE(c.call_method(ua::node_id(0, 2782), re_condition_refresh, {ua::variant(sub)}) == status::good);
  const auto refreshed = c.event_sources(ms);
  CHECK(std::count(refreshed.begin(), refreshed.end(), "Double") == 1);
  CHECK(std::count(refreshed.begin(), refreshed.end(), "Sine") == 0);

  // Without rules every session receives everything again: area B's alarm going back to normal.
  REQUIRE(core.set_access(nullptr, {}).empty());
  test::apply_value(core, input_b, 10, ms + 10);
  CHECK(c.event_sources(ms) == std::vector<std::string>{"Sine"});
}

TEST_CASE("roles: a condition's methods are its area's: Acknowledge answers in area A, is refused in area B",
          "[roles][events][alarms]") {
  auto core = two_areas();
  test::apply_value(core, input_a, 80, 10);
  test::apply_value(core, input_b, 80, 10);
  re_client c(core);
  const ua::variant comment(ua::localized_text{ua::ua_string("en"), ua::ua_string("seen")});
  const ua::variant id_a = c.read(ua::node_id::string(1, "AreaA.Alarm.EventId"));
  const ua::variant id_b = c.read(ua::node_id::string(1, "AreaB.Alarm.EventId"));
  REQUIRE(id_a.get_if<ua::byte_string>());
  REQUIRE(id_b.get_if<ua::byte_string>());  // readable: the role may Read in area B
  CHECK(c.call_method(alarm_b, re_acknowledge, {id_b, comment}) == status::bad_user_access_denied);
  CHECK(c.read(ua::node_id::string(1, "AreaB.Alarm.AckedState.Id")) == ua::variant(false));
  CHECK(c.call_method(alarm_a, re_acknowledge, {id_a, comment}) == status::good);
  CHECK(c.read(ua::node_id::string(1, "AreaA.Alarm.AckedState.Id")) == ua::variant(true));
}

TEST_CASE("roles: Suppress and RemoveFromService are their condition's area's, as Acknowledge",
          "[roles][events][alarms][suppression]") {
  auto core = two_areas();
  re_client c(core);
  constexpr std::uint32_t suppress = 16403, remove_from_service = 17869;
  CHECK(c.call_method(alarm_b, suppress, {}) == status::bad_user_access_denied);
  CHECK(c.call_method(alarm_b, remove_from_service, {}) == status::bad_user_access_denied);
  CHECK(c.read(ua::node_id::string(1, "AreaB.Alarm.SuppressedState.Id")) == ua::variant(false));
  CHECK(c.call_method(alarm_a, suppress, {}) == status::good);
  CHECK(c.call_method(alarm_a, remove_from_service, {}) == status::good);
  CHECK(c.read(ua::node_id::string(1, "AreaA.Alarm.SuppressedState.Id")) == ua::variant(true));
  CHECK(c.read(ua::node_id::string(1, "AreaA.Alarm.OutOfServiceState.Id")) == ua::variant(true));
}

TEST_CASE("roles: ModifyMonitoredItems checks the item's node again under the rules of the moment", "[roles]") {
  auto core = two_areas();
  re_client c(core);
  const auto sub = c.subscribe();
  auto& created = c.monitor(sub, input_a, 13);
  REQUIRE(created.results.at(0).status_code == status::good);
  const std::uint32_t item = created.results[0].monitored_item_id;
  CHECK(c.modify(sub, item) == status::good);
  // A reload takes Read away in area A.
  auto rules = area_rules();
  rules[0].roles[0].second = perm::browse;
  REQUIRE(core.set_access(nullptr, rules).empty());
  CHECK(c.modify(sub, item) == status::bad_user_access_denied);
}

}  // namespace roles_events_test
