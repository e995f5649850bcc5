// How values are collected into the history (Part 11 §5.2.2 MinTimeInterval, MaxTimeInterval,
// ExceptionDeviation, ExceptionDeviationFormat; engine/server/history_collection.hpp): the
// per-variable decision alone, then through server_core's recorder with the settings set as HA
// Configuration nodes (published with their values) and read back from them, and the plan's checks.
#include <catch2/catch.hpp>

#include <cmath>
#include <limits>
#include <vector>

#include "engine/server/history_collection.hpp"
#include "engine/server/history_configuration.hpp"
#include "engine/server/node_builder.hpp"
#include "engine/server/server_core.hpp"
#include "runtime/history_setup.hpp"
#include "tests/engine/server/core_fixture.hpp"
#include "tests/history/temp_store.hpp"
#include "uactor/ua/node_ids.hpp"

namespace engine_server_history_collection_test {

using namespace uactor;
using actors::collection_settings;
using actors::collection_state;
using actors::deviation_format;
namespace status = ua::status;

constexpr std::int64_t ms = 10'000;  // DateTime ticks
constexpr std::int64_t t0 = 134'000'000'000'000'000;

ua::data_value number(double x, std::int64_t ticks, ua::status_code sc = status::good) {
  ua::data_value v;
  v.set_value(x);
  v.status = sc;
  v.has_status = sc != status::good;
  v.source_timestamp.ticks = ticks;
  v.has_source_timestamp = true;
  return v;
}

collection_state state_of(collection_settings s, std::optional<double> span = std::nullopt) {
  collection_state c;
  c.configure(s, span);
  return c;
}

TEST_CASE("collection: all 0 stores every value, equal ones too", "[history][collection]") {
  auto c = state_of({});
  CHECK_FALSE(c.active());
  CHECK(c.admit(number(1, t0), t0));
  CHECK(c.admit(number(1, t0), t0));
  CHECK_FALSE(c.due(t0 + 1'000'000 * ms));
}

TEST_CASE("collection: MinTimeInterval keeps out what comes sooner, whatever it is", "[history][collection]") {
  auto c = state_of({.min_time_interval_ms = 1'000});
  REQUIRE(c.active());
  CHECK(c.admit(number(1, t0), t0));                                     // the first
  CHECK_FALSE(c.admit(number(50, t0 + 999 * ms), t0 + 999 * ms));        // 999 ms later: no
  CHECK_FALSE(c.admit(number(2, t0, status::bad), t0 + 500 * ms));       // a status change too
  CHECK(c.admit(number(3, t0 + 1'000 * ms), t0 + 1'000 * ms));           // 1,000 ms after the last stored
  CHECK_FALSE(c.admit(number(4, t0 + 1'500 * ms), t0 + 1'500 * ms));     // counted from the new one
  CHECK(c.admit(number(5, t0 + 500 * ms), t0 + 500 * ms));               // a late arrival goes in as it comes
  CHECK_FALSE(c.admit(number(6, t0 + 1'999 * ms), t0 + 1'999 * ms));     // and the sequence goes on from 1,000
  CHECK(c.admit(number(6, t0 + 2'000 * ms), t0 + 2'000 * ms));
}

TEST_CASE("collection: ExceptionDeviation AbsoluteValue keeps out smaller changes of numbers", "[history][collection]") {
  auto c = state_of({.exception_deviation = 0.5});
  REQUIRE(c.active());
  CHECK(c.admit(number(10, t0), t0));
  CHECK_FALSE(c.admit(number(10.4, t0 + 1 * ms), t0 + 1 * ms));
  CHECK_FALSE(c.admit(number(9.6, t0 + 2 * ms), t0 + 2 * ms));   // from the last stored (10), not the last seen
  CHECK(c.admit(number(10.5, t0 + 3 * ms), t0 + 3 * ms));        // exactly the deviation: stored
  CHECK_FALSE(c.admit(number(10.9, t0 + 4 * ms), t0 + 4 * ms));  // 0.4 from 10.5
  CHECK(c.admit(number(10.9, t0 + 5 * ms, status::uncertain), t0 + 5 * ms));  // another status: stored
  CHECK(c.admit(number(10.9, t0 + 6 * ms), t0 + 6 * ms));        // and back
  CHECK(c.admit(number(std::numeric_limits<double>::quiet_NaN(), t0 + 7 * ms), t0 + 7 * ms));

  // Not Numbers: a Boolean, a String, an array are stored at each change (the deviation is of numbers).
  auto b = state_of({.exception_deviation = 5});
  ua::data_value flag;
  flag.set_value(true);
  CHECK(b.admit(flag, t0));
  CHECK(b.admit(flag, t0 + ms));
  ua::data_value text;
  text.set_value(ua::ua_string("a"));
  CHECK(b.admit(text, t0 + 2 * ms));
  CHECK(b.admit(number(1, t0 + 3 * ms), t0 + 3 * ms));  // the last stored was no number: stored
  CHECK_FALSE(b.admit(number(5.9, t0 + 4 * ms), t0 + 4 * ms));
  ua::data_value i32;
  i32.set_value(std::int32_t{7});
  CHECK(b.admit(i32, t0 + 5 * ms));  // an Int32 is a Number: 6 from 1
}

TEST_CASE("collection: the percent formats", "[history][collection]") {
  SECTION("PercentOfValue: of the last stored value") {
    auto c = state_of({.exception_deviation = 10, .format = deviation_format::percent_of_value});
    CHECK(c.admit(number(200, t0), t0));
    CHECK_FALSE(c.admit(number(219, t0 + ms), t0 + ms));
    CHECK(c.admit(number(180, t0 + 2 * ms), t0 + 2 * ms));    // 20 = 10 % of 200
    CHECK_FALSE(c.admit(number(197, t0 + 3 * ms), t0 + 3 * ms));  // 17 < 18
    CHECK(c.admit(number(-180, t0 + 4 * ms), t0 + 4 * ms));
    auto zero = state_of({.exception_deviation = 10, .format = deviation_format::percent_of_value});
    CHECK(zero.admit(number(0, t0), t0));
    CHECK(zero.admit(number(1e-9, t0 + ms), t0 + ms));  // 10 % of 0 is 0: any change
  }
  SECTION("PercentOfRange and PercentOfEURange: of the range's width") {
    for (const auto f : {deviation_format::percent_of_range, deviation_format::percent_of_eu_range}) {
      auto c = state_of({.exception_deviation = 1, .format = f}, 200.0);  // 1 % of 200: 2
      CHECK(c.admit(number(50, t0), t0));
      CHECK_FALSE(c.admit(number(51.9, t0 + ms), t0 + ms));
      CHECK(c.admit(number(52, t0 + 2 * ms), t0 + 2 * ms));
      // No range: the deviation does not apply, every change is stored.
      auto none = state_of({.exception_deviation = 1, .format = f});
      CHECK_FALSE(none.active());
    }
  }
  SECTION("Unknown is no deviation") {
    auto c = state_of({.exception_deviation = 1, .format = static_cast<deviation_format>(4)});
    CHECK_FALSE(c.active());
  }
}

TEST_CASE("collection: MaxTimeInterval stores a value however small its change, and is due after it", "[history][collection]") {
  auto c = state_of({.min_time_interval_ms = 100, .max_time_interval_ms = 1'000, .exception_deviation = 1});
  CHECK_FALSE(c.due(t0));  // nothing stored yet
  CHECK(c.admit(number(10, t0), t0));
  CHECK_FALSE(c.admit(number(10.1, t0 + 999 * ms), t0 + 999 * ms));
  CHECK(c.admit(number(10.1, t0 + 1'000 * ms), t0 + 1'000 * ms));  // the interval since the last stored: in
  CHECK_FALSE(c.due(t0 + 1'999 * ms));
  REQUIRE(c.due(t0 + 2'500 * ms));
  CHECK(*c.due(t0 + 2'500 * ms) == t0 + 2'000 * ms);  // the last stored time plus the interval
  c.repeated(number(10.1, t0 + 2'000 * ms), t0 + 2'000 * ms);
  CHECK_FALSE(c.due(t0 + 2'500 * ms));
  CHECK(*c.due(t0 + 3'000 * ms) == t0 + 3'000 * ms);
}

// Through server_core: the settings as nodes, the recorder reading them, the batches the sink gets.
struct recording {
  actors::server_core core = test::make_core();
  test::temp_store t;
  std::vector<history::record> stored;
  ua::node_id var = ua::node_id::string(1, "Demo.Static.Scalar.Double");
  ua::node_index n = ua::no_node;

  recording() {
    core.set_history(t.store, [this](std::vector<history::record>&& b) {
      for (auto& r : b) stored.push_back(std::move(r));
      return true;
    });
    n = core.space().find(var);
    REQUIRE(core.space().set_historizing(n, true) == status::good);
  }
  void set(double x, std::int64_t at_ms, ua::status_code sc = status::good) {
    auto v = number(x, test::at(at_ms).utc.ticks, sc);
    v.server_timestamp = v.source_timestamp;
    v.has_server_timestamp = true;
    REQUIRE(core.space().set_value(n, std::move(v)).is_good());
  }
  std::vector<double> values() const {
    std::vector<double> out;
    for (const auto& r : stored)
      if (r.node == var.to_string()) out.push_back(*r.value.value.get_if<double>());
    return out;
  }
  ua::variant property(std::string_view object_id, std::string_view name) {
    const ua::node_index o = core.space().find(ua::node_id::string(1, std::string(object_id)));
    ua::node_index p = ua::no_node;
    if (o != ua::no_node)
      for (const auto& r : core.space().forward_references(o))
        if (core.space().at(r.target).browse_name == name) p = r.target;
    REQUIRE(p != ua::no_node);
    return core.space().variable(p)->value.value;
  }
};

TEST_CASE("collection: the recorder takes a variable's HA Configuration, published as it is used", "[history][collection]") {
  recording r;
  actors::historical_configuration own;
  own.collection = {.min_time_interval_ms = 1'000, .max_time_interval_ms = 5'000, .exception_deviation = 0.5};
  REQUIRE(r.core.set_history_configuration({}, 0, 0, {{r.var, own}}, test::at(0)).empty());
  const std::string object = "Demo.Static.Scalar.Double.HA Configuration";
  CHECK(*r.property(object, "MinTimeInterval").get_if<double>() == 1'000);
  CHECK(*r.property(object, "MaxTimeInterval").get_if<double>() == 5'000);
  CHECK(*r.property(object, "ExceptionDeviation").get_if<double>() == 0.5);
  CHECK(*r.property(object, "ExceptionDeviationFormat").get_if<std::int32_t>() == 0);
  CHECK(actors::collection_for(r.core.space(), r.n).max_time_interval_ms == 5'000);

  r.set(10, 0);
  r.set(20, 500);    // within MinTimeInterval
  r.set(10.2, 1'000);  // within the deviation
  r.set(11, 2'000);  // in
  r.core.flush_history();
  CHECK(r.values() == std::vector<double>{10, 11});
  CHECK(r.core.recorder().filtered() == 2);

  // MaxTimeInterval: 5 s after the last stored value (2 s) the held value goes in again, at 7 s
  // and 12 s, on the tick that finds them due.
  r.set(11.3, 3'000);  // held, not stored
  r.core.on_tick(test::at(6'900));
  r.core.flush_history();
  CHECK(r.values().size() == 2);
  r.core.on_tick(test::at(12'500));
  r.core.flush_history();
  REQUIRE(r.stored.size() == 4);
  CHECK(r.values() == std::vector<double>{10, 11, 11.3, 11.3});
  CHECK(r.stored[2].value.source_timestamp.ticks == test::at(7'000).utc.ticks);
  CHECK(r.stored[3].value.source_timestamp.ticks == test::at(12'000).utc.ticks);
  CHECK(r.stored[3].value.server_timestamp.ticks == test::at(12'500).utc.ticks);
  CHECK(r.core.recorder().repeated() == 2);

  // Events of a notifier are stored as they come, whatever the defaults say.
  actors::historical_configuration defaults;
  defaults.collection = {.min_time_interval_ms = 60'000};
  REQUIRE(r.core.set_history_configuration(defaults, 0, 0, {}, test::at(13'000)).empty());
  REQUIRE(r.core.set_event_history({ua::node_id(0, 2253)}).empty());
  event e;
  e.severity = 100;
  r.core.raise_event(e, test::at(13'000));
  r.core.raise_event(e, test::at(13'001));
  r.core.flush_history();
  std::size_t events = 0;
  for (const auto& s : r.stored) events += s.node == "i=2253" ? 1 : 0;
  CHECK(events == 2);
}

TEST_CASE("collection: DefaultHAConfiguration's settings for the variables without their own", "[history][collection]") {
  recording r;
  actors::historical_configuration defaults;
  defaults.collection = {.exception_deviation = 10, .format = deviation_format::percent_of_value};
  REQUIRE(r.core.set_history_configuration(defaults, 0, 0, {}, test::at(0)).empty());
  const ua::node_index d = r.core.space().find(ua::node_id(0, 32637));
  REQUIRE(d != ua::no_node);
  for (const auto& ref : r.core.space().forward_references(d)) {
    const auto& t = r.core.space().at(ref.target);
    if (t.browse_name == "ExceptionDeviation") CHECK(*r.core.space().variable(ref.target)->value.value.get_if<double>() == 10);
    if (t.browse_name == "ExceptionDeviationFormat")
      CHECK(*r.core.space().variable(ref.target)->value.value.get_if<std::int32_t>() == 1);
  }
  r.set(100, 0);
  r.set(105, 1);
  r.set(111, 2);
  r.core.flush_history();
  CHECK(r.values() == std::vector<double>{100, 111});
}

TEST_CASE("collection: PercentOfEURange takes the variable's EURange", "[history][collection]") {
  recording r;
  variable_node v;
  v.id = ua::node_id::string(1, "Collection.Ranged");
  v.parent = ua::node_id(0, ua::ids::objects_folder);
  v.browse_name = ua::qualified_name{1, ua::ua_string("Ranged")};
  v.data_type = ua::node_id(0, ua::ids::double_);
  v.value.set_value(0.0);
  v.range = eu_range{-100, 100};
  v.access_level = access::read | access::history_read;
  v.historizing = true;
  REQUIRE(actors::apply_node_change(r.core.space(), v, test::at(0).utc) == status::good);
  const ua::node_index ranged = r.core.space().find(v.id);
  actors::historical_configuration own;
  own.collection = {.exception_deviation = 5, .format = deviation_format::percent_of_eu_range};  // 10 units
  REQUIRE(r.core.set_history_configuration({}, 0, 0, {{v.id, own}}, test::at(0)).empty());
  CHECK(actors::deviation_range_span(r.core.space(), ranged, deviation_format::percent_of_eu_range) == 200.0);
  CHECK_FALSE(actors::deviation_range_span(r.core.space(), ranged, deviation_format::percent_of_range));
  for (const double x : {0.0, 9.0, 10.0, 15.0, 20.0}) {
    auto dv = number(x, test::at(static_cast<std::int64_t>(x)).utc.ticks);
    REQUIRE(r.core.space().set_value(ranged, std::move(dv)).is_good());
  }
  r.core.flush_history();
  std::vector<double> got;
  for (const auto& s : r.stored)
    if (s.node == v.id.to_string()) got.push_back(*s.value.value.get_if<double>());
  CHECK(got == std::vector<double>{0, 10, 20});
}

TEST_CASE("collection: an application's plan out of bounds is refused with what is wrong", "[history][collection]") {
  history_plan p;
  CHECK(collection_errors(p).empty());
  p.defaults.max_time_interval_ms = 500;
  p.configurations.emplace_back().exception_deviation = -1;
  p.configurations.emplace_back();
  p.configurations[1].exception_deviation_format = history_deviation_format::percent_of_range;
  p.configurations[1].exception_deviation = 150;
  p.configurations.emplace_back();
  p.configurations[2].min_time_interval_ms = 5'000;
  p.configurations[2].max_time_interval_ms = 2'000;
  p.configurations.emplace_back().min_time_interval_ms = std::numeric_limits<double>::quiet_NaN();
  const auto e = collection_errors(p);
  REQUIRE(e.size() == 5);
  CHECK(e[0] == "history.defaults: max_time_interval_ms under 1000: the recorder repeats values on its tick of a second");
  CHECK(e[1] == "history.configurations[0]: exception_deviation is negative or not a number");
  CHECK(e[2] == "history.configurations[1]: exception_deviation is out of range 0..100 (percent)");
  CHECK(e[3] == "history.configurations[2]: max_time_interval_ms is shorter than min_time_interval_ms");
  CHECK(e[4] == "history.configurations[3]: min_time_interval_ms is out of range 0..a year");
  // And what a plan sets is what the engine gets.
  history_configuration_plan ok;
  ok.min_time_interval_ms = 250;
  ok.max_time_interval_ms = 60'000;
  ok.exception_deviation = 2;
  ok.exception_deviation_format = history_deviation_format::percent_of_eu_range;
  const auto c = to_historical_configuration(ok).collection;
  CHECK(c.min_time_interval_ms == 250);
  CHECK(c.max_time_interval_ms == 60'000);
  CHECK(c.exception_deviation == 2);
  CHECK(c.format == deviation_format::percent_of_eu_range);
}

}  // namespace engine_server_history_collection_test
