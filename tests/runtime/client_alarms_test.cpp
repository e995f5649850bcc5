// Our client's Part 9 helpers against our own server's limit alarm (docs/decisions/0034): a runtime with a
// server on port 0, an ExclusiveLimitAlarmType on a writable Double added with
// server::add_limit_alarm, and the scenario of tests/support/alarm_scenario.hpp (the same one
// client_alarms_interop_test.cpp runs against node-opcua's alarm).
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "tests/support/alarm_scenario.hpp"
#include "uactor/runtime.hpp"

using namespace uactor;

namespace {

server& start(runtime& rt) {
  auto plan = default_server_plan();
  plan.listen_address = "127.0.0.1";
  plan.port = 0;
  plan.security = {"none"};
  auto started = rt.start_server(plan);
  REQUIRE(started.has_value());
  return **started;
}

// `<tank>.Level`, a writable Double at 50, and `<tank>.Level.Alarm`, an ExclusiveLimitAlarmType on
// it (HighHigh 90, High 70, Low 20, LowLow 10), as node_server.js --alarms serves them.
testing::alarm_scenario_ids add_tank(server& srv, std::uint16_t ns, const std::string& tank) {
  variable_node level;
  level.id = node_id::string(ns, tank + ".Level");
  level.parent = ns0::objects_folder;
  level.browse_name = qualified_name{ns, ua::ua_string(tank + "Level")};
  level.data_type = ns0::double_;
  level.access_level = access::read | access::write;
  level.value.set_value(50.0);
  REQUIRE(srv.apply(level) == status::good);
  limit_alarm alarm;
  alarm.id = node_id::string(ns, tank + ".Level.Alarm");
  alarm.input = level.id;
  alarm.name = tank + "LevelAlarm";
  alarm.high_high = 90;
  alarm.high = 70;
  alarm.low = 20;
  alarm.low_low = 10;
  REQUIRE(srv.add_limit_alarm(alarm) == status::good);
  return {level.id, alarm.id};
}

}  // namespace

TEST_CASE("client: acknowledge, confirm, comment and ConditionRefresh on our server's limit alarm",
          "[runtime][client-events][client-alarms]") {
  runtime rt;
  server& srv = start(rt);
  const auto tank = add_tank(srv, srv.register_namespace("urn:test:client-alarms"), "Tank");
  client_options o;
  o.endpoint_url = "opc.tcp://127.0.0.1:" + std::to_string(srv.port());
  auto c = rt.connect(o);
  REQUIRE(c.has_value());
  const auto lines = testing::run_alarm_scenario(*c, tank);
  c->close();
  INFO(testing::transcript(lines));
  const std::vector<std::string> want{
      "write 80 Good",
      "active active=true acked=false confirmed=true retain=true",
      "acknowledge Good",
      "acked active=true acked=true confirmed=false retain=true",
      "acknowledge again BadConditionBranchAlreadyAcked",
      "acknowledge the first event BadEventIdUnknown",
      "acknowledge an unknown event BadEventIdUnknown",
      "confirm Good",
      "confirmed active=true acked=true confirmed=true retain=true",
      "confirm again BadConditionBranchAlreadyConfirmed",
      "comment Good",
      "commented look at the pump",
      "refresh Good",
      "refresh-start",
      "refresh condition active=true acked=true confirmed=true retain=true",
      "refresh-end",
      "refresh2 Good",
      "refresh2-start",
      "refresh2 condition active=true acked=true confirmed=true retain=true",
      "refresh2-end",
      "refresh an unknown subscription BadSubscriptionIdInvalid",
      "refresh2 an unknown item BadMonitoredItemIdInvalid",
      "write 50 Good",
      "normal active=false acked=true confirmed=true retain=false",
      "refresh Good",
      "refresh-start",
      "refresh-end",
  };
  CHECK(lines == want);
}

TEST_CASE("client: ConditionRefresh after a reconnect sends exactly the retained conditions of our server",
          "[runtime][client-events][client-alarms]") {
  runtime rt;
  server& srv = start(rt);
  const std::uint16_t ns = srv.register_namespace("urn:test:client-alarms");
  std::vector<testing::alarm_scenario_ids> alarms;
  for (const char* tank : {"Tank1", "Tank2", "Tank3"}) alarms.push_back(add_tank(srv, ns, tank));
  client_options o;
  o.endpoint_url = "opc.tcp://127.0.0.1:" + std::to_string(srv.port());
  auto c = rt.connect(o);
  REQUIRE(c.has_value());
  const auto lines = testing::run_refresh_after_reconnect_scenario(*c, [&] { return rt.connect(o); }, alarms);
  INFO(testing::transcript(lines));
  // Part 9 §5.5.2: A active, B back to normal but unacknowledged: retained; C acknowledged,
  // confirmed and back to normal: not retained, so not refreshed (§5.5.7).
  const std::vector<std::string> want{
      "write A 80 Good",
      "write B 80 Good",
      "write C 80 Good",
      "write B 50 Good",
      "acknowledge C Good",
      "confirm C Good",
      "write C 50 Good",
      "before A active=true acked=false confirmed=true retain=true",
      "before B active=false acked=false confirmed=true retain=true",
      "before C active=false acked=true confirmed=true retain=false",
      "refresh Good",
      "refresh-start",
      "refreshed A active=true acked=false confirmed=true retain=true",
      "refreshed B active=false acked=false confirmed=true retain=true",
      "refresh-end",
  };
  CHECK(lines == want);
}
