// Alarm groups (Part 9 §8.1 AlarmGroupType) and alarm metrics (§8.2 AlarmMetricsType) through
// server_core with a passed-in clock: the Server's and each group's AlarmMetrics Object, an alarm in
// several groups, the metrics as alarms come, go and are acknowledged, the Reset method, chattering.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/server/server_core.hpp"
#include "tests/engine/server/condition_client.hpp"
#include "uactor/ua/node_ids.hpp"

// Everything in a namespace of its own (docs/decisions/0050).
namespace server_condition_metrics_test {

using namespace uactor;
namespace status = ua::status;
using test::at;

const ua::node_id me_area1 = ua::node_id::string(1, "Plant.Area1");
const ua::node_id me_area2 = ua::node_id::string(1, "Plant.Area2");
const ua::node_id me_input = ua::node_id::string(1, "Demo.Static.Scalar.Double");
const ua::node_id me_bool_input = ua::node_id::string(1, "Demo.Static.Scalar.Boolean");
const ua::node_id me_server_metrics = ua::node_id::string(1, "Server.AlarmMetrics");
constexpr std::uint32_t me_reset = 18666, me_acknowledge = 9111;

ua::node_id me_metric(const ua::node_id& scope, const char* name) {
  return ua::node_id::string(scope.namespace_index(), std::string(scope.text()) + "." + name);
}
ua::node_id me_group_metrics(const ua::node_id& group) {
  return ua::node_id::string(group.namespace_index(), std::string(group.text()) + ".AlarmMetrics");
}

limit_alarm me_level_alarm(std::vector<ua::node_id> groups) {
  limit_alarm a;
  a.id = ua::node_id::string(1, "Level.Alarm");
  a.input = me_input;
  a.name = "Level";
  a.high = 70;
  a.max_branches = 0;
  a.groups = std::move(groups);
  return a;
}

void me_set_bool(actors::server_core& core, bool v, std::int64_t ms) {
  value_update u;
  u.node.index = core.space().find(me_bool_input);
  u.value = v;
  REQUIRE(core.apply_values(std::span(&u, 1), at(ms)) == 0);
}

TEST_CASE("alarm groups: AlarmGroupType folders with AlarmGroupMember references, an alarm in two",
          "[events][alarms][groups]") {
  auto core = test::make_core();
  alarm_group g1{me_area1, "", {}};
  alarm_group g2{me_area2, "Area Two", ua::node_id(0, ua::ids::server)};
  REQUIRE(core.add_alarm_group(g1, at(0)) == status::good);
  REQUIRE(core.add_alarm_group(g2, at(0)) == status::good);
  CHECK(core.add_alarm_group(g1, at(0)) == status::bad_node_id_exists);
  CHECK(core.add_alarm_group({ua::node_id::string(1, "G3"), "", ua::node_id::string(1, "Nowhere")}, at(0)) ==
        status::bad_parent_node_id_invalid);
  CHECK(core.add_alarm_group({ua::node_id::string(1, "G4"), "", me_input}, at(0)) == status::bad_parent_node_id_invalid);
  CHECK(core.add_alarm_group({}, at(0)) == status::bad_invalid_argument);
  // An alarm naming a group that add_alarm_group did not make is refused, nothing left behind.
  CHECK(core.add_limit_alarm(me_level_alarm({ua::node_id(0, ua::ids::server)}), at(0)) == status::bad_node_id_unknown);
  CHECK(core.conditions().size() == 0);
  REQUIRE(core.add_limit_alarm(me_level_alarm({me_area1, me_area2, me_area1}), at(0)) == status::good);

  const auto& space = core.space();
  const auto group = space.find(me_area1);
  REQUIRE(group != ua::no_node);
  CHECK(std::string(space.at(group).browse_name) == "Area1");
  CHECK(std::string(space.at(space.find(me_area2)).browse_name) == "Area Two");
  const auto type_def = space.find(ua::node_id(0, ua::ids::has_type_definition));
  const auto member = space.find(ua::node_id(0, ua::ids::alarm_group_member));
  const auto condition = space.find(ua::node_id::string(1, "Level.Alarm"));
  const auto refs_of = [&](ua::node_index from, ua::node_index type) {
    std::vector<ua::node_index> out;
    for (const auto& r : space.forward_references(from))
      if (r.type == type) out.push_back(r.target);
    return out;
  };
  CHECK(refs_of(group, type_def) == std::vector<ua::node_index>{space.find(ua::node_id(0, ua::ids::alarm_group_type))});
  // Once per group, though the alarm named Area1 twice.
  CHECK(refs_of(group, member) == std::vector<ua::node_index>{condition});
  CHECK(refs_of(space.find(me_area2), member) == std::vector<ua::node_index>{condition});
  // Each group and the Server have an AlarmMetrics Object with the Reset method.
  for (const auto& metrics : {me_group_metrics(me_area1), me_group_metrics(me_area2), me_server_metrics}) {
    const auto m = space.find(metrics);
    REQUIRE(m != ua::no_node);
    CHECK(std::string(space.at(m).browse_name) == "AlarmMetrics");
    CHECK(refs_of(m, type_def) == std::vector<ua::node_index>{space.find(ua::node_id(0, 17279))});
    const auto parts = refs_of(m, space.find(ua::node_id(0, ua::ids::has_component)));
    CHECK(std::find(parts.begin(), parts.end(), space.find(ua::node_id(0, me_reset))) != parts.end());
  }
  const auto server_parts = refs_of(space.find(ua::node_id(0, ua::ids::server)), space.find(ua::node_id(0, ua::ids::has_component)));
  CHECK(std::find(server_parts.begin(), server_parts.end(), space.find(me_server_metrics)) != server_parts.end());
}

TEST_CASE("alarm metrics: counts, the longest active and unacknowledged, rates, Reset", "[events][alarms][metrics]") {
  auto core = test::make_core();
  test::apply_value(core, me_input, 50, 0);
  REQUIRE(core.add_alarm_group({me_area1, "", {}}, at(0)) == status::good);
  REQUIRE(core.add_alarm_group({me_area2, "", {}}, at(0)) == status::good);
  REQUIRE(core.add_limit_alarm(me_level_alarm({me_area1}), at(0)) == status::good);
  off_normal_alarm trip;
  trip.id = ua::node_id::string(1, "Trip.Alarm");
  trip.input = me_bool_input;
  trip.name = "Trip";
  trip.groups = {me_area2};
  me_set_bool(core, false, 0);
  REQUIRE(core.add_off_normal_alarm(trip, at(0)) == status::good);
  test::condition_client c(core);
  const auto server = me_server_metrics, area1 = me_group_metrics(me_area1), area2 = me_group_metrics(me_area2);
  const auto read = [&](const ua::node_id& scope, const char* name) { return c.read(me_metric(scope, name)); };
  core.on_tick(at(500));
  CHECK(read(server, "AlarmCount") == ua::variant(std::uint32_t{0}));
  CHECK(read(server, "StartTime") == ua::variant(at(0).utc));
  CHECK(read(server, "CurrentAlarmRate.Rate") == ua::variant(std::uint16_t{10}));

  // The level alarm: active at 1 s, back at 4 s (3 s active), acknowledged at 6 s (5 s unacknowledged).
  test::apply_value(core, me_input, 80, 1'000);
  test::apply_value(core, me_input, 50, 4'000);
  const auto event_id = core.conditions().last_event_id(0);
  CHECK(c.call_method(ua::node_id::string(1, "Level.Alarm"), me_acknowledge,
                      {ua::variant(event_id), ua::variant(test::condition_comment("seen"))}, 6'000) == status::good);
  // The trip: twice active.
  me_set_bool(core, true, 7'000);
  me_set_bool(core, false, 8'000);
  me_set_bool(core, true, 9'000);
  core.on_tick(at(10'000));
  CHECK(read(server, "AlarmCount") == ua::variant(std::uint32_t{3}));
  CHECK(read(area1, "AlarmCount") == ua::variant(std::uint32_t{1}));
  CHECK(read(area2, "AlarmCount") == ua::variant(std::uint32_t{2}));
  CHECK(read(server, "MaximumActiveState") == ua::variant(3'000.0));
  CHECK(read(area1, "MaximumActiveState") == ua::variant(3'000.0));
  CHECK(read(area2, "MaximumActiveState") == ua::variant(1'000.0));  // the trip's first occurrence
  CHECK(read(server, "MaximumUnAck") == ua::variant(5'000.0));
  CHECK(read(area2, "MaximumUnAck") == ua::variant(0.0));  // nothing of Area2 acknowledged yet
  // Alarms per 10 minutes: all three within the first minute; the average counts the first 10
  // minutes as one period.
  CHECK(read(server, "CurrentAlarmRate") == ua::variant(3.0));
  CHECK(read(server, "MaximumAlarmRate") == ua::variant(3.0));
  CHECK(read(server, "AverageAlarmRate") == ua::variant(3.0));
  // Reset (§8.2) at 5 min: the group's metrics start again; the Server's and the other group's stay.
  CHECK(c.call_method(area2, me_reset, {}, 300'000) == status::good);
  const auto read_at = [&](const ua::node_id& scope, const char* name, std::int64_t ms) {
    ua::read_request req;
    ua::read_value_id id;
    id.node_id = me_metric(scope, name);
    id.attribute_id = 13;
    req.nodes_to_read.push_back(id);
    auto& r = c.call_as<ua::read_response>(req, ms);
    REQUIRE(r.results.size() == 1);
    return r.results[0].value;
  };
  CHECK(read_at(area2, "AlarmCount", 300'000) == ua::variant(std::uint32_t{0}));
  CHECK(read_at(area2, "StartTime", 300'000) == ua::variant(at(300'000).utc));
  CHECK(read_at(area2, "MaximumActiveState", 300'000) == ua::variant(0.0));
  CHECK(read_at(server, "AlarmCount", 300'000) == ua::variant(std::uint32_t{3}));
  CHECK(read_at(area1, "AlarmCount", 300'000) == ua::variant(std::uint32_t{1}));
  read_at(server, "AlarmCount", 700'000);  // the session kept alive (its timeout is 10 minutes)
  // 20 minutes in: none in the last 10; the maximum stays; the average is 3 per 20 minutes.
  core.on_tick(at(20 * 60'000 + 10'000));
  CHECK(read_at(server, "CurrentAlarmRate", 1'210'000) == ua::variant(0.0));
  CHECK(read_at(server, "MaximumAlarmRate", 1'210'000) == ua::variant(3.0));
  const auto average = read_at(server, "AverageAlarmRate", 1'210'000);
  REQUIRE(average.get_if<double>() != nullptr);
  CHECK(*average.get_if<double>() == Approx(3.0 * 10 / (20 + 10.0 / 60)));
  // Reset on what is no AlarmMetrics Object, with an argument, on an unknown node.
  CHECK(c.call_method(me_area2, me_reset, {}, 1'210'000) == status::bad_method_invalid);
  CHECK(c.call_method(server, me_reset, {ua::variant(1.0)}, 1'210'000) == status::bad_too_many_arguments);
  CHECK(c.call_method(ua::node_id::string(1, "No.Such.Metrics"), me_reset, {}, 1'210'000) == status::bad_node_id_unknown);
  CHECK(core.conditions().metrics().alarms_total() == 3);
}

TEST_CASE("alarm metrics: a re-alarm counts for MaximumReAlarmCount, and chattering is counted past N in T",
          "[events][alarms][metrics]") {
  actors::server_core_config cfg;
  cfg.description.application_uri = "urn:test:uactor:server";
  cfg.description.endpoint_url = "opc.tcp://localhost:4840";
  cfg.sessions.random = [n = std::uint8_t{0}](std::span<std::uint8_t> out) mutable {
    for (auto& b : out) b = ++n;
  };
  cfg.alarm_chattering_count = 2;  // more than 2 activations within 10 s
  cfg.alarm_chattering_window = std::chrono::milliseconds(10'000);
  auto core = actors::make_demo_server_core(std::move(cfg), "test", at(0).utc);
  me_set_bool(core, false, 0);
  off_normal_alarm trip;
  trip.id = ua::node_id::string(1, "Trip.Alarm");
  trip.input = me_bool_input;
  trip.name = "Trip";
  trip.parameters.re_alarm_time = std::chrono::milliseconds(1'000);
  REQUIRE(core.add_off_normal_alarm(trip, at(0)) == status::good);
  test::condition_client c(core);
  // Activations at 1, 3, 5 s (the third within 10 s of the first: chattering), 20 s (not: the two
  // before it are 15 s and more ago), 21 s, 22 s (the third of 20-22: chattering again).
  const std::vector<std::pair<std::int64_t, std::uint64_t>> rises{{1'000, 0}, {3'000, 0}, {5'000, 1},
                                                                  {20'000, 1}, {21'000, 1}, {22'000, 2}};
  for (const auto& [ms, chattering] : rises) {
    INFO("at " << ms);
    me_set_bool(core, true, ms);
    CHECK(core.conditions().metrics().chattering_total() == chattering);
    me_set_bool(core, false, ms + 500);
  }
  // Active for 3.5 s with a re-alarm every second: ReAlarmRepeatCount 3.
  me_set_bool(core, true, 30'000);
  for (std::int64_t ms = 31'000; ms <= 33'500; ms += 500) core.on_tick(at(ms));
  CHECK(core.conditions().re_alarm_count(0) == 3);
  core.on_tick(at(34'000));
  CHECK(c.read(me_metric(me_server_metrics, "MaximumReAlarmCount")) == ua::variant(std::uint32_t{3}));
  CHECK(c.read(me_metric(me_server_metrics, "AlarmCount")) == ua::variant(std::uint32_t{7}));
}

}  // namespace server_condition_metrics_test
