// The aggregate library against hostile requests (Part 11 §6.5.4, Part 13 §5): reversed and
// degenerate ranges, interval counts past the limit, intervals below the DateTime resolution,
// no data, data that is not numeric, unsorted data; and ReadAtTime (Part 11 §6.5.5).
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <limits>
#include <random>
#include <string>
#include <vector>

#include "engine/server/history/aggregate_status.hpp"
#include "engine/server/history/aggregates.hpp"
#include "uactor/ua/node_ids.hpp"
#include "uactor/ua/status_codes.hpp"

using namespace uactor;
using history::aggregate_configuration;

namespace {

constexpr std::int64_t second = ua::date_time::ticks_per_second;
constexpr ua::date_time t0{133'000'000'000'000'000};

ua::date_time at(double seconds) {
  return ua::date_time{t0.ticks + static_cast<std::int64_t>(seconds * second)};
}

ua::data_value raw(double seconds, ua::variant v, ua::status_code s = ua::status::good) {
  ua::data_value dv;
  dv.set_value(std::move(v));
  dv.status = s;
  dv.has_status = true;
  dv.source_timestamp = at(seconds);
  dv.has_source_timestamp = true;
  return dv;
}

// 0, 1, 2, ... at 0 s, 1 s, 2 s, ...
std::vector<ua::data_value> ramp(int n) {
  std::vector<ua::data_value> out;
  for (int i = 0; i < n; ++i) out.push_back(raw(i, static_cast<double>(i)));
  return out;
}

const ua::node_id average{0, ua::ids::aggregate_function_average};

double as_double(const ua::data_value& dv) {
  const double* d = dv.value.get_if<double>();
  REQUIRE(d != nullptr);
  return *d;
}

}  // namespace

TEST_CASE("aggregates: the served list names each ns0 AggregateFunction once", "[history][aggregates]") {
  const auto served = history::served_aggregates();
  CHECK(served.size() == 37);
  CHECK(std::count(served.begin(), served.end(), average) == 1);
  for (const auto& id : served) {
    CHECK(id.namespace_index() == 0);
    CHECK(std::count(served.begin(), served.end(), id) == 1);
  }
}

TEST_CASE("aggregates: an aggregate not served is Bad_AggregateNotSupported", "[history][aggregates]") {
  const auto data = ramp(10);
  for (const auto& id : {ua::node_id{0, ua::ids::aggregate_function_type}, ua::node_id{2, 2342},
                         ua::node_id::string(0, "Average")}) {
    const auto r = history::process(id, data, at(0), at(10), 1000, {}, 100);
    REQUIRE(!r);
    CHECK(r.error() == ua::status::bad_aggregate_not_supported);
  }
}

TEST_CASE("aggregates: reversed bounds run the intervals backwards from start", "[history][aggregates]") {
  const auto data = ramp(10);
  const auto r = history::process(average, data, at(10), at(0), 2000, {}, 100);
  REQUIRE(r);
  REQUIRE(r->size() == 5);
  // Each value carries the later edge of its interval, the edge the request started from, and
  // takes the values in (edge - 2 s, edge].
  for (std::size_t i = 0; i < r->size(); ++i) {
    const double edge = 10.0 - 2.0 * static_cast<double>(i);
    CHECK((*r)[i].source_timestamp == at(edge));
  }
  CHECK(as_double((*r)[0]) == Approx(9));    // (8, 10]: 9
  CHECK(as_double((*r)[1]) == Approx(7.5));  // (6, 8]: 7, 8
  CHECK(as_double((*r)[4]) == Approx(1.5));  // (0, 2]: 1, 2
}

TEST_CASE("aggregates: interval 0 is one interval over the whole range", "[history][aggregates]") {
  const auto data = ramp(10);
  const auto r = history::process(average, data, at(0), at(10), 0, {}, 1);
  REQUIRE(r);
  REQUIRE(r->size() == 1);
  CHECK(as_double((*r)[0]) == Approx(4.5));
  CHECK((*r)[0].source_timestamp == at(0));
}

TEST_CASE("aggregates: a range that does not divide ends with a shorter interval", "[history][aggregates]") {
  const auto data = ramp(10);
  const auto r = history::process(average, data, at(0), at(9), 4000, {}, 100);
  REQUIRE(r);
  REQUIRE(r->size() == 3);  // [0,4) [4,8) [8,9)
  CHECK(as_double((*r)[2]) == Approx(8));
}

TEST_CASE("aggregates: 10^9 intervals are refused before any is computed", "[history][aggregates]") {
  const auto data = ramp(10);
  const auto started = std::chrono::steady_clock::now();
  // 10^6 s at 1 ms: 10^9 intervals.
  const auto r = history::process(average, data, at(0), at(1'000'000), 1, {}, 10'000);
  REQUIRE(!r);
  CHECK(r.error() == ua::status::bad_too_many_operations);
  CHECK(std::chrono::steady_clock::now() - started < std::chrono::seconds(1));
  // Exactly at the limit is allowed.
  const auto ok = history::process(average, data, at(0), at(10), 1000, {}, 10);
  REQUIRE(ok);
  CHECK(ok->size() == 10);
  CHECK(history::process(average, data, at(0), at(10), 1000, {}, 9).error() ==
        ua::status::bad_too_many_operations);
}

TEST_CASE("aggregates: intervals below a microsecond are bounded, below 100 ns refused", "[history][aggregates]") {
  const auto data = ramp(10);
  // 500 ns over 10 s: 2 * 10^7 intervals, past the limit.
  CHECK(history::process(average, data, at(0), at(10), 0.0005, {}, 100'000).error() ==
        ua::status::bad_too_many_operations);
  // 500 ns over 5 us: 10 intervals, each of 5 ticks.
  const auto small = history::process(average, data, at(0), ua::date_time{t0.ticks + 50}, 0.0005, {}, 100);
  REQUIRE(small);
  CHECK(small->size() == 10);
  // Below one DateTime tick (Part 6 §5.2.2.5: 100 ns) an interval cannot be represented.
  CHECK(history::process(average, data, at(0), at(10), 0.00001, {}, 100).error() ==
        ua::status::bad_invalid_argument);
  for (double bad : {-1.0, std::numeric_limits<double>::quiet_NaN(), std::numeric_limits<double>::infinity()})
    CHECK(history::process(average, data, at(0), at(10), bad, {}, 100).error() ==
          ua::status::bad_invalid_argument);
  CHECK(history::process(average, data, at(5), at(5), 1000, {}, 100).error() ==
        ua::status::bad_invalid_argument);
}

TEST_CASE("aggregates: ranges at the ends of DateTime neither overflow nor crash", "[history][aggregates]") {
  const auto data = ramp(10);
  constexpr auto lo = std::numeric_limits<std::int64_t>::min();
  constexpr auto hi = std::numeric_limits<std::int64_t>::max();
  // The difference does not fit in 64 bits.
  CHECK(history::process(average, data, ua::date_time{lo}, ua::date_time{hi}, 1000, {}, 100).error() ==
        ua::status::bad_invalid_argument);
  CHECK(history::process(average, data, ua::date_time{hi}, ua::date_time{lo}, 0, {}, 100).error() ==
        ua::status::bad_invalid_argument);
  // The largest range that fits, as one interval and in huge ones.
  for (double interval : {0.0, 1e300, 4e14}) {
    const auto r = history::process(average, data, ua::date_time{0}, ua::date_time{hi}, interval, {}, 100);
    REQUIRE(r);
    REQUIRE(!r->empty());
    CHECK((*r)[0].status == history::with_aggregate_bits(ua::status::good, history::historian_bits::calculated));
  }
  const auto back = history::process(average, data, ua::date_time{hi}, ua::date_time{0}, 0, {}, 1);
  REQUIRE(back);
  CHECK(back->size() == 1);
}

TEST_CASE("aggregates: no raw data is Bad_NoData in every interval of every aggregate", "[history][aggregates]") {
  for (const auto& id : history::served_aggregates()) {
    INFO(id.to_string());
    for (bool forward : {true, false}) {
      const auto r = forward ? history::process(id, {}, at(0), at(10), 3000, {}, 100)
                             : history::process(id, {}, at(10), at(0), 3000, {}, 100);
      REQUIRE(r);
      REQUIRE(r->size() == 4);
      for (const auto& dv : *r) {
        CHECK(dv.status.code() == ua::status::bad_no_data.value());
        CHECK(dv.value.empty());
      }
    }
  }
}

TEST_CASE("aggregates: values that are not numbers are Bad_AggregateInvalidInputs for numeric aggregates", "[history][aggregates]") {
  std::vector<ua::data_value> data;
  for (int i = 0; i < 10; ++i) data.push_back(raw(i, ua::ua_string("text")));
  const ua::node_id numeric[] = {
      average, ua::node_id{0, ua::ids::aggregate_function_time_average},
      ua::node_id{0, ua::ids::aggregate_function_minimum2}, ua::node_id{0, ua::ids::aggregate_function_interpolative},
      ua::node_id{0, ua::ids::aggregate_function_standard_deviation_sample},
      ua::node_id{0, ua::ids::aggregate_function_delta_bounds}};
  for (const auto& id : numeric) {
    INFO(id.to_string());
    const auto r = history::process(id, data, at(0), at(10), 5000, {}, 100);
    REQUIRE(r);
    for (const auto& dv : *r) CHECK(dv.status == ua::status::bad_aggregate_invalid_inputs);
  }
  // Count counts values of any type (Part 13 §5.4.3.21).
  const auto count = history::process(ua::node_id{0, ua::ids::aggregate_function_count}, data, at(0), at(10),
                                      5000, {}, 100);
  REQUIRE(count);
  REQUIRE(count->size() == 2);
  CHECK(*(*count)[0].value.get_if<std::int32_t>() == 5);
}

TEST_CASE("aggregates: unsorted, NaN and infinite data give one value per interval and no crash", "[history][aggregates]") {
  std::mt19937 rng(13);
  std::uniform_int_distribution<int> when(-5, 25), kind(0, 5);
  const ua::status_code statuses[] = {ua::status::good, ua::status::uncertain, ua::status::bad,
                                      ua::status::bad_no_data, ua::status::uncertain_data_sub_normal,
                                      ua::status::good};
  std::vector<ua::data_value> data;
  for (int i = 0; i < 200; ++i) {
    const int k = kind(rng);
    ua::variant v;
    if (k == 0) v = std::numeric_limits<double>::quiet_NaN();
    else if (k == 1) v = std::numeric_limits<double>::infinity();
    else if (k == 2) v = true;
    else if (k == 3) v = std::int32_t{-7};
    else v = static_cast<double>(when(rng));
    data.push_back(raw(when(rng), v, statuses[kind(rng)]));
  }
  for (bool sorted : {false, true}) {
    if (sorted)
      std::stable_sort(data.begin(), data.end(), [](const auto& a, const auto& b) {
        return a.source_timestamp < b.source_timestamp;
      });
    for (const auto& id : history::served_aggregates()) {
      for (bool stepped : {false, true}) {
        aggregate_configuration config;
        config.stepped = stepped;
        config.use_sloped_extrapolation = !stepped;
        const auto r = history::process(id, data, at(0), at(20), 3000, config, 100);
        REQUIRE(r);
        CHECK(r->size() == 7);
        const auto back = history::process(id, data, at(20), at(0), 3000, config, 100);
        REQUIRE(back);
        CHECK(back->size() == 7);
      }
    }
  }
}

TEST_CASE("aggregates: Partial marks the intervals the data starts and ends inside", "[history][aggregates]") {
  std::vector<ua::data_value> data{raw(3, 1.0), raw(4, 2.0), raw(12, 3.0)};
  const auto r = history::process(ua::node_id{0, ua::ids::aggregate_function_count}, data, at(0), at(20),
                                  5000, {}, 100);
  REQUIRE(r);
  REQUIRE(r->size() == 4);
  using history::aggregate_bits;
  using history::historian_bits::partial;
  CHECK((aggregate_bits((*r)[0].status) & partial) != 0);  // the data starts at 3 s
  CHECK((aggregate_bits((*r)[1].status) & partial) == 0);
  CHECK((aggregate_bits((*r)[2].status) & partial) != 0);  // and ends at 12 s
  CHECK((*r)[3].status.code() == ua::status::bad_no_data.value());
}

TEST_CASE("values_at: raw, interpolated, stepped and unbounded times (Part 11 §6.5.5)", "[history][aggregates]") {
  std::vector<ua::data_value> data{raw(0, 0.0), raw(10, 10.0), raw(15, ua::variant{}, ua::status::bad),
                                   raw(20, 20.0)};
  const ua::date_time times[] = {at(-1), at(0), at(5), at(12), at(17), at(25)};
  using history::aggregate_bits;
  using history::historian_bits::interpolated;

  aggregate_configuration sloped;
  const auto v = history::values_at(data, times, false, sloped);
  REQUIRE(v.size() == 6);
  CHECK(v[0].status == ua::status::bad_no_data);  // nothing before
  CHECK(v[0].value.empty());
  CHECK(v[1] == data[0]);                          // the raw value itself
  CHECK(as_double(v[2]) == Approx(5));
  CHECK(v[2].status == history::with_aggregate_bits(ua::status::good, interpolated));
  CHECK(v[2].source_timestamp == at(5));
  // Interpolated bounds pass over the Bad value at 15 s: 10 -> 20, marked as estimated.
  CHECK(as_double(v[3]) == Approx(12));
  CHECK(v[3].status.code() == ua::status::uncertain_data_sub_normal.value());
  CHECK(as_double(v[4]) == Approx(17));
  // Past the last value: stepped extrapolation, Uncertain.
  CHECK(as_double(v[5]) == Approx(20));
  CHECK(v[5].status.code() == ua::status::uncertain_data_sub_normal.value());
  CHECK((aggregate_bits(v[5].status) & interpolated) != 0);

  // Simple bounds take the raw neighbours: at 17 s the one before is Bad.
  const auto s = history::values_at(data, times, true, sloped);
  CHECK(as_double(s[3]) == Approx(10));  // 10 then Bad: a step, Uncertain
  CHECK(s[3].status.code() == ua::status::uncertain_data_sub_normal.value());
  CHECK(s[4].status == ua::status::bad_no_data);
  CHECK(s[5].status == ua::status::bad_no_data);  // nothing after the last value

  aggregate_configuration stepped;
  stepped.stepped = true;
  const auto st = history::values_at(data, times, false, stepped);
  CHECK(as_double(st[2]) == Approx(0));
  CHECK(st[2].status == history::with_aggregate_bits(ua::status::good, interpolated));
}
