// A `uactor` server of the embedding API recording one variable into the store a history_plan
// names, and the checks both stores pass through it (tests/history/history_runtime_test.cpp for
// SQLite, postgres_store_test.cpp for PostgreSQL): the collection settings of the plan decide what
// is stored, and our client pages processed and at-time reads through continuation points.
#pragma once

#include <catch2/catch.hpp>

#include <chrono>
#include <thread>
#include <vector>

#include "uactor/runtime.hpp"
#include "uactor/ua/node_ids.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor::test {

constexpr std::int64_t rh_second = ua::date_time::ticks_per_second;
// 2026-06-01T00:00:00Z: the recording's first source time.
constexpr std::int64_t rh_start = ua::date_time::unix_epoch_ticks + 1'780'272'000LL * rh_second;

struct recorded_server {
  server* srv = nullptr;
  std::uint16_t ns = 0;
  value_handle level;
  node_id id;
};

inline ua::expected<recorded_server> start_recording(runtime& rt, const history_plan& history) {
  auto plan = default_server_plan();
  plan.listen_address = "127.0.0.1";
  plan.port = 0;
  plan.security = {"none"};
  plan.history = history;
  plan.history.historize.clear();
  plan.history.events.clear();
  auto s = rt.start_server(plan);
  if (!s) return s.error();
  recorded_server m;
  m.srv = *s;
  m.ns = m.srv->register_namespace("urn:test:recorded");
  variable_node v;
  v.id = node_id::string(m.ns, "Level");
  v.parent = node_id(0, ua::ids::objects_folder);
  v.browse_name = qualified_name{m.ns, ua::ua_string("Level")};
  v.data_type = node_id(0, ua::ids::double_);
  v.access_level = access::read | access::history_read;
  v.historizing = true;
  v.value.set_value(-1.0);
  REQUIRE(m.srv->apply(node_change(std::move(v))) == ua::status::good);
  auto h = m.srv->resolve(node_id::string(m.ns, "Level"));
  REQUIRE(h.has_value());
  m.level = *h;
  m.id = node_id::string(m.ns, "Level");
  return m;
}

inline ua::history_read_request rh_request(const node_id& id, ua::extension_object details) {
  ua::history_read_request req;
  req.history_read_details = std::move(details);
  req.timestamps_to_return = ua::timestamps_to_return::source;
  req.nodes_to_read.resize(1);
  req.nodes_to_read[0].node_id = id;
  return req;
}

// Every page of `req`, following the continuation points; each page Good.
inline std::vector<ua::data_value> rh_pages(client& c, ua::history_read_request req, int& pages) {
  std::vector<ua::data_value> out;
  for (pages = 1; pages < 100; ++pages) {
    auto r = c.history_read_sync(req);
    REQUIRE(r.has_value());
    REQUIRE(r->results.size() == 1);
    const auto& result = r->results[0];
    INFO(result.status_code.to_string());
    REQUIRE(result.status_code.is_good());
    if (const auto* data = result.history_data.get_if<ua::history_data>())
      for (const auto& v : data->data_values) out.push_back(v);
    if (result.continuation_point.empty()) return out;
    req.nodes_to_read[0].continuation_point = result.continuation_point;
  }
  FAIL("more than 100 pages");
  return out;
}

// The plan's defaults keep out changes under 2.5: of 0 .. 59 (a second apart) 0, 3, ..., 57 are
// stored. A Count over the minute in 5 ms intervals (12,000: more than the server's 10,000 per
// node and response) comes in two pages and counts those 20; 10,001 at-time reads come in two
// pages; a released point is gone.
inline void check_collection_and_paging(runtime& rt, history_plan history) {
  using namespace std::chrono_literals;
  history.defaults.exception_deviation = 2.5;
  history.defaults.min_time_interval_ms = 500;
  auto m = start_recording(rt, history);
  REQUIRE(m.has_value());
  for (int i = 0; i < 60; ++i) {
    value_update u{m->level, variant(static_cast<double>(i)), {}, date_time{rh_start + i * rh_second}};
    REQUIRE(m->srv->write_values(std::span(&u, 1)) == ua::status::good);
  }
  client_options o;
  o.endpoint_url = "opc.tcp://127.0.0.1:" + std::to_string(m->srv->port());
  o.request_timeout = 20s;
  auto c = rt.connect(o);
  REQUIRE(c.has_value());

  ua::read_raw_modified_details raw;
  raw.start_time.ticks = rh_start;
  raw.end_time.ticks = rh_start + 60 * rh_second;
  std::vector<double> stored;
  int pages = 0;
  for (int i = 0; i < 60 && stored.size() < 20; ++i) {
    std::this_thread::sleep_for(250ms);
    stored.clear();
    for (const auto& v : rh_pages(*c, rh_request(m->id, ua::extension_object(raw)), pages))
      stored.push_back(*v.value.get_if<double>());
  }
  std::vector<double> expected;
  for (int i = 0; i < 60; i += 3) expected.push_back(i);
  CHECK(stored == expected);

  ua::read_processed_details processed;
  processed.start_time.ticks = rh_start;
  processed.end_time.ticks = rh_start + 60 * rh_second;
  processed.processing_interval = 5;
  processed.aggregate_type.push_back(node_id(0, ua::ids::aggregate_function_count));
  processed.aggregate_configuration.use_server_capabilities_defaults = true;
  const auto counts = rh_pages(*c, rh_request(m->id, ua::extension_object(processed)), pages);
  CHECK(pages == 2);
  REQUIRE(counts.size() == 12'000);
  double total = 0;
  for (const auto& v : counts) {
    if (const auto* n = v.value.get_if<std::int32_t>()) total += *n;
    else if (const auto* u = v.value.get_if<std::uint32_t>()) total += *u;
    else if (const auto* d = v.value.get_if<double>()) total += *d;
  }
  CHECK(total == 20);
  CHECK(counts[10'000].source_timestamp.ticks == rh_start + 10'000 * 5 * 10'000);  // the second page goes on

  ua::read_at_time_details at;
  for (int k = 0; k <= 10'000; ++k) at.req_times.push_back(date_time{rh_start + k * 5 * 10'000});
  const auto values = rh_pages(*c, rh_request(m->id, ua::extension_object(at)), pages);
  CHECK(pages == 2);
  REQUIRE(values.size() == 10'001);
  CHECK(*values[0].value.get_if<double>() == 0);
  CHECK(values[10'000].source_timestamp.ticks == rh_start + 10'000 * 5 * 10'000);

  // Released: the next request with it is Bad_ContinuationPointInvalid.
  auto first = c->history_read_sync(rh_request(m->id, ua::extension_object(processed)));
  REQUIRE(first.has_value());
  const auto point = first->results.at(0).continuation_point;
  REQUIRE_FALSE(point.empty());
  auto release = rh_request(m->id, ua::extension_object(processed));
  release.release_continuation_points = true;
  release.nodes_to_read[0].continuation_point = point;
  auto released = c->history_read_sync(release);
  REQUIRE(released.has_value());
  CHECK(released->results.at(0).status_code == ua::status::good);
  auto again = rh_request(m->id, ua::extension_object(processed));
  again.nodes_to_read[0].continuation_point = point;
  auto stale = c->history_read_sync(again);
  REQUIRE(stale.has_value());
  CHECK(stale->results.at(0).status_code == ua::status::bad_continuation_point_invalid);
  m->srv->stop();
}

}  // namespace uactor::test
