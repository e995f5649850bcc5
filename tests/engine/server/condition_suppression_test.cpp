// Suppression and out of service (Part 9 §5.8.2, 1.05) through server_core with a passed-in clock:
// SuppressedState and OutOfServiceState as Variables of the condition, the methods Suppress,
// Unsuppress, RemoveFromService, PlaceInService and their "2" forms, a plant Variable that
// suppresses, SuppressedOrShelved over all three, and a where clause that hides flagged events.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "engine/server/server_core.hpp"
#include "tests/engine/server/condition_client.hpp"

// Everything in a namespace of its own (docs/decisions/0050).
namespace server_condition_suppression_test {

using namespace uactor;
namespace status = ua::status;
using test::at;

const ua::node_id su_alarm = ua::node_id::string(1, "Alarm.Double");
const ua::node_id su_input = ua::node_id::string(1, "Demo.Static.Scalar.Double");
const ua::node_id su_plant = ua::node_id::string(1, "Demo.Static.Scalar.Boolean");  // "equipment stopped"
ua::node_id su_child(const char* path) { return ua::node_id::string(1, std::string("Alarm.Double.") + path); }

constexpr std::uint32_t su_suppress = 16403, su_unsuppress = 17868, su_remove_from_service = 17869,
                        su_place_in_service = 17870, su_suppress2 = 24316, su_unsuppress2 = 24318,
                        su_remove_from_service2 = 24320, su_place_in_service2 = 24322, su_timed_shelve = 2949,
                        su_unshelve = 2947, su_disable = 9028, su_enable = 9027;

limit_alarm su_limit_alarm(bool plant_suppression) {
  limit_alarm a;
  a.id = su_alarm;
  a.input = su_input;
  a.name = "TankLevel";
  a.high = 70;
  if (plant_suppression) a.suppressed_by = su_plant;
  return a;
}

void su_set_plant(actors::server_core& core, bool on, std::int64_t ms) {
  value_update u;
  u.node.index = core.space().find(su_plant);
  u.value = on;
  REQUIRE(core.apply_values(std::span(&u, 1), at(ms)) == 0);
}

TEST_CASE("suppression: SuppressedState and OutOfServiceState are Variables of the condition with Id and TransitionTime",
          "[events][alarms][suppression]") {
  auto core = test::make_core();
  test::apply_value(core, su_input, 50, 0);
  REQUIRE(core.add_limit_alarm(su_limit_alarm(false), at(0)) == status::good);
  test::condition_client c(core);
  CHECK(c.read(su_child("SuppressedState")) == ua::variant(test::condition_comment("Unsuppressed")));
  CHECK(c.read(su_child("SuppressedState.Id")) == ua::variant(false));
  CHECK(c.read(su_child("OutOfServiceState")) == ua::variant(test::condition_comment("In Service")));
  CHECK(c.read(su_child("OutOfServiceState.Id")) == ua::variant(false));
  CHECK(c.read(su_child("SuppressedOrShelved")) == ua::variant(false));

  REQUIRE(c.call_method(su_alarm, su_suppress, {}, 1'000) == status::good);
  CHECK(c.read(su_child("SuppressedState")) == ua::variant(test::condition_comment("Suppressed")));
  CHECK(c.read(su_child("SuppressedState.Id")) == ua::variant(true));
  CHECK(c.read(su_child("SuppressedState.TransitionTime")) == ua::variant(at(1'000).utc));
  CHECK(c.read(su_child("SuppressedOrShelved")) == ua::variant(true));
  REQUIRE(c.call_method(su_alarm, su_remove_from_service2, {ua::variant(test::condition_comment("pump swap"))}, 2'000) ==
          status::good);
  CHECK(c.read(su_child("OutOfServiceState")) == ua::variant(test::condition_comment("Out of Service")));
  CHECK(c.read(su_child("OutOfServiceState.TransitionTime")) == ua::variant(at(2'000).utc));
  CHECK(c.read(su_child("Comment")) == ua::variant(test::condition_comment("pump swap")));
  CHECK(core.conditions().suppressed(0));
  CHECK(core.conditions().out_of_service(0));
}

// Each step a method, an input value or the plant's Boolean, at a time; the status it gets, then the
// flags of the events it caused ("suppressed out-of-service flagged", "-" for none).
TEST_CASE("suppression: the methods, the suppressing Variable and shelving through a table", "[events][alarms][suppression]") {
  struct step {
    std::int64_t at;
    enum { call, input, plant } what;
    std::uint32_t method = 0;
    std::vector<ua::variant> args{};
    double v = 0;
    ua::status_code want = status::good;
    std::vector<std::string> events{};
  };
  const auto comment = [](const char* s) { return ua::variant(test::condition_comment(s)); };
  const std::vector<step> table{
      // The plant suppresses and releases (edges only: the same value twice changes nothing).
      {100, step::plant, 0, {}, 1, status::good, {"suppressed flagged"}},
      {200, step::plant, 0, {}, 1, status::good, {}},
      {300, step::input, 0, {}, 80, status::good, {"suppressed flagged"}},  // active while suppressed: flagged, sent
      {400, step::plant, 0, {}, 0, status::good, {"-"}},
      // The operator's methods, in parallel with the plant: the latest change wins.
      {500, step::call, su_suppress, {}, 0, status::good, {"suppressed flagged"}},
      {600, step::call, su_suppress, {}, 0, status::good, {}},  // already: no event
      {700, step::plant, 0, {}, 1, status::good, {}},          // already suppressed
      {800, step::plant, 0, {}, 0, status::good, {"-"}},       // the plant clears the operator's
      {900, step::call, su_suppress2, {comment("fault known")}, 0, status::good, {"suppressed flagged"}},
      {1'000, step::call, su_unsuppress2, {comment("fixed")}, 0, status::good, {"-"}},
      {1'100, step::call, su_unsuppress, {}, 0, status::good, {}},
      // Out of service on its own, and with suppression and shelving: SuppressedOrShelved is any of them.
      {1'200, step::call, su_remove_from_service, {}, 0, status::good, {"out-of-service flagged"}},
      {1'300, step::call, su_suppress, {}, 0, status::good, {"suppressed out-of-service flagged"}},
      {1'400, step::call, su_place_in_service2, {comment("back")}, 0, status::good, {"suppressed flagged"}},
      {1'500, step::call, su_unsuppress, {}, 0, status::good, {"-"}},
      {1'600, step::call, su_timed_shelve, {ua::variant(60'000.0)}, 0, status::good, {"flagged"}},
      {1'700, step::call, su_remove_from_service2, {comment("x")}, 0, status::good, {"out-of-service flagged"}},
      {1'800, step::call, su_unshelve, {}, 0, status::good, {"out-of-service flagged"}},
      {1'900, step::call, su_place_in_service, {}, 0, status::good, {"-"}},
      // Arguments: count and type (Part 4 §5.11.2).
      {2'000, step::call, su_suppress, {ua::variant(1.0)}, 0, status::bad_too_many_arguments, {}},
      {2'000, step::call, su_suppress2, {}, 0, status::bad_arguments_missing, {}},
      {2'000, step::call, su_remove_from_service2, {ua::variant(std::int32_t{3})}, 0, status::bad_invalid_argument, {}},
      // A disabled condition refuses them (as shelving).
      {2'100, step::call, su_disable, {}, 0, status::good, {"-"}},
      {2'200, step::call, su_suppress, {}, 0, status::bad_condition_disabled, {}},
      {2'300, step::call, su_enable, {}, 0, status::good, {"-"}},
  };
  auto core = test::make_core();
  test::apply_value(core, su_input, 50, 0);
  su_set_plant(core, false, 0);
  REQUIRE(core.add_limit_alarm(su_limit_alarm(true), at(0)) == status::good);
  test::condition_client c(core);
  const auto sub = c.subscribe();
  REQUIRE(c.monitor_events(sub, 1) == status::good);
  std::int64_t ms = 0;
  c.events(ms);
  for (std::size_t i = 0; i < table.size(); ++i) {
    const step& s = table[i];
    INFO("row " << i);
    if (s.what == step::call) CHECK(c.call_method(su_alarm, s.method, s.args, s.at) == s.want);
    else if (s.what == step::input) test::apply_value(core, su_input, s.v, s.at);
    else su_set_plant(core, s.v != 0, s.at);
    ms = std::max(ms, s.at);
    std::vector<std::string> seen;
    for (const auto& e : c.events(ms)) seen.push_back(e.flags());
    CHECK(seen == s.events);
  }
  // The comments of the "2" methods reached the condition.
  CHECK(c.read(su_child("Comment")) == ua::variant(test::condition_comment("x")));
}

TEST_CASE("suppression: a where clause on SuppressedOrShelved hides the flagged events, another item still sees them",
          "[events][alarms][suppression]") {
  auto core = test::make_core();
  test::apply_value(core, su_input, 50, 0);
  su_set_plant(core, true, 0);  // suppressed from the start
  REQUIRE(core.add_limit_alarm(su_limit_alarm(true), at(0)) == status::good);
  CHECK(core.conditions().suppressed(0));
  test::condition_client c(core);
  const auto sub = c.subscribe();
  REQUIRE(c.monitor_events(sub, 1) == status::good);
  auto unflagged = test::condition_client::select();
  ua::content_filter_element e;
  e.filter_operator = ua::filter_operator::equals;
  e.filter_operands.push_back(ua::extension_object(test::event_field(2915, {"SuppressedOrShelved"})));
  ua::literal_operand no;
  no.value = false;
  e.filter_operands.push_back(ua::extension_object(no));
  unflagged.where_clause.elements.push_back(std::move(e));
  REQUIRE(c.monitor_events(sub, 2, std::move(unflagged)) == status::good);
  std::int64_t ms = 0;
  c.events(ms);
  const auto count = [](const std::vector<test::condition_note>& v, std::uint32_t handle) {
    return std::count_if(v.begin(), v.end(), [&](const auto& n) { return n.handle == handle; });
  };
  test::apply_value(core, su_input, 80, 100);  // High while suppressed
  auto seen = c.events(ms);
  CHECK(count(seen, 1) == 1);
  CHECK(count(seen, 2) == 0);
  su_set_plant(core, false, 300);  // released: the alarm shows
  seen = c.events(ms);
  CHECK(count(seen, 1) == 1);
  CHECK(count(seen, 2) == 1);
  REQUIRE(c.call_method(su_alarm, su_remove_from_service, {}, 500) == status::good);
  test::apply_value(core, su_input, 50, 600);
  ms = 600;
  seen = c.events(ms);
  CHECK(count(seen, 1) == 2);
  CHECK(count(seen, 2) == 0);
}

TEST_CASE("suppression: a suppressed_by that is unknown or no Variable is refused, nothing left behind",
          "[events][alarms][suppression]") {
  auto core = test::make_core();
  auto a = su_limit_alarm(false);
  a.suppressed_by = ua::node_id::string(1, "nothing");
  CHECK(core.add_limit_alarm(a, at(0)) == status::bad_node_id_unknown);
  a.suppressed_by = ua::node_id::string(1, "Demo.Static");  // an Object
  CHECK(core.add_limit_alarm(a, at(0)) == status::bad_node_class_invalid);
  CHECK(core.conditions().size() == 0);
  CHECK(core.space().find(su_alarm) == ua::no_node);
}

TEST_CASE("suppression: the methods are references of the condition and refused on the type and on other objects",
          "[events][alarms][suppression]") {
  auto core = test::make_core();
  test::apply_value(core, su_input, 50, 0);
  REQUIRE(core.add_limit_alarm(su_limit_alarm(false), at(0)) == status::good);
  test::condition_client c(core);
  ua::browse_request req;
  ua::browse_description d;
  d.node_id = su_alarm;
  d.browse_direction = ua::browse_direction::forward;
  d.reference_type_id = ua::node_id(0, 47);  // HasComponent
  d.result_mask = 63;
  req.nodes_to_browse.push_back(d);
  auto& r = c.call_as<ua::browse_response>(req);
  REQUIRE(r.results.size() == 1);
  std::vector<std::string> names;
  for (const auto& ref : r.results[0].references) names.emplace_back(ref.browse_name.name.view());
  for (const char* n : {"Suppress", "Unsuppress", "RemoveFromService", "PlaceInService", "Suppress2", "Unsuppress2",
                        "RemoveFromService2", "PlaceInService2", "SuppressedState", "OutOfServiceState"})
    CHECK(std::find(names.begin(), names.end(), n) != names.end());
  // §5.8.8: not on AlarmConditionType itself, nor on a node that is no condition.
  CHECK(c.call_method(ua::node_id(0, 2915), su_suppress, {}) == status::bad_node_id_invalid);
  CHECK(c.call_method(su_input, su_remove_from_service, {}) == status::bad_method_invalid);
  CHECK(c.call_method(ua::node_id::string(1, "nothing"), su_place_in_service, {}) == status::bad_node_id_unknown);
}

}  // namespace server_condition_suppression_test
