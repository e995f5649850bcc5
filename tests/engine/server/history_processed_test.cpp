// HistoryRead with ReadProcessedDetails (Part 11 §6.5.4) and ReadAtTimeDetails (§6.5.5) over a
// SQLite store in a temp folder: aggregates over known values, the per-node and per-request
// statuses, and the AggregateFunctions folders; plus a printed timing of a day of 1 s data.
#include <catch2/catch.hpp>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <limits>

#include "engine/server/server_core.hpp"
#include "engine/server/services/history_read.hpp"
#include "history/sqlite_store.hpp"
#include "tests/engine/server/core_fixture.hpp"
#include "tests/history/temp_store.hpp"
#include "uactor/ua/node_ids.hpp"

// Everything in a namespace of its own, so that this file can share a unity batch with neighbours
// that use the same helper names (docs/decisions/0050).
namespace server_history_processed_test {

using namespace uactor;
using test::temp_store;
namespace status = ua::status;

namespace {

const ua::node_id counter = ua::node_id::string(1, "Demo.Dynamic.Counter");
constexpr std::int64_t second = 10'000'000;              // DateTime ticks
constexpr std::int64_t t0 = 133'000'000'000'000'000;     // some day in 2022

// `count` Good values 0, 1, ... of the counter, one a second from t0.
void fill(history::history_store& store, int count, std::int64_t step = second) {
  std::vector<history::record> batch;
  batch.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    ua::data_value v;
    v.set_value(static_cast<double>(i));
    v.source_timestamp.ticks = t0 + step * i;
    v.has_source_timestamp = true;
    v.server_timestamp = v.source_timestamp;
    v.has_server_timestamp = true;
    batch.push_back({counter.to_string(), std::move(v)});
  }
  store.append(batch);
}

ua::history_read_request processed_read(std::int64_t start, std::int64_t end, double interval_ms,
                                        std::vector<std::uint32_t> aggregates) {
  ua::read_processed_details d;
  d.start_time.ticks = start;
  d.end_time.ticks = end;
  d.processing_interval = interval_ms;
  d.aggregate_configuration.use_server_capabilities_defaults = true;
  ua::history_read_request req;
  for (auto a : aggregates) {
    d.aggregate_type.push_back(ua::node_id(0, a));
    ua::history_read_value_id id;
    id.node_id = counter;
    req.nodes_to_read.push_back(id);
  }
  req.history_read_details = ua::extension_object(d);
  req.timestamps_to_return = ua::timestamps_to_return::both;
  return req;
}

ua::history_read_request at_time_read(std::vector<std::int64_t> times, bool simple) {
  ua::read_at_time_details d;
  for (auto t : times) d.req_times.push_back(ua::date_time{t});
  d.use_simple_bounds = simple;
  ua::history_read_request req;
  req.history_read_details = ua::extension_object(d);
  req.timestamps_to_return = ua::timestamps_to_return::both;
  ua::history_read_value_id id;
  id.node_id = counter;
  req.nodes_to_read.push_back(id);
  return req;
}

struct fixture {
  actors::server_core core = test::make_core();
  temp_store t;
  services::history_continuations points;
  services::history_limits limits;
  ua::history_read_response resp;

  fixture() { REQUIRE(core.space().set_historizing(core.space().find(counter), true) == status::good); }

  const ua::history_read_response& read(const ua::history_read_request& req) {
    services::service_history_read(req, resp, core.space(), t.store.get(), points, limits);
    return resp;
  }
};

const std::vector<ua::data_value>& values_of(const ua::history_read_result& r) {
  static const std::vector<ua::data_value> none;
  const auto* d = r.history_data.get_if<ua::history_data>();
  return d ? d->data_values : none;
}

double number(const ua::data_value& v) {
  if (const auto* d = v.value.get_if<double>()) return *d;
  if (const auto* n = v.value.get_if<std::uint32_t>()) return *n;
  if (const auto* n = v.value.get_if<std::int32_t>()) return *n;
  return -1e300;
}

std::vector<double> numbers(const ua::history_read_result& r) {
  std::vector<double> out;
  for (const auto& v : values_of(r)) out.push_back(number(v));
  return out;
}

// Part 11 §6.3.2 HistoryInfo bits of a processed value's status.
constexpr std::uint32_t calculated_bit = 0x1, interpolated_bit = 0x2;

}  // namespace

TEST_CASE("HistoryRead processed: Average, Minimum and Count over known values", "[history]") {
  fixture f;
  fill(*f.t.store, 10);  // 0 .. 9 at t0 .. t0 + 9 s
  const auto& resp = f.read(processed_read(t0, t0 + 10 * second, 5'000,
                                           {ua::ids::aggregate_function_average, ua::ids::aggregate_function_minimum,
                                            ua::ids::aggregate_function_count}));
  REQUIRE(resp.response_header.service_result == status::good);
  REQUIRE(resp.results.size() == 3);
  for (const auto& r : resp.results) REQUIRE(r.status_code == status::good);
  CHECK(numbers(resp.results[0]) == std::vector<double>{2, 7});
  CHECK(numbers(resp.results[1]) == std::vector<double>{0, 5});
  CHECK(numbers(resp.results[2]) == std::vector<double>{5, 5});
  const auto& avg = values_of(resp.results[0]);
  REQUIRE(avg.size() == 2);
  CHECK(avg[0].source_timestamp.ticks == t0);  // an interval's value carries its start
  CHECK(avg[1].source_timestamp.ticks == t0 + 5 * second);
  CHECK((avg[0].status.value() & calculated_bit) != 0);
  CHECK(avg[0].status.code() == status::good.code());
}

TEST_CASE("HistoryRead processed: interval 0 is one interval, start after end runs backwards", "[history]") {
  fixture f;
  fill(*f.t.store, 10);
  CHECK(numbers(f.read(processed_read(t0, t0 + 10 * second, 0, {ua::ids::aggregate_function_average})).results[0]) ==
        std::vector<double>{4.5});
  const auto& back = f.read(processed_read(t0 + 10 * second, t0, 5'000, {ua::ids::aggregate_function_average}));
  REQUIRE(back.results[0].status_code == status::good);
  // Backwards an interval holds its (later) start, not its end (Part 11 §6.5.4): (t0+5s, t0+10s]
  // is 6 .. 9, (t0, t0+5s] is 1 .. 5.
  CHECK(numbers(back.results[0]) == std::vector<double>{7.5, 3});
}

TEST_CASE("HistoryRead processed: unknown aggregate, list mismatch, limits, bad arguments", "[history]") {
  fixture f;
  fill(*f.t.store, 10);
  // An aggregate the server does not compute (a NodeId that is no AggregateFunction), next to one it does.
  auto req = processed_read(t0, t0 + 10 * second, 5'000, {ua::ids::aggregate_function_average, 85});
  f.read(req);
  REQUIRE(f.resp.response_header.service_result == status::good);
  CHECK(f.resp.results[0].status_code == status::good);
  CHECK(f.resp.results[1].status_code == status::bad_aggregate_not_supported);
  // Not one aggregate per node.
  req.history_read_details.get_if<ua::read_processed_details>()->aggregate_type.pop_back();
  CHECK(f.read(req).response_header.service_result == status::bad_aggregate_list_mismatch);
  // More intervals than a node may return: a page and a continuation point ("continuation points" below).
  f.limits.max_values_per_node = 5;
  CHECK_FALSE(f.read(processed_read(t0, t0 + 10 * second, 1'000, {ua::ids::aggregate_function_average})).results[0]
                  .continuation_point.empty());
  CHECK(f.read(processed_read(t0, t0 + 10 * second, 2'000, {ua::ids::aggregate_function_average})).results[0]
            .continuation_point.empty());
  f.points = services::history_continuations{};
  // More raw values than one node may read for it.
  f.limits = {};
  f.limits.max_raw_values_per_aggregate = 4;
  CHECK(f.read(processed_read(t0, t0 + 10 * second, 0, {ua::ids::aggregate_function_average})).results[0].status_code ==
        status::bad_too_many_operations);
  f.limits = {};
  // start == end, a negative interval, no end, a percentage over 100.
  CHECK(f.read(processed_read(t0, t0, 0, {ua::ids::aggregate_function_average})).results[0].status_code ==
        status::bad_invalid_argument);
  CHECK(f.read(processed_read(t0, t0 + second, -1, {ua::ids::aggregate_function_average})).results[0].status_code ==
        status::bad_invalid_argument);
  CHECK(f.read(processed_read(t0, 0, 1'000, {ua::ids::aggregate_function_average})).results[0].status_code ==
        status::bad_invalid_timestamp_argument);
  auto rejected = processed_read(t0, t0 + second, 0, {ua::ids::aggregate_function_average});
  auto& config = rejected.history_read_details.get_if<ua::read_processed_details>()->aggregate_configuration;
  config.use_server_capabilities_defaults = false;
  config.percent_data_bad = 101;
  CHECK(f.read(rejected).results[0].status_code == status::bad_aggregate_configuration_rejected);
  // Hostile ends: the widest range in 1 ms intervals, and at-time at the ends of DateTime.
  constexpr auto lowest = std::numeric_limits<std::int64_t>::min();
  constexpr auto highest = std::numeric_limits<std::int64_t>::max();
  // (a range wider than DateTime's arithmetic allows is the calculation's Bad_InvalidArgument).
  CHECK(f.read(processed_read(lowest, highest, 1, {ua::ids::aggregate_function_average})).results[0].status_code ==
        status::bad_invalid_argument);
  const auto wide = f.read(processed_read(highest, lowest, 0, {ua::ids::aggregate_function_count})).results[0].status_code;
  CHECK((wide.is_good() || wide == status::bad_invalid_argument));
  const auto& ends = f.read(at_time_read({lowest, highest}, false)).results[0];
  REQUIRE(ends.status_code == status::good);
  CHECK(values_of(ends).size() == 2);
  // A raw read's continuation point means nothing to a processed read.
  auto with_point = processed_read(t0, t0 + second, 0, {ua::ids::aggregate_function_average});
  with_point.nodes_to_read[0].continuation_point = ua::byte_string("12345678");
  CHECK(f.read(with_point).results[0].status_code == status::bad_continuation_point_invalid);
}

TEST_CASE("HistoryRead at time: raw values as they are, interpolated between, NoData before", "[history]") {
  fixture f;
  fill(*f.t.store, 10);
  for (const bool simple : {true, false}) {
    const auto& r = f.read(at_time_read({t0 + 2 * second, t0 + 2 * second + second / 2, t0 - second}, simple)).results[0];
    REQUIRE(r.status_code == status::good);
    const auto& v = values_of(r);
    REQUIRE(v.size() == 3);
    CHECK(number(v[0]) == 2);
    CHECK(v[0].status == status::good);  // the raw value: no bits
    CHECK(number(v[1]) == Approx(2.5));  // sloped between 2 and 3
    CHECK((v[1].status.value() & interpolated_bit) != 0);
    CHECK(v[1].source_timestamp.ticks == t0 + 2 * second + second / 2);
    CHECK(v[2].status.code() == status::bad_no_data.code());
  }
  // Too many values between the times: each time from the values around it, the same answers.
  f.limits.max_raw_values_per_aggregate = 2;
  const auto& r = f.read(at_time_read({t0 + second / 2, t0 + 8 * second + second / 2}, true)).results[0];
  REQUIRE(r.status_code == status::good);
  CHECK(numbers(r) == std::vector<double>{0.5, 8.5});
  // No times.
  CHECK(f.read(at_time_read({}, true)).results[0].status_code == status::bad_invalid_timestamp_argument);
}

namespace {

// Every page of `req` (its continuation points followed: the nodes with one are sent again, with
// their aggregates, until none is left), the values of each node joined.
std::vector<std::vector<ua::data_value>> all_pages(fixture& f, const ua::history_read_request& req, std::size_t& pages) {
  std::vector<std::vector<ua::data_value>> out(req.nodes_to_read.size());
  std::vector<std::size_t> pending(req.nodes_to_read.size());
  for (std::size_t i = 0; i < pending.size(); ++i) pending[i] = i;
  std::vector<ua::byte_string> points(req.nodes_to_read.size());
  const auto* processed = req.history_read_details.get_if<ua::read_processed_details>();
  pages = 0;
  while (!pending.empty()) {
    auto round = req;
    round.nodes_to_read.clear();
    ua::read_processed_details details;
    if (processed) {
      details = *processed;
      details.aggregate_type.clear();
    }
    for (const std::size_t i : pending) {
      round.nodes_to_read.push_back(req.nodes_to_read[i]);
      round.nodes_to_read.back().continuation_point = points[i];
      if (processed) details.aggregate_type.push_back(processed->aggregate_type[i]);
    }
    if (processed) round.history_read_details = ua::extension_object(details);
    const auto& resp = f.read(round);
    REQUIRE(resp.results.size() == pending.size());
    ++pages;
    REQUIRE(pages < 1'000);
    std::vector<std::size_t> next;
    for (std::size_t k = 0; k < pending.size(); ++k) {
      const auto& r = resp.results[k];
      REQUIRE(r.status_code.is_good());
      for (const auto& v : values_of(r)) out[pending[k]].push_back(v);
      points[pending[k]] = r.continuation_point;
      if (!r.continuation_point.empty()) next.push_back(pending[k]);
    }
    pending = std::move(next);
  }
  return out;
}

// Values equal as a client sees them: value, status, both timestamps.
bool same_values(const std::vector<ua::data_value>& a, const std::vector<ua::data_value>& b) {
  if (a.size() != b.size()) return false;
  for (std::size_t i = 0; i < a.size(); ++i)
    if (!(a[i].value == b[i].value) || a[i].status != b[i].status || a[i].source_timestamp != b[i].source_timestamp)
      return false;
  return true;
}

}  // namespace

TEST_CASE("HistoryRead processed and at time: continuation points page what a node may not return at once", "[history]") {
  fixture f;
  // 0 .. 99 a second apart, Bad values on some page edges (an interpolated bound skips them).
  std::vector<history::record> batch;
  for (int i = 0; i < 100; ++i) {
    ua::data_value v;
    v.set_value(static_cast<double>(i % 17));
    if (i % 7 == 3) {
      v.status = status::bad;
      v.has_status = true;
    }
    v.source_timestamp.ticks = t0 + second * i;
    v.has_source_timestamp = true;
    batch.push_back({counter.to_string(), std::move(v)});
  }
  f.t.store->append(batch);
  const std::uint32_t aggregates[] = {ua::ids::aggregate_function_average, ua::ids::aggregate_function_time_average,
                                      ua::ids::aggregate_function_interpolative, ua::ids::aggregate_function_count,
                                      ua::ids::aggregate_function_start_bound};
  for (const std::uint32_t aggregate : aggregates) {
    for (const bool backward : {false, true}) {
      for (const double interval : {3'000.0, 2'500.0, 0.7 * 1'000}) {
        DYNAMIC_SECTION("aggregate " << aggregate << (backward ? " backwards" : " forwards") << " interval " << interval) {
          const auto req = backward ? processed_read(t0 + 95 * second, t0 + 2 * second, interval, {aggregate})
                                    : processed_read(t0 + 2 * second, t0 + 95 * second, interval, {aggregate});
          f.limits = {};
          std::size_t pages = 0;
          const auto whole = all_pages(f, req, pages);
          CHECK(pages == 1);
          f.limits.max_values_per_node = 7;  // pages of 7 intervals
          const auto paged = all_pages(f, req, pages);
          CHECK(pages == (whole[0].size() + 6) / 7);
          CHECK(whole[0].size() > 30);
          CHECK(same_values(whole[0], paged[0]));
          CHECK(f.points.size() == 0);  // each used once, none left
        }
      }
    }
  }
  SECTION("the response's budget: two nodes share it, the second continues on the next page") {
    f.limits.max_values_per_request = 10;
    const auto req = processed_read(t0, t0 + 20 * second, 1'000, {ua::ids::aggregate_function_average, ua::ids::aggregate_function_maximum});
    std::size_t pages = 0;
    const auto paged = all_pages(f, req, pages);
    CHECK(pages >= 4);
    CHECK(paged[0].size() == 20);
    CHECK(paged[1].size() == 20);
    CHECK(number(paged[1][5]) == 5);  // Maximum of [5 s, 6 s)
  }
  SECTION("at time: the times in pages, in the order asked") {
    std::vector<std::int64_t> times;
    for (int i = 0; i < 23; ++i) times.push_back(t0 + (i * 37 % 99) * second + second / 3);
    const auto req = at_time_read(times, false);
    std::size_t pages = 0;
    const auto whole = all_pages(f, req, pages);
    CHECK(pages == 1);
    f.limits.max_values_per_node = 5;
    const auto paged = all_pages(f, req, pages);
    CHECK(pages == 5);
    REQUIRE(paged[0].size() == 23);
    CHECK(same_values(whole[0], paged[0]));
    CHECK(paged[0][4].source_timestamp.ticks == times[4]);
  }
}

TEST_CASE("HistoryRead processed and at time: a continuation point is for its own request, once, released, bounded", "[history]") {
  fixture f;
  fill(*f.t.store, 100);
  f.limits.max_values_per_node = 10;
  const auto req = processed_read(t0, t0 + 100 * second, 1'000, {ua::ids::aggregate_function_average});
  const auto first = f.read(req).results[0];
  REQUIRE(first.status_code == status::good);
  REQUIRE_FALSE(first.continuation_point.empty());
  CHECK(numbers(first).back() == 9);
  // Another aggregate, interval, range or kind of read with it: invalid (the point stays its
  // request's: that one continues with it).
  for (int change = 0; change < 5; ++change) {
    auto point = f.read(req).results[0].continuation_point;
    REQUIRE_FALSE(point.empty());
    ua::history_read_request other = change == 0   ? processed_read(t0, t0 + 100 * second, 1'000, {ua::ids::aggregate_function_maximum})
                                     : change == 1 ? processed_read(t0, t0 + 100 * second, 2'000, {ua::ids::aggregate_function_average})
                                     : change == 2 ? processed_read(t0, t0 + 90 * second, 1'000, {ua::ids::aggregate_function_average})
                                     : change == 3 ? at_time_read({t0, t0 + second}, true)
                                                   : req;
    if (change == 4) {  // a raw read with a processed read's point
      ua::read_raw_modified_details d;
      d.start_time.ticks = t0;
      d.end_time.ticks = t0 + 100 * second;
      other.history_read_details = ua::extension_object(d);
    }
    other.nodes_to_read[0].continuation_point = point;
    CHECK(f.read(other).results[0].status_code == status::bad_continuation_point_invalid);
    auto again = req;
    again.nodes_to_read[0].continuation_point = point;
    const auto resumed = f.read(again).results[0];
    CHECK(resumed.status_code == status::good);
    CHECK(numbers(resumed).front() == 10);
  }
  // The same request continues; used once.
  auto next = req;
  next.nodes_to_read[0].continuation_point = first.continuation_point;
  f.points = services::history_continuations{};
  const auto fresh = f.read(req).results[0];
  next.nodes_to_read[0].continuation_point = fresh.continuation_point;
  const auto second_page = f.read(next).results[0];
  REQUIRE(second_page.status_code == status::good);
  CHECK(numbers(second_page).front() == 10);
  CHECK(f.read(next).results[0].status_code == status::bad_continuation_point_invalid);
  // Released: gone, and releasing returns no data.
  auto release = req;
  release.release_continuation_points = true;
  release.nodes_to_read[0].continuation_point = second_page.continuation_point;
  const auto released = f.read(release).results[0];
  CHECK(released.status_code == status::good);
  CHECK(values_of(released).empty());
  next.nodes_to_read[0].continuation_point = second_page.continuation_point;
  CHECK(f.read(next).results[0].status_code == status::bad_continuation_point_invalid);
  // The session's bound, shared with raw reads: past ten, Bad_NoContinuationPoints.
  f.points = services::history_continuations{};
  for (int i = 0; i < 10; ++i) CHECK_FALSE(f.read(req).results[0].continuation_point.empty());
  const auto full = f.read(req).results[0];
  CHECK(full.status_code == status::bad_no_continuation_points);
  CHECK(full.continuation_point.empty());
  // Millions of intervals: pages of the bound, not an error; sub-tick intervals still refused.
  f.points = services::history_continuations{};
  const auto many = f.read(processed_read(t0, t0 + 100 * second, 0.0001, {ua::ids::aggregate_function_count})).results[0];
  CHECK(many.status_code == status::good);
  CHECK(values_of(many).size() == 10);
  CHECK_FALSE(many.continuation_point.empty());
  CHECK(f.read(processed_read(t0, t0 + 100 * second, 0.00001, {ua::ids::aggregate_function_count})).results[0].status_code ==
        status::bad_invalid_argument);
}

TEST_CASE("server_core: the AggregateFunctions folders organize the served aggregates while history is on", "[history]") {
  auto core = test::make_core();
  temp_store t;
  const auto organized = [&](std::uint32_t folder, std::uint32_t aggregate) {
    const ua::node_index f = core.space().find(ua::node_id(0, folder));
    REQUIRE(f != ua::no_node);
    bool found = false;
    for (const ua::reference& r : core.space().forward_references(f))
      if (r.target == core.space().find(ua::node_id(0, aggregate))) found = true;
    return found;
  };
  core.set_history(t.store, [](std::vector<history::record>&&) { return true; });
  for (const auto folder : {ua::ids::history_server_capabilities_aggregate_functions,
                            ua::ids::server_server_capabilities_aggregate_functions}) {
    CHECK(organized(folder, ua::ids::aggregate_function_average));
    CHECK(organized(folder, ua::ids::aggregate_function_interpolative));
  }
  core.set_history(nullptr, {});
  CHECK_FALSE(organized(ua::ids::history_server_capabilities_aggregate_functions, ua::ids::aggregate_function_average));
}

// Not asserted: the time of one processed Average over a day of 1 s data in 1,440 intervals.
TEST_CASE("HistoryRead processed: a day of 1 s data in 1,440 intervals, timed", "[history][.timing]") {
  fixture f;
  constexpr int day = 86'400;
  fill(*f.t.store, day);
  const auto req = processed_read(t0, t0 + day * second, 60'000, {ua::ids::aggregate_function_average});
  for (int run = 0; run < 5; ++run) {
    const auto began = std::chrono::steady_clock::now();
    const auto& r = f.read(req).results[0];
    const auto ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count();
    REQUIRE(r.status_code == status::good);
    REQUIRE(values_of(r).size() == 1'440);
    std::printf("processed Average, 86,400 raw values from SQLite, 1,440 intervals: %.1f ms (run %d)\n", ms, run + 1);
  }
  // Its two parts: the store's read, and the calculation.
  const std::string node = counter.to_string();
  history::raw_query q;
  q.node = node;
  q.from = t0;
  q.to = t0 + day * second;
  q.to_inclusive = true;
  auto began = std::chrono::steady_clock::now();
  const auto page = f.t.store->read_raw(q);
  const auto read_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count();
  began = std::chrono::steady_clock::now();
  const auto got = history::process(ua::node_id(0, ua::ids::aggregate_function_average), page.values, ua::date_time{t0},
                                    ua::date_time{t0 + day * second}, 60'000, {}, 10'000);
  const auto calc_ms = std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - began).count();
  REQUIRE(got);
  std::printf("of which: read_raw %zu values %.1f ms, history::process %.1f ms\n", page.values.size(), read_ms, calc_ms);
}

}  // namespace server_history_processed_test
