// The historical configuration as nodes (Part 11 §5.2.2-§5.2.4, §5.7.3; engine/server/
// history_configuration.hpp) through server_core over a SQLite store in a temp folder: the Server's
// DefaultHAConfiguration, a variable's own HA Configuration (browsable, its StartOfArchive what the
// store holds), and HistoryRead's processed and at-time reads taking a variable's configuration
// (Stepped, the AggregateConfiguration) when the client asks for the server's defaults.
#include <catch2/catch.hpp>

#include <optional>
#include <vector>

#include "engine/server/history_configuration.hpp"
#include "engine/server/server_core.hpp"
#include "protocol/message.hpp"
#include "runtime/history_setup.hpp"
#include "tests/engine/server/core_fixture.hpp"
#include "tests/history/temp_store.hpp"
#include "uactor/ua/node_ids.hpp"

namespace engine_server_history_configuration_test {

using namespace uactor;
using test::temp_store;
namespace status = ua::status;

const ua::node_id tank = ua::node_id::string(1, "Demo.Static.Scalar.Double");
const ua::node_id valve = ua::node_id::string(1, "Demo.Static.Scalar.Int32");
constexpr std::int64_t second = 10'000'000;  // DateTime ticks

struct hc_fixture {
  actors::server_core core = test::make_core();
  temp_store t;
  std::int64_t t0 = test::at(0).utc.ticks;

  hc_fixture() {
    core.set_history(t.store, [this](std::vector<history::record>&& b) {
      t.store->append(b);
      return true;
    });
    REQUIRE(core.space().set_historizing(core.space().find(tank), true) == status::good);
    REQUIRE(core.space().set_historizing(core.space().find(valve), true) == status::good);
  }

  // Values of `node` at t0 + i s, with their statuses.
  void store(const ua::node_id& node, std::vector<std::pair<double, ua::status_code>> values, std::int64_t from = 0) {
    std::vector<history::record> batch;
    for (std::size_t i = 0; i < values.size(); ++i) {
      ua::data_value v;
      v.set_value(values[i].first);
      v.status = values[i].second;
      v.has_status = values[i].second != status::good;
      v.source_timestamp.ticks = t0 + (from + static_cast<std::int64_t>(i)) * second;
      v.has_source_timestamp = true;
      batch.push_back({node.to_string(), std::move(v)});
    }
    t.store->append(batch);
  }

  ua::variant value_of(const ua::node_id& id) {
    ua::data_value out;
    const ua::node_index n = core.space().find(id);
    REQUIRE(n != ua::no_node);
    core.space().read(n, ua::attribute_id::value, out);
    return out.value;
  }
};

// The target of `from`'s forward reference of `type` whose BrowseName is `name`, or null.
ua::node_id child(const ua::address_space& as, const ua::node_id& from, std::uint32_t type, std::string_view name) {
  const ua::node_index n = as.find(from);
  const ua::node_index t = as.find(ua::node_id(0, type));
  if (n == ua::no_node) return {};
  for (const auto& r : as.forward_references(n))
    if ((type == 0 || r.type == t) && as.at(r.target).browse_name == name) return as.at(r.target).id.to_node_id();
  return {};
}

ua::history_read_request processed(const ua::node_id& node, std::uint32_t aggregate, std::int64_t start, std::int64_t end,
                                   double interval_ms, std::optional<ua::aggregate_configuration> own = std::nullopt) {
  ua::read_processed_details d;
  d.start_time.ticks = start;
  d.end_time.ticks = end;
  d.processing_interval = interval_ms;
  d.aggregate_type.push_back(ua::node_id(0, aggregate));
  if (own) d.aggregate_configuration = *own;
  else d.aggregate_configuration.use_server_capabilities_defaults = true;
  ua::history_read_request req;
  req.history_read_details = ua::extension_object(d);
  req.timestamps_to_return = ua::timestamps_to_return::both;
  ua::history_read_value_id id;
  id.node_id = node;
  req.nodes_to_read.push_back(id);
  return req;
}

ua::history_read_request at_time(const ua::node_id& node, std::int64_t time) {
  ua::read_at_time_details d;
  d.req_times.push_back(ua::date_time{time});
  d.use_simple_bounds = true;
  ua::history_read_request req;
  req.history_read_details = ua::extension_object(d);
  req.timestamps_to_return = ua::timestamps_to_return::both;
  ua::history_read_value_id id;
  id.node_id = node;
  req.nodes_to_read.push_back(id);
  return req;
}

const ua::data_value& only_value(const ua::history_read_response& r) {
  REQUIRE(r.results.size() == 1);
  REQUIRE(r.results[0].status_code == status::good);
  const auto* d = r.results[0].history_data.get_if<ua::history_data>();
  REQUIRE(d);
  REQUIRE(d->data_values.size() == 1);
  return d->data_values[0];
}

double number(const ua::data_value& v) {
  const auto* d = v.value.get_if<double>();
  return d ? *d : -1e300;
}

actors::historical_configuration stepped_config() {
  actors::historical_configuration c;
  c.aggregate.stepped = true;
  c.aggregate.percent_data_good = 80;
  c.aggregate.percent_data_bad = 50;
  c.definition = "valve position, read from the PLC";
  return c;
}

TEST_CASE("history configuration: DefaultHAConfiguration says the server's defaults and its retention", "[history][configuration]") {
  hc_fixture f;
  // On with history: Part 13's defaults.
  CHECK(f.value_of(ua::node_id(0, 32644)) == ua::variant(false));                // Stepped
  CHECK(f.value_of(ua::node_id(0, 32639)) == ua::variant(true));                 // TreatUncertainAsBad
  CHECK(f.value_of(ua::node_id(0, 32640)) == ua::variant(std::uint8_t{100}));    // PercentDataBad
  CHECK(f.value_of(ua::node_id(0, 32682)) == ua::variant(true));                 // ServerTimestampSupported
  actors::historical_configuration d;
  d.aggregate.percent_data_good = 90;
  d.aggregate.use_sloped_extrapolation = true;
  CHECK(f.core.set_history_configuration(d, 7 * 86'400'000.0, 1000, {}, test::at(0)).empty());
  CHECK(f.value_of(ua::node_id(0, 32641)) == ua::variant(std::uint8_t{90}));     // PercentDataGood
  CHECK(f.value_of(ua::node_id(0, 32642)) == ua::variant(true));                 // UseSlopedExtrapolation
  CHECK(f.value_of(ua::node_id(0, 32752)) == ua::variant(7 * 86'400'000.0));     // MaxTimeStoredValues
  CHECK(f.value_of(ua::node_id(0, 32753)) == ua::variant(std::uint32_t{1000}));  // MaxCountStoredValues
  // A variable without its own takes these (Part 11 §5.7.3).
  const auto c = actors::configuration_for(f.core.space(), f.core.space().find(tank));
  CHECK(c.percent_data_good == 90);
  CHECK(c.use_sloped_extrapolation);
  CHECK_FALSE(c.stepped);
  // Off: emptied.
  f.core.set_history(nullptr, {});
  CHECK(f.value_of(ua::node_id(0, 32641)).empty());
}

TEST_CASE("history configuration: a variable's HA Configuration is browsable and typed, an unknown id reported",
          "[history][configuration]") {
  hc_fixture f;
  const auto unknown = f.core.set_history_configuration(
      {}, 0, 0, {{valve, stepped_config()}, {ua::node_id::string(1, "no.such"), stepped_config()}}, test::at(0));
  CHECK(unknown == std::vector<ua::node_id>{ua::node_id::string(1, "no.such")});
  const auto& as = f.core.space();
  const ua::node_id object = child(as, valve, ua::ids::has_historical_configuration, "HA Configuration");
  REQUIRE(!object.is_null());
  CHECK(object == ua::node_id::string(1, "Demo.Static.Scalar.Int32.HA Configuration"));
  CHECK(child(as, object, ua::ids::has_type_definition, "HistoricalDataConfigurationType") ==
        ua::node_id(0, ua::ids::historical_data_configuration_type));
  CHECK(f.value_of(child(as, object, 0, "Stepped")) == ua::variant(true));
  CHECK(f.value_of(child(as, object, 0, "Definition")) == ua::variant(ua::ua_string("valve position, read from the PLC")));
  CHECK(f.value_of(child(as, object, 0, "ExceptionDeviationFormat")) == ua::variant(std::int32_t{0}));
  const ua::node_id agg = child(as, object, 0, "AggregateConfiguration");
  REQUIRE(!agg.is_null());
  CHECK(f.value_of(child(as, agg, 0, "PercentDataGood")) == ua::variant(std::uint8_t{80}));
  CHECK(f.value_of(child(as, agg, 0, "PercentDataBad")) == ua::variant(std::uint8_t{50}));
  // The other variable has none of its own.
  CHECK(child(as, tank, ua::ids::has_historical_configuration, "HA Configuration").is_null());
  // Set again: the same object, new values.
  auto c = stepped_config();
  c.aggregate.stepped = false;
  CHECK(f.core.set_history_configuration({}, 0, 0, {{valve, c}}, test::at(0)).empty());
  CHECK(child(as, valve, ua::ids::has_historical_configuration, "HA Configuration") == object);
  CHECK(f.value_of(child(as, object, 0, "Stepped")) == ua::variant(false));
}

TEST_CASE("history configuration: StartOfArchive is the first value the store holds", "[history][configuration]") {
  hc_fixture f;
  const auto start = [&] {
    return f.value_of(ua::node_id::string(1, "Demo.Static.Scalar.Int32.HA Configuration.StartOfArchive"));
  };
  // Nothing stored: no start.
  REQUIRE(f.core.set_history_configuration({}, 0, 0, {{valve, stepped_config()}}, test::at(0)).empty());
  CHECK(start().empty());
  // What the store held before the configuration: asked of the store.
  f.store(valve, {{1, status::good}, {2, status::good}}, 100);
  REQUIRE(f.core.set_history_configuration({}, 0, 0, {{valve, stepped_config()}}, test::at(0)).empty());
  CHECK(start() == ua::variant(ua::date_time{f.t0 + 100 * second}));
  CHECK(f.value_of(ua::node_id::string(1, "Demo.Static.Scalar.Int32.HA Configuration.StartOfOnlineArchive")) == start());
  // A value recorded earlier than that moves it at the host's flush; a later one does not.
  ua::data_value early;
  early.set_value(std::int32_t{5});
  early.source_timestamp.ticks = f.t0 + 50 * second;
  early.has_source_timestamp = true;
  REQUIRE(f.core.space().set_value(f.core.space().find(valve), early) == status::good);
  ua::data_value late = early;
  late.source_timestamp.ticks = f.t0 + 500 * second;
  REQUIRE(f.core.space().set_value(f.core.space().find(valve), late) == status::good);
  f.core.flush_history();
  CHECK(start() == ua::variant(ua::date_time{f.t0 + 50 * second}));
  // A HistoryUpdate that deletes the first values: asked again when it is answered.
  test::core_session s(f.core, 3);
  ua::delete_raw_modified_details del;
  del.node_id = valve;
  del.start_time.ticks = f.t0;
  del.end_time.ticks = f.t0 + 101 * second;
  ua::history_update_request req;
  req.history_update_details.push_back(ua::extension_object(del));
  REQUIRE(f.core.space().set_history_writable(f.core.space().find(valve), true) == status::good);
  const auto& r = s.call_as<ua::history_update_response>(req);
  REQUIRE(r.results.size() == 1);
  REQUIRE(r.results[0].status_code == status::good);
  CHECK(start() == ua::variant(ua::date_time{f.t0 + 101 * second}));
  // Retention and other writers: the housekeeping tick asks every minute.
  f.store(valve, {{9, status::good}}, 1);
  f.core.on_tick(test::at(30'000));
  CHECK(start() == ua::variant(ua::date_time{f.t0 + 101 * second}));
  f.core.on_tick(test::at(61'000));
  CHECK(start() == ua::variant(ua::date_time{f.t0 + 1 * second}));
}

TEST_CASE("history configuration: Stepped picks the stepped interpolation for at-time and processed reads",
          "[history][configuration]") {
  hc_fixture f;
  f.store(valve, {{0, status::good}, {10, status::good}});
  f.store(tank, {{0, status::good}, {10, status::good}});
  REQUIRE(f.core.set_history_configuration({}, 0, 0, {{valve, stepped_config()}}, test::at(0)).empty());
  test::core_session s(f.core, 3);
  const std::int64_t half = f.t0 + second / 2;
  CHECK(number(only_value(s.call_as<ua::history_read_response>(at_time(tank, half)))) == Approx(5));   // sloped
  CHECK(number(only_value(s.call_as<ua::history_read_response>(at_time(valve, half)))) == Approx(0));  // stepped
  // Interpolative (Part 13 §5.4.3.4) at the same time, and the request's own configuration keeps
  // the variable's Stepped (a property of the data, not of the aggregate).
  const auto interpolative = ua::ids::aggregate_function_interpolative;
  CHECK(number(only_value(s.call_as<ua::history_read_response>(processed(tank, interpolative, half, half + second, 0)))) ==
        Approx(5));
  CHECK(number(only_value(s.call_as<ua::history_read_response>(processed(valve, interpolative, half, half + second, 0)))) ==
        Approx(0));
  ua::aggregate_configuration own;
  own.use_server_capabilities_defaults = false;
  own.treat_uncertain_as_bad = true;
  own.percent_data_bad = 100;
  own.percent_data_good = 100;
  CHECK(number(only_value(s.call_as<ua::history_read_response>(processed(valve, interpolative, half, half + second, 0, own)))) ==
        Approx(0));
}

TEST_CASE("history configuration: the AggregateConfiguration decides a processed value's status with the server's defaults",
          "[history][configuration]") {
  hc_fixture f;
  // Nine Good values and one Bad: 90 % Good.
  std::vector<std::pair<double, ua::status_code>> values;
  for (int i = 0; i < 10; ++i) values.emplace_back(i, i == 4 ? ua::status_code(status::bad) : ua::status_code(status::good));
  f.store(valve, values);
  f.store(tank, values);
  REQUIRE(f.core.set_history_configuration({}, 0, 0, {{valve, stepped_config()}}, test::at(0)).empty());  // PercentDataGood 80
  test::core_session s(f.core, 3);
  const auto count = ua::ids::aggregate_function_count;
  const auto status_of = [&](const ua::history_read_request& req) {
    return only_value(s.call_as<ua::history_read_response>(req)).status.code();
  };
  // The server's defaults: PercentDataGood 100 for the tank (Uncertain), the valve's own 80 (Good).
  CHECK(status_of(processed(tank, count, f.t0, f.t0 + 10 * second, 0)) == status::uncertain_data_sub_normal.code());
  CHECK(status_of(processed(valve, count, f.t0, f.t0 + 10 * second, 0)) == status::good.code());
  // The request's own configuration wins over the valve's.
  ua::aggregate_configuration own;
  own.use_server_capabilities_defaults = false;
  own.treat_uncertain_as_bad = true;
  own.percent_data_bad = 100;
  own.percent_data_good = 100;
  CHECK(status_of(processed(valve, count, f.t0, f.t0 + 10 * second, 0, own)) == status::uncertain_data_sub_normal.code());
  // DefaultHAConfiguration changed: the tank follows.
  actors::historical_configuration d;
  d.aggregate.percent_data_good = 85;
  f.core.set_history_configuration(d, 0, 0, {}, test::at(0));
  CHECK(status_of(processed(tank, count, f.t0, f.t0 + 10 * second, 0)) == status::good.code());
}

// The runtime's side (runtime/history_setup.hpp): which historizing variables the plan's
// [[history.configurations]] name, the first entry that matches a variable being its.
TEST_CASE("history configuration: the first configuration that names a historizing variable is its",
          "[history][configuration]") {
  hc_fixture f;  // the tank and the valve historize; Scalar.Float does not
  history_configuration_plan first, second;
  first.nodes = {"ns=1;s=Demo.Static.Scalar.Int32", "ns=1;s=no.such"};
  first.stepped = true;
  second.nodes = {"ns=1;s=Demo.Static.Scalar.*"};
  second.percent_data_good = 70;
  std::vector<std::string> unmatched;
  const auto own = configured_variables(f.core.space(), {first, second}, unmatched);
  REQUIRE(own.size() == 2);
  for (const auto& [id, c] : own) {
    if (id == valve) {
      CHECK(c.aggregate.stepped);
      CHECK(c.aggregate.percent_data_good == 100);
    } else {
      CHECK(id == tank);
      CHECK_FALSE(c.aggregate.stepped);
      CHECK(c.aggregate.percent_data_good == 70);
    }
  }
  CHECK(unmatched == std::vector<std::string>{"ns=1;s=no.such"});
}

}  // namespace engine_server_history_configuration_test
