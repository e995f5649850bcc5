// Event history through server_core (Part 11 §5.2.x, §6.5.2 ReadEventDetails): the events that
// reach a notifier with event history recorded into a SQLite store in a temp folder, read back
// through the request's EventFilter (select and where, the live event path's compiler), paged with
// numValuesPerNode and continuation points; the per-node codes.
#include <catch2/catch.hpp>

#include "engine/server/access/permission_table.hpp"
#include "engine/server/server_core.hpp"
#include "protocol/message.hpp"
#include "tests/engine/server/core_fixture.hpp"
#include "tests/history/temp_store.hpp"

namespace engine_server_history_events_test {

using namespace uactor;
using test::temp_store;
namespace status = ua::status;

const ua::node_id server_object(0, 2253);

ua::extension_object severity_filter(std::int32_t min_severity) {
  ua::event_filter f;
  for (const char* n : {"EventType", "Severity", "Message"}) f.select_clauses.push_back(test::event_field(2041, {n}));
  if (min_severity > 0) {
    ua::content_filter_element e;
    e.filter_operator = ua::filter_operator::greater_than_or_equal;
    e.filter_operands.push_back(ua::extension_object(test::event_field(2041, {"Severity"})));
    ua::literal_operand l;
    l.value = min_severity;
    e.filter_operands.push_back(ua::extension_object(l));
    f.where_clause.elements.push_back(std::move(e));
  }
  return ua::extension_object(std::move(f));
}

ua::history_read_request event_read(std::uint32_t num, ua::extension_object filter, const ua::node_id& node = server_object) {
  ua::read_event_details d;
  d.start_time = test::at(0).utc;
  d.end_time = test::at(100'000).utc;
  d.num_values_per_node = num;
  if (const auto* f = filter.get_if<ua::event_filter>()) d.filter = *f;
  ua::history_read_request req;
  req.history_read_details = ua::extension_object(d);
  req.timestamps_to_return = ua::timestamps_to_return::both;
  ua::history_read_value_id id;
  id.node_id = node;
  req.nodes_to_read.push_back(id);
  return req;
}

// The Severity (the second select clause) of each event of a result.
std::vector<std::uint16_t> severities(const ua::history_read_result& r) {
  std::vector<std::uint16_t> out;
  const auto* h = r.history_data.get_if<ua::history_event>();
  if (!h) return out;
  for (const auto& e : h->events) {
    REQUIRE(e.event_fields.size() == 3);
    const auto* s = e.event_fields[1].get_if<std::uint16_t>();
    out.push_back(s ? *s : 0);
  }
  return out;
}

struct events_fixture {
  actors::server_core core = test::make_core();
  temp_store t;

  events_fixture() {
    // A sink that writes at once: what the historian does later, on its own thread.
    core.set_history(t.store, [this](std::vector<history::record>&& b) {
      t.store->append(b);
      return true;
    });
    const auto unknown = core.set_event_history({server_object, ua::node_id::string(1, "no.such")});
    REQUIRE(unknown == std::vector<ua::node_id>{ua::node_id::string(1, "no.such")});
    for (int i = 1; i <= 5; ++i) {
      event e;
      e.severity = static_cast<std::uint16_t>(100 * i);
      e.message = ua::localized_text{ua::ua_string("en"), ua::ua_string("event " + std::to_string(i))};
      REQUIRE(core.raise_event(e, test::at(10 * i)) == status::good);
    }
    core.flush_history();
  }
};

TEST_CASE("history events: a notifier's events are recorded and read through the EventFilter", "[history][events]") {
  events_fixture f;
  CHECK((f.core.space().at(f.core.space().find(server_object)).event_notifier & 0x04) != 0);  // HistoryRead
  test::core_session s(f.core, 3);
  const auto& all = s.call_as<ua::history_read_response>(event_read(0, severity_filter(0)));
  REQUIRE(all.results.size() == 1);
  CHECK(all.results[0].status_code == status::good);
  CHECK(severities(all.results[0]) == std::vector<std::uint16_t>{100, 200, 300, 400, 500});
  const auto& first = all.results[0].history_data.get_if<ua::history_event>()->events[0];
  CHECK(first.event_fields[0] == ua::variant(ua::node_id(0, 2041)));
  CHECK(first.event_fields[2] == ua::variant(ua::localized_text{ua::ua_string("en"), ua::ua_string("event 1")}));

  // The where clause keeps what it keeps.
  CHECK(severities(s.call_as<ua::history_read_response>(event_read(0, severity_filter(300))).results.at(0)) ==
        std::vector<std::uint16_t>{300, 400, 500});
  const auto& none = s.call_as<ua::history_read_response>(event_read(0, severity_filter(900)));
  CHECK(none.results.at(0).status_code == status::good_no_data);
  CHECK(severities(none.results[0]).empty());
}

TEST_CASE("history events: numValuesPerNode pages through continuation points", "[history][events]") {
  events_fixture f;
  test::core_session s(f.core, 3);
  auto req = event_read(2, severity_filter(0));
  std::vector<std::uint16_t> seen;
  int pages = 0;
  for (;;) {
    const auto& r = s.call_as<ua::history_read_response>(req).results.at(0);
    REQUIRE(r.status_code.is_good());
    for (auto v : severities(r)) seen.push_back(v);
    ++pages;
    if (r.continuation_point.is_null() || r.continuation_point.size() == 0) break;
    req.nodes_to_read[0].continuation_point = r.continuation_point;
    REQUIRE(pages < 10);
  }
  CHECK(seen == std::vector<std::uint16_t>{100, 200, 300, 400, 500});
  CHECK(pages == 3);
  // A raw read's point is not an event read's, nor the other way.
  auto paged = event_read(2, severity_filter(0));
  const auto point = s.call_as<ua::history_read_response>(paged).results.at(0).continuation_point;
  ua::read_raw_modified_details raw;
  raw.start_time = test::at(0).utc;
  raw.end_time = test::at(100'000).utc;
  ua::history_read_request mixed = paged;
  mixed.history_read_details = ua::extension_object(raw);
  mixed.nodes_to_read[0].continuation_point = point;
  CHECK(s.call_as<ua::history_read_response>(mixed).results.at(0).status_code == status::bad_continuation_point_invalid);
}

TEST_CASE("history events: nodes without event history and invalid filters get their codes", "[history][events]") {
  events_fixture f;
  test::core_session s(f.core, 3);
  // A variable, an Object without event history, an unknown node.
  auto req = event_read(0, severity_filter(0), ua::node_id::string(1, "Demo.Dynamic.Counter"));
  ua::history_read_value_id objects, unknown;
  objects.node_id = ua::node_id(0, 85);
  unknown.node_id = ua::node_id::string(1, "no.such");
  req.nodes_to_read.push_back(objects);
  req.nodes_to_read.push_back(unknown);
  const auto& r = s.call_as<ua::history_read_response>(req);
  REQUIRE(r.results.size() == 3);
  CHECK(r.results[0].status_code == status::bad_history_operation_unsupported);
  CHECK(r.results[1].status_code == status::bad_history_operation_unsupported);
  CHECK(r.results[2].status_code == status::bad_node_id_unknown);
  // No select clause: the filter is invalid (Part 4 §7.22.3).
  CHECK(s.call_as<ua::history_read_response>(event_read(0, ua::extension_object(ua::event_filter{}))).results.at(0).status_code ==
        status::bad_event_filter_invalid);
  // Without a time domain (fewer than two of start, end, count).
  auto open = event_read(0, severity_filter(0));
  open.history_read_details.get_if<ua::read_event_details>()->end_time = {};
  CHECK(s.call_as<ua::history_read_response>(open).results.at(0).status_code == status::bad_invalid_timestamp_argument);
}

// Part 3 §8.55 ReceiveEvents on a stored event's SourceNode, as a live event item checks it
// (roles_events_test.cpp): the anonymous role receives area A's events, only looks at area B.
TEST_CASE("history events: a session reads only the stored events of sources it may receive events from",
          "[history][events][roles]") {
  namespace authz = actors::authz;
  namespace perm = authz::permission;
  const ua::node_id area_a = ua::node_id::string(1, "Demo.Static");
  const ua::node_id area_b = ua::node_id::string(1, "Demo.Dynamic");
  events_fixture f;  // five events of the Server object itself (no rule: everyone receives them)
  for (int i = 0; i < 4; ++i) {
    event e;
    e.source = i % 2 == 0 ? area_a : area_b;
    e.severity = static_cast<std::uint16_t>(600 + 100 * i);  // 600, 800 from A; 700, 900 from B
    REQUIRE(f.core.raise_event(e, test::at(100 + 10 * i)) == status::good);
  }
  f.core.flush_history();
  const auto rule = [](const ua::node_id& node, std::uint32_t bits) {
    authz::permission_rule r;
    r.node = node.to_string();
    r.roles = {{authz::well_known::anonymous, bits}};
    r.where = "test";
    return r;
  };
  test::core_session s(f.core, 3);
  // Without rules: all nine.
  CHECK(severities(s.call_as<ua::history_read_response>(event_read(0, severity_filter(0))).results.at(0)) ==
        std::vector<std::uint16_t>{100, 200, 300, 400, 500, 600, 700, 800, 900});
  REQUIRE(f.core.set_access(nullptr, {rule(area_a, perm::browse | perm::read | perm::receive_events),
                                      rule(area_b, perm::browse | perm::read)}).empty());
  test::core_session limited(f.core, 5);  // roles are taken at activation
  CHECK(severities(limited.call_as<ua::history_read_response>(event_read(0, severity_filter(0))).results.at(0)) ==
        std::vector<std::uint16_t>{100, 200, 300, 400, 500, 600, 800});
  // Paged: the skipped events still count against numValuesPerNode, the pages stay in order.
  auto req = event_read(3, severity_filter(600));
  std::vector<std::uint16_t> seen;
  for (int pages = 0; pages < 10; ++pages) {
    const auto& r = limited.call_as<ua::history_read_response>(req).results.at(0);
    REQUIRE(r.status_code.is_good());
    for (auto v : severities(r)) seen.push_back(v);
    if (r.continuation_point.is_null() || r.continuation_point.size() == 0) break;
    req.nodes_to_read[0].continuation_point = r.continuation_point;
  }
  CHECK(seen == std::vector<std::uint16_t>{600, 800});
}

}  // namespace engine_server_history_events_test
