// HistoryRead with ReadRawModifiedDetails (Part 4 §5.10.3, Part 11 §6.5.3) over a SQLite store in
// a temp folder: pages and continuation points, reverse order, bounds, the per-node checks and
// hostile details; then through server_core: the recording hook and the service's row.
#include <catch2/catch.hpp>


#include "engine/server/access/permission_table.hpp"
#include "engine/server/server_core.hpp"
#include "engine/server/services/history_read.hpp"
#include "history/sqlite_store.hpp"
#include "protocol/message.hpp"
#include "tests/engine/server/core_fixture.hpp"
#include "tests/history/temp_store.hpp"

using namespace uactor;
using test::temp_store;
namespace status = ua::status;

namespace {

const ua::node_id counter = ua::node_id::string(1, "Demo.Dynamic.Counter");
constexpr std::int64_t t0 = 1'000'000;  // ticks of the first stored value; one value every 10 ticks

// `count` values 0, 1, ... of the counter, at t0, t0 + 10, ...
void fill(history::history_store& store, int count) {
  std::vector<history::record> batch;
  batch.reserve(static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i) {
    ua::data_value v;
    v.set_value(static_cast<std::uint32_t>(i));
    v.source_timestamp.ticks = t0 + 10 * i;
    v.has_source_timestamp = true;
    v.server_timestamp.ticks = t0 + 10 * i + 5;
    v.has_server_timestamp = true;
    batch.push_back({counter.to_string(), std::move(v)});
  }
  store.append(batch);
}

ua::history_read_request raw_read(std::int64_t start, std::int64_t end, std::uint32_t num, bool bounds = false) {
  ua::history_read_request req;
  ua::read_raw_modified_details d;
  d.start_time.ticks = start;
  d.end_time.ticks = end;
  d.num_values_per_node = num;
  d.return_bounds = bounds;
  req.history_read_details = ua::extension_object(d);
  req.timestamps_to_return = ua::timestamps_to_return::both;
  ua::history_read_value_id id;
  id.node_id = counter;
  req.nodes_to_read.push_back(id);
  return req;
}

// The values of one result: the counter's numbers, -1 for a value-less bound.
std::vector<std::int64_t> numbers(const ua::history_read_result& r) {
  std::vector<std::int64_t> out;
  const auto* d = r.history_data.get_if<ua::history_data>();
  if (!d) return out;
  for (const auto& v : d->data_values) {
    const auto* n = v.value.get_if<std::uint32_t>();
    out.push_back(n ? static_cast<std::int64_t>(*n) : -1);
  }
  return out;
}

struct fixture {
  actors::server_core core = test::make_core();
  temp_store t;
  services::history_continuations points;
  services::history_limits limits;
  ua::history_read_response resp;

  fixture() { REQUIRE(core.space().set_historizing(core.space().find(counter), true) == status::good); }

  const ua::history_read_result& read(const ua::history_read_request& req) {
    services::service_history_read(req, resp, core.space(), t.store.get(), points, limits);
    REQUIRE(resp.response_header.service_result == status::good);
    REQUIRE(resp.results.size() == req.nodes_to_read.size());
    return resp.results[0];
  }
  // Every page of a read, following its continuation points.
  std::vector<std::int64_t> read_all(ua::history_read_request req, std::size_t& pages) {
    std::vector<std::int64_t> all;
    pages = 0;
    for (;;) {
      const auto& r = read(req);
      REQUIRE(r.status_code.is_good());
      ++pages;
      for (auto n : numbers(r)) all.push_back(n);
      if (r.continuation_point.is_null() || r.continuation_point.size() == 0) break;
      req.nodes_to_read[0].continuation_point = r.continuation_point;
      REQUIRE(pages < 1000);
    }
    return all;
  }
};

std::vector<std::int64_t> iota(std::int64_t from, std::int64_t to, std::int64_t step = 1) {
  std::vector<std::int64_t> out;
  for (std::int64_t i = from; step > 0 ? i < to : i > to; i += step) out.push_back(i);
  return out;
}

}  // namespace

TEST_CASE("HistoryRead: numValuesPerNode pages a range through continuation points", "[history]") {
  fixture f;
  fill(*f.t.store, 25);
  std::size_t pages = 0;
  // [t0, t0 + 200): values 0..19, four at a time.
  CHECK(f.read_all(raw_read(t0, t0 + 200, 4), pages) == iota(0, 20));
  CHECK(pages == 5);
  CHECK(f.points.size() == 0);  // the last page returned none
  const auto& r = f.read(raw_read(t0, t0 + 200, 0));
  CHECK(numbers(r) == iota(0, 20));
  const auto& d = r.history_data.get_if<ua::history_data>()->data_values.front();
  CHECK(d.has_source_timestamp);
  CHECK(d.has_server_timestamp);
}

TEST_CASE("HistoryRead: startTime after endTime reads backwards", "[history]") {
  fixture f;
  fill(*f.t.store, 25);
  std::size_t pages = 0;
  // (t0 + 50, t0 + 200]: 20 down to 6.
  CHECK(f.read_all(raw_read(t0 + 200, t0 + 50, 4), pages) == iota(20, 5, -1));
  // Only endTime and a count: the count latest values up to endTime.
  CHECK(f.read_all(raw_read(0, t0 + 100, 3), pages) == std::vector<std::int64_t>{10, 9, 8});
  // Only startTime and a count: the count values from startTime, and no more.
  CHECK(f.read_all(raw_read(t0 + 100, 0, 3), pages) == std::vector<std::int64_t>{10, 11, 12});
}

TEST_CASE("HistoryRead: returnBounds adds the values around the range, or Bad_BoundNotFound", "[history]") {
  fixture f;
  fill(*f.t.store, 10);  // t0 .. t0 + 90
  // Between stored times: the value before the start and the one at or after the end.
  auto r = f.read(raw_read(t0 + 15, t0 + 45, 0, true));
  CHECK(numbers(r) == std::vector<std::int64_t>{1, 2, 3, 4, 5});
  // A start on a stored value is its own bound; the end is past the data: LAST.
  r = f.read(raw_read(t0 + 70, t0 + 500, 0, true));
  CHECK(numbers(r) == std::vector<std::int64_t>{7, 8, 9, -1});
  const auto& last = r.history_data.get_if<ua::history_data>()->data_values.back();
  CHECK(last.status == status::bad_bound_not_found);
  CHECK(last.source_timestamp.ticks == t0 + 500);
  // Before the data: FIRST, then the values.
  r = f.read(raw_read(t0 - 100, t0 + 25, 0, true));
  CHECK(numbers(r) == std::vector<std::int64_t>{-1, 0, 1, 2, 3});
  // Backwards: the value after the start, the values, the value at or before the end.
  r = f.read(raw_read(t0 + 45, t0 + 15, 0, true));
  CHECK(numbers(r) == std::vector<std::int64_t>{5, 4, 3, 2, 1});
}

TEST_CASE("HistoryRead: hostile details are answered, not crashed on", "[history]") {
  fixture f;
  fill(*f.t.store, 10);
  // Equal times with numValuesPerNode 0: the value at that time, forwards.
  CHECK(numbers(f.read(raw_read(t0 + 30, t0 + 30, 0))) == std::vector<std::int64_t>{3});
  // Equal times between values: no data.
  CHECK(f.read(raw_read(t0 + 31, t0 + 31, 0)).status_code == status::good_no_data);
  // Reversed times with numValuesPerNode 0: all of the range, backwards.
  CHECK(numbers(f.read(raw_read(t0 + 30, t0 - 1, 0))) == std::vector<std::int64_t>{3, 2, 1, 0});
  // Fewer than two of startTime, endTime and numValuesPerNode.
  CHECK(f.read(raw_read(0, 0, 0)).status_code == status::bad_invalid_timestamp_argument);
  CHECK(f.read(raw_read(t0, 0, 0)).status_code == status::bad_invalid_timestamp_argument);
  CHECK(f.read(raw_read(0, 0, 5)).status_code == status::bad_invalid_timestamp_argument);
  // The extremes of DateTime.
  CHECK(f.read(raw_read(std::numeric_limits<std::int64_t>::max(), 1, 0)).status_code.is_good());
  CHECK(f.read(raw_read(1, std::numeric_limits<std::int64_t>::max(), 0)).status_code.is_good());
  CHECK(f.read(raw_read(std::numeric_limits<std::int64_t>::min(), -1, 0)).status_code.is_good());
}

TEST_CASE("HistoryRead: a million values asked for come a page at a time", "[history]") {
  fixture f;
  f.limits.max_values_per_node = 1'000;
  fill(*f.t.store, 2'500);
  const auto& r = f.read(raw_read(t0, t0 + 1'000'000, 1'000'000));
  CHECK(numbers(r).size() == 1'000);
  CHECK_FALSE(r.continuation_point.is_null());
  std::size_t pages = 0;
  const auto all = f.read_all(raw_read(t0, t0 + 1'000'000, 0), pages);
  CHECK(all == iota(0, 2'500));
  CHECK(pages == 3);
}

TEST_CASE("HistoryRead: continuation points are the session's, used once, released on request", "[history]") {
  fixture f;
  fill(*f.t.store, 20);
  auto req = raw_read(t0, t0 + 1'000, 5);
  const ua::byte_string point = f.read(req).continuation_point;
  REQUIRE_FALSE(point.is_null());
  REQUIRE(f.points.size() == 1);

  // Another session's points do not know it.
  services::history_continuations other;
  req.nodes_to_read[0].continuation_point = point;
  services::service_history_read(req, f.resp, f.core.space(), f.t.store.get(), other, f.limits);
  CHECK(f.resp.results[0].status_code == status::bad_continuation_point_invalid);
  // Garbage bytes.
  req.nodes_to_read[0].continuation_point = ua::byte_string("forged, twelve bytes");
  CHECK(f.read(req).status_code == status::bad_continuation_point_invalid);
  // The same point for another node.
  auto wrong_node = req;
  wrong_node.nodes_to_read[0].continuation_point = point;
  wrong_node.nodes_to_read[0].node_id = ua::node_id::string(1, "Demo.Dynamic.Sine");
  CHECK(f.read(wrong_node).status_code == status::bad_continuation_point_invalid);
  // Released: it answers nothing, then it is gone.
  req.nodes_to_read[0].continuation_point = point;
  req.release_continuation_points = true;
  CHECK(f.read(req).status_code == status::good);
  CHECK(f.points.size() == 0);
  CHECK(f.read(req).status_code == status::bad_continuation_point_invalid);
  req.release_continuation_points = false;
  CHECK(f.read(req).status_code == status::bad_continuation_point_invalid);

  // A point is used once: the next page comes with a new one.
  req = raw_read(t0, t0 + 1'000, 5);
  const ua::byte_string first = f.read(req).continuation_point;
  req.nodes_to_read[0].continuation_point = first;
  const auto& second = f.read(req);
  CHECK(numbers(second) == iota(5, 10));
  CHECK_FALSE(second.continuation_point == first);
  CHECK(f.read(req).status_code == status::bad_continuation_point_invalid);

  // Bounded: past the capacity, Bad_NoContinuationPoints.
  f.points.clear();
  services::history_continuations two(2);
  req = raw_read(t0, t0 + 1'000, 1);
  for (int i = 0; i < 2; ++i) {
    services::service_history_read(req, f.resp, f.core.space(), f.t.store.get(), two, f.limits);
    CHECK(f.resp.results[0].status_code == status::good);
  }
  services::service_history_read(req, f.resp, f.core.space(), f.t.store.get(), two, f.limits);
  CHECK(f.resp.results[0].status_code == status::bad_no_continuation_points);
}

TEST_CASE("HistoryRead: per-node checks and the details not served", "[history]") {
  fixture f;
  fill(*f.t.store, 3);
  auto req = raw_read(t0, t0 + 100, 0);
  ua::history_read_value_id unknown, not_historized, not_readable, modified;
  unknown.node_id = ua::node_id::string(1, "no.such.node");
  not_historized.node_id = ua::node_id::string(1, "Demo.Dynamic.Sine");
  // A historizing variable without the HistoryRead access bit.
  ua::node_spec spec;
  spec.id = ua::node_id::string(1, "Test.Hidden");
  spec.cls = ua::node_class::variable;
  spec.browse_name = "Hidden";
  spec.historizing = true;
  spec.access_level = spec.user_access_level = 1;
  REQUIRE(f.core.space().add_node(std::move(spec)));
  not_readable.node_id = ua::node_id::string(1, "Test.Hidden");
  req.nodes_to_read.push_back(unknown);
  req.nodes_to_read.push_back(not_historized);
  req.nodes_to_read.push_back(not_readable);
  f.read(req);
  CHECK(f.resp.results[0].status_code == status::good);
  CHECK(f.resp.results[1].status_code == status::bad_node_id_unknown);
  CHECK(f.resp.results[2].status_code == status::bad_history_operation_unsupported);
  CHECK(f.resp.results[3].status_code == status::bad_not_readable);

  // IsReadModified: nothing modified yet is Good_NoData; with returnBounds, Bad_InvalidArgument
  // (Part 11 §6.5.3.1). history_update_service_test.cpp reads modified values.
  auto mod = raw_read(t0, t0 + 100, 0);
  mod.history_read_details.get_if<ua::read_raw_modified_details>()->is_read_modified = true;
  CHECK(f.read(mod).status_code == status::good_no_data);
  CHECK(f.read(mod).history_data.get_if<ua::history_modified_data>());
  mod.history_read_details.get_if<ua::read_raw_modified_details>()->return_bounds = true;
  CHECK(f.read(mod).status_code == status::bad_invalid_argument);

  // No store: no history.
  services::service_history_read(raw_read(t0, t0 + 100, 0), f.resp, f.core.space(), nullptr, f.points, f.limits);
  CHECK(f.resp.results[0].status_code == status::bad_history_operation_unsupported);

  // Event details are not served yet; none at all is invalid.
  auto processed = raw_read(t0, t0 + 100, 0);
  processed.history_read_details = ua::extension_object(ua::read_event_details{});
  services::service_history_read(processed, f.resp, f.core.space(), f.t.store.get(), f.points, f.limits);
  CHECK(f.resp.response_header.service_result == status::bad_history_operation_unsupported);
  processed.history_read_details = ua::extension_object{};
  services::service_history_read(processed, f.resp, f.core.space(), f.t.store.get(), f.points, f.limits);
  CHECK(f.resp.response_header.service_result == status::bad_history_operation_invalid);
  // TimestampsToReturn Neither, and a value out of the enumeration.
  auto neither = raw_read(t0, t0 + 100, 0);
  neither.timestamps_to_return = ua::timestamps_to_return::neither;
  services::service_history_read(neither, f.resp, f.core.space(), f.t.store.get(), f.points, f.limits);
  CHECK(f.resp.response_header.service_result == status::bad_timestamps_to_return_invalid);
  neither.timestamps_to_return = static_cast<ua::timestamps_to_return>(77);
  services::service_history_read(neither, f.resp, f.core.space(), f.t.store.get(), f.points, f.limits);
  CHECK(f.resp.response_header.service_result == status::bad_timestamps_to_return_invalid);
  // Source only: no server timestamps.
  auto source = raw_read(t0, t0 + 100, 0);
  source.timestamps_to_return = ua::timestamps_to_return::source;
  const auto& r = f.read(source);
  for (const auto& v : r.history_data.get_if<ua::history_data>()->data_values) {
    CHECK(v.has_source_timestamp);
    CHECK_FALSE(v.has_server_timestamp);
  }
}

TEST_CASE("HistoryRead: a node whose history the session's roles may not read is Bad_UserAccessDenied",
          "[history][roles]") {
  fixture f;
  fill(*f.t.store, 3);
  // Anonymous may read the counter's value in Demo.Dynamic but not its history (Part 3 §8.55).
  actors::authz::permission_table table;
  actors::authz::permission_rule rule;
  rule.node = "ns=1;s=Demo.Dynamic";
  rule.roles = {{actors::authz::well_known::anonymous, actors::authz::permission::browse | actors::authz::permission::read}};
  rule.where = "test";
  table.set_rules({rule}, {});
  REQUIRE(table.rebuild(f.core.space()).empty());
  actors::authz::role_set anonymous;
  anonymous.add(actors::authz::well_known::anonymous);
  const services::node_access viewer{&table, anonymous, 0};
  services::service_history_read(raw_read(t0, t0 + 100, 0), f.resp, f.core.space(), f.t.store.get(), f.points,
                                 f.limits, viewer);
  CHECK(f.resp.results.at(0).status_code == status::bad_user_access_denied);
  CHECK(numbers(f.resp.results[0]).empty());
  // With ReadHistory added, the same read answers.
  rule.roles[0].second |= actors::authz::permission::read_history;
  table.set_rules({rule}, {});
  REQUIRE(table.rebuild(f.core.space()).empty());
  CHECK(numbers(f.read(raw_read(t0, t0 + 100, 0))) == std::vector<std::int64_t>{0, 1, 2});
  services::service_history_read(raw_read(t0, t0 + 100, 0), f.resp, f.core.space(), f.t.store.get(), f.points,
                                 f.limits, viewer);
  CHECK(numbers(f.resp.results.at(0)) == std::vector<std::int64_t>{0, 1, 2});
}

TEST_CASE("server_core: historizing values are recorded and HistoryRead reads them back", "[history]") {
  auto core = test::make_core();
  temp_store t;
  std::vector<history::record> recorded;
  std::size_t batches = 0;
  core.set_history(t.store, [&](std::vector<history::record>&& b) {
    ++batches;
    for (auto& r : b) recorded.push_back(std::move(r));
    return true;
  });
  const ua::node_index n = core.space().find(counter);
  REQUIRE(core.space().set_historizing(n, true) == status::good);
  const ua::node_index sine = core.space().find(ua::node_id::string(1, "Demo.Dynamic.Sine"));
  std::vector<value_update> values;
  for (std::uint32_t i = 0; i < 5; ++i) {
    value_update u;
    u.node.index = n;
    u.value = ua::variant(i);
    u.source_timestamp.ticks = t0 + 10 * i;
    values.push_back(u);
    value_update s;
    s.node.index = sine;  // not historized: not recorded
    s.value = ua::variant(0.5);
    values.push_back(s);
  }
  core.apply_values(values, test::at(1));
  CHECK(recorded.empty());  // collected until the host flushes
  core.flush_history();
  REQUIRE(recorded.size() == 5);
  CHECK(batches == 1);
  CHECK(recorded[0].node == "ns=1;s=Demo.Dynamic.Counter");
  t.store->append(recorded);

  // Through the service's row, in a session.
  ua::byte_buffer out;
  ua::extension_object response;
  std::uint32_t handle = 0;
  ua::node_id token;
  const auto call = [&](auto req) -> ua::extension_object& {
    req.request_header.request_handle = ++handle;
    req.request_header.authentication_token = token;
    out.clear();
    core.handle(3, req.request_header, ua::extension_object(req), test::at(2), out);
    REQUIRE(ua::decode_message(out.bytes(), response) == status::good);
    return response;
  };
  ua::create_session_request create;
  create.requested_session_timeout = 60'000;
  token = call(create).get_if<ua::create_session_response>()->authentication_token;
  ua::activate_session_request activate;
  activate.user_identity_token = ua::extension_object(ua::anonymous_identity_token{"anonymous"});
  REQUIRE(call(activate).get_if<ua::activate_session_response>());
  const auto* answered = call(raw_read(t0, t0 + 1'000, 0)).get_if<ua::history_read_response>();
  REQUIRE(answered);
  REQUIRE(answered->results.size() == 1);
  CHECK(numbers(answered->results[0]) == std::vector<std::int64_t>{0, 1, 2, 3, 4});
}

TEST_CASE("HistoryRead: one response holds at most max_values_per_request values", "[history]") {
  fixture f;
  f.limits.max_values_per_node = 1'000;
  f.limits.max_values_per_request = 1'500;
  fill(*f.t.store, 2'000);
  auto req = raw_read(t0, t0 + 1'000'000, 0);
  req.nodes_to_read.push_back(req.nodes_to_read[0]);
  req.nodes_to_read.push_back(req.nodes_to_read[0]);
  f.read(req);
  CHECK(numbers(f.resp.results[0]).size() == 1'000);
  CHECK(numbers(f.resp.results[1]).size() == 500);
  CHECK(numbers(f.resp.results[2]).empty());  // the response is full: an empty page, and a point
  for (const auto& r : f.resp.results) {
    CHECK(r.status_code == status::good);
    CHECK_FALSE(r.continuation_point.is_null());
  }
  // The third node's point resumes from its start.
  auto next = raw_read(t0, t0 + 1'000'000, 0);
  next.nodes_to_read[0].continuation_point = f.resp.results[2].continuation_point;
  CHECK(numbers(f.read(next)) == iota(0, 1'000));
}

TEST_CASE("server_core: with a reader, HistoryRead is answered when its job comes back", "[history]") {
  auto core = test::make_core();
  temp_store t;
  fill(*t.store, 30);
  std::vector<std::shared_ptr<services::history_read_job>> jobs;
  core.set_history(t.store, [](std::vector<history::record>&&) { return true; },
                   [&](std::shared_ptr<services::history_read_job> j) { jobs.push_back(std::move(j)); });
  REQUIRE(core.space().set_historizing(core.space().find(counter), true) == status::good);

  ua::byte_buffer out;
  ua::extension_object response;
  std::uint32_t handle = 0;
  ua::node_id token;
  const auto send = [&](auto req) {
    req.request_header.request_handle = ++handle;
    req.request_header.authentication_token = token;
    out.clear();
    core.handle(3, 77, req.request_header, ua::extension_object(req), test::at(2), out);
  };
  ua::create_session_request create;
  create.requested_session_timeout = 60'000;
  send(create);
  REQUIRE(ua::decode_message(out.bytes(), response) == status::good);
  token = response.get_if<ua::create_session_response>()->authentication_token;
  ua::activate_session_request activate;
  activate.user_identity_token = ua::extension_object(ua::anonymous_identity_token{"anonymous"});
  send(activate);

  send(raw_read(t0, t0 + 1'000, 10));
  CHECK(out.size() == 0);  // answered later
  REQUIRE(jobs.size() == 1);
  services::run_history_read(*jobs[0]);  // what the reader does on its thread
  core.complete_history_read(*jobs[0], test::at(3));
  REQUIRE(core.history_completed().size() == 1);
  const auto& d = core.history_completed()[0];
  CHECK(d.channel_id == 3);
  CHECK(d.request_id == 77);
  REQUIRE(ua::decode_message(d.message.bytes(), response) == status::good);
  const auto* answered = response.get_if<ua::history_read_response>();
  REQUIRE(answered);
  CHECK(answered->response_header.request_handle == handle);
  CHECK(numbers(answered->results[0]) == iota(0, 10));
  const ua::byte_string point = answered->results[0].continuation_point;
  REQUIRE_FALSE(point.is_null());  // the session's now
  core.clear_history_completed();

  // The next page with that point.
  auto next = raw_read(t0, t0 + 1'000, 10);
  next.nodes_to_read[0].continuation_point = point;
  send(next);
  REQUIRE(jobs.size() == 2);
  services::run_history_read(*jobs[1]);
  core.complete_history_read(*jobs[1], test::at(4));
  REQUIRE(ua::decode_message(core.history_completed()[0].message.bytes(), response) == status::good);
  CHECK(numbers(response.get_if<ua::history_read_response>()->results[0]) == iota(10, 20));
  core.clear_history_completed();

  // Past the reads in flight: Bad_ServerTooBusy at once.
  for (std::size_t i = 0; i < actors::server_core::max_history_reads_in_flight; ++i) send(raw_read(t0, t0 + 1'000, 1));
  send(raw_read(t0, t0 + 1'000, 1));
  REQUIRE(ua::decode_message(out.bytes(), response) == status::good);
  REQUIRE(response.get_if<ua::service_fault>());
  CHECK(response.get_if<ua::service_fault>()->response_header.service_result == status::bad_server_too_busy);
}

TEST_CASE("server_core: HistoryServerCapabilities say raw reads are served once history is on", "[history]") {
  auto core = test::make_core();
  temp_store t;
  const auto value_of = [&](std::uint32_t id) {
    ua::data_value v;
    core.space().read(ua::node_id(0, id), ua::attribute_id::value, v);
    return v.value;
  };
  core.set_history(t.store, [](std::vector<history::record>&&) { return true; });
  CHECK(value_of(11193) == ua::variant(true));                    // AccessHistoryDataCapability
  CHECK(value_of(11273) == ua::variant(std::uint32_t{10'000}));   // MaxReturnDataValues
  CHECK(value_of(11242) == ua::variant(false));                   // AccessHistoryEventsCapability
  CHECK(value_of(11196) == ua::variant(true));                    // InsertDataCapability (HistoryUpdate)
  CHECK(value_of(11200) == ua::variant(true));                    // DeleteAtTimeCapability
  CHECK(value_of(11281) == ua::variant(false));                   // InsertEventCapability
  REQUIRE(core.set_event_history({ua::node_id(0, 2253)}).empty());
  CHECK(value_of(11242) == ua::variant(true));                    // AccessHistoryEventsCapability
  CHECK(value_of(11281) == ua::variant(true));                    // InsertEventCapability
  CHECK(value_of(11502) == ua::variant(true));                    // DeleteEventCapability
  CHECK(value_of(11275) == ua::variant(false));                   // InsertAnnotationCapability
  core.set_history(nullptr, {});
  CHECK(value_of(11193) == ua::variant(false));
}
