// HistoryUpdate for data (Part 4 §5.10.5, Part 11 §6.9) over a SQLite store in a temp folder: each
// update type and its per-value statuses, the deletes, the modified values read back with
// IsReadModified, the per-node checks (access bits, roles), hostile requests; then through
// server_core with an updater: the answer when the job comes back, and its audit event.
#include <catch2/catch.hpp>

#include "engine/server/access/permission_table.hpp"
#include "engine/server/server_core.hpp"
#include "engine/server/services/history_read.hpp"
#include "engine/server/services/history_update.hpp"
#include "history/sqlite_store.hpp"
#include "protocol/message.hpp"
#include "tests/engine/server/core_fixture.hpp"
#include "tests/history/temp_store.hpp"

namespace engine_server_history_update_service_test {

using namespace uactor;
using test::temp_store;
namespace status = ua::status;

const ua::node_id counter = ua::node_id::string(1, "Demo.Dynamic.Counter");
constexpr std::int64_t t0 = 1'000'000;  // the first stored value; one every 10 ticks

ua::data_value number_at(std::uint32_t v, std::int64_t ticks) {
  ua::data_value d;
  d.set_value(v);
  d.source_timestamp.ticks = ticks;
  d.has_source_timestamp = true;
  return d;
}

// Values 0, 1, ... of the counter at t0, t0 + 10, ...
void fill_counter(history::history_store& store, int count) {
  std::vector<history::record> batch;
  for (int i = 0; i < count; ++i) batch.push_back({counter.to_string(), number_at(static_cast<std::uint32_t>(i), t0 + 10 * i)});
  store.append(batch);
}

ua::history_update_request updating(ua::perform_update_type how, std::vector<ua::data_value> values,
                                    const ua::node_id& node = counter) {
  ua::update_data_details d;
  d.node_id = node;
  d.perform_insert_replace = how;
  d.update_values = std::move(values);
  ua::history_update_request req;
  req.history_update_details.push_back(ua::extension_object(d));
  return req;
}

ua::history_update_request deleting_range(std::int64_t start, std::int64_t end, bool modified = false) {
  ua::delete_raw_modified_details d;
  d.node_id = counter;
  d.is_delete_modified = modified;
  d.start_time.ticks = start;
  d.end_time.ticks = end;
  ua::history_update_request req;
  req.history_update_details.push_back(ua::extension_object(d));
  return req;
}

ua::history_read_request reading(bool modified) {
  ua::read_raw_modified_details d;
  d.start_time.ticks = t0 - 1000;
  d.end_time.ticks = t0 + 100'000;
  d.is_read_modified = modified;
  ua::history_read_request req;
  req.history_read_details = ua::extension_object(d);
  req.timestamps_to_return = ua::timestamps_to_return::both;
  ua::history_read_value_id id;
  id.node_id = counter;
  req.nodes_to_read.push_back(id);
  return req;
}

struct update_fixture {
  actors::server_core core = test::make_core();
  temp_store t;
  services::history_continuations points;
  services::history_limits limits;
  ua::history_update_response resp;
  ua::history_read_response read_resp;
  history::change who{42, 0, "alice"};

  update_fixture() {
    const auto n = core.space().find(counter);
    REQUIRE(core.space().set_historizing(n, true) == status::good);
    REQUIRE(core.space().set_history_writable(n, true) == status::good);
    fill_counter(*t.store, 5);  // 0..4 at t0 .. t0 + 40
  }
  const ua::history_update_result& update(const ua::history_update_request& req,
                                          const services::node_access& access = {}) {
    services::service_history_update(req, resp, core.space(), t.store.get(), who, limits, access);
    REQUIRE(resp.response_header.service_result == status::good);
    REQUIRE(resp.results.size() == req.history_update_details.size());
    return resp.results[0];
  }
  // (value, source ticks) of the raw or modified history.
  std::vector<std::pair<std::uint32_t, std::int64_t>> history(bool modified) {
    services::service_history_read(reading(modified), read_resp, core.space(), t.store.get(), points, limits);
    std::vector<std::pair<std::uint32_t, std::int64_t>> out;
    const auto& r = read_resp.results.at(0);
    const ua::ua_array<ua::data_value>* values = nullptr;
    if (const auto* d = r.history_data.get_if<ua::history_data>()) values = &d->data_values;
    if (const auto* m = r.history_data.get_if<ua::history_modified_data>()) values = &m->data_values;
    if (!values) return out;
    for (const auto& v : *values) out.emplace_back(*v.value.get_if<std::uint32_t>(), v.source_timestamp.ticks);
    return out;
  }
};

using rows = std::vector<std::pair<std::uint32_t, std::int64_t>>;
using statuses = std::vector<ua::status_code>;

statuses results_of(const ua::history_update_result& r) { return {r.operation_results.begin(), r.operation_results.end()}; }

TEST_CASE("HistoryUpdate: Insert, Replace and Update answer each value as Part 11 names it", "[history]") {
  update_fixture f;
  auto r = f.update(updating(ua::perform_update_type::insert, {number_at(100, t0 + 5), number_at(101, t0 + 10)}));
  CHECK(r.status_code == status::good);
  CHECK(results_of(r) == statuses{status::good_entry_inserted, status::bad_entry_exists});
  r = f.update(updating(ua::perform_update_type::replace, {number_at(200, t0 + 20), number_at(201, t0 + 25)}));
  CHECK(results_of(r) == statuses{status::good_entry_replaced, status::bad_no_entry_exists});
  r = f.update(updating(ua::perform_update_type::update, {number_at(300, t0 + 30), number_at(301, t0 + 35)}));
  CHECK(results_of(r) == statuses{status::good_entry_replaced, status::good_entry_inserted});
  CHECK(f.history(false) == rows{{0, t0}, {100, t0 + 5}, {1, t0 + 10}, {200, t0 + 20}, {300, t0 + 30}, {301, t0 + 35},
                                 {4, t0 + 40}});

  // IsReadModified: the inserted values as they are, the replaced ones as they were, with who and when.
  CHECK(f.history(true) == rows{{100, t0 + 5}, {2, t0 + 20}, {3, t0 + 30}, {301, t0 + 35}});
  const auto* m = f.read_resp.results[0].history_data.get_if<ua::history_modified_data>();
  REQUIRE(m);
  REQUIRE(m->modification_infos.size() == 4);
  CHECK(m->modification_infos[0].update_type == ua::history_update_type::insert);
  CHECK(m->modification_infos[1].update_type == ua::history_update_type::replace);
  CHECK(m->modification_infos[2].update_type == ua::history_update_type::update);
  CHECK(m->modification_infos[1].user_name.view() == "alice");
  CHECK(m->modification_infos[1].modification_time.ticks == 42);

  // A value without a SourceTimestamp has no place in history; the others of the request go in.
  ua::data_value no_time;
  no_time.set_value(std::uint32_t{7});
  r = f.update(updating(ua::perform_update_type::insert, {no_time, number_at(400, t0 + 45)}));
  CHECK(results_of(r) == statuses{status::bad_invalid_timestamp, status::good_entry_inserted});
  // PerformUpdateType Remove is not an update (Part 11 §6.9.2).
  CHECK(f.update(updating(ua::perform_update_type::remove, {number_at(1, t0)})).status_code == status::bad_invalid_argument);
  CHECK(f.update(updating(static_cast<ua::perform_update_type>(99), {number_at(1, t0)})).status_code ==
        status::bad_invalid_argument);
}

TEST_CASE("HistoryUpdate: DeleteRawModified and DeleteAtTime remove values and keep them as modified", "[history]") {
  update_fixture f;
  // [t0 + 10, t0 + 30): 1 and 2.
  CHECK(f.update(deleting_range(t0 + 10, t0 + 30)).status_code == status::good);
  CHECK(f.history(false) == rows{{0, t0}, {3, t0 + 30}, {4, t0 + 40}});
  CHECK(f.update(deleting_range(t0 + 10, t0 + 30)).status_code == status::bad_no_data);
  // Equal times: the value at that time.
  CHECK(f.update(deleting_range(t0 + 30, t0 + 30)).status_code == status::good);
  CHECK(f.history(false) == rows{{0, t0}, {4, t0 + 40}});
  // Reversed or missing ends.
  CHECK(f.update(deleting_range(t0 + 30, t0 + 10)).status_code == status::bad_invalid_timestamp_argument);
  CHECK(f.update(deleting_range(0, t0 + 10)).status_code == status::bad_invalid_timestamp_argument);

  ua::delete_at_time_details at;
  at.node_id = counter;
  at.req_times = {ua::date_time{t0}, ua::date_time{t0 + 1}};
  ua::history_update_request req;
  req.history_update_details.push_back(ua::extension_object(at));
  CHECK(results_of(f.update(req)) == statuses{status::good, status::bad_no_entry_exists});
  CHECK(f.history(false) == rows{{4, t0 + 40}});
  CHECK(f.history(true) == rows{{0, t0}, {1, t0 + 10}, {2, t0 + 20}, {3, t0 + 30}});
  const auto* m = f.read_resp.results[0].history_data.get_if<ua::history_modified_data>();
  REQUIRE(m);
  for (const auto& info : m->modification_infos) CHECK(info.update_type == ua::history_update_type::delete_);

  // IsDeleteModified removes the modified values, not the raw ones.
  CHECK(f.update(deleting_range(t0, t0 + 25, true)).status_code == status::good);
  CHECK(f.history(true) == rows{{3, t0 + 30}});
  CHECK(f.history(false) == rows{{4, t0 + 40}});
  CHECK(f.update(deleting_range(t0, t0 + 25, true)).status_code == status::bad_no_data);
}

TEST_CASE("HistoryUpdate: the node's HistoryWrite bit and the session's roles decide", "[history][roles]") {
  update_fixture f;
  const auto insert = updating(ua::perform_update_type::insert, {number_at(9, t0 + 1)});
  // Not historizing, unknown, no store.
  CHECK(f.update(updating(ua::perform_update_type::insert, {number_at(9, t0)}, ua::node_id::string(1, "Demo.Dynamic.Sine")))
            .status_code == status::bad_history_operation_unsupported);
  CHECK(f.update(updating(ua::perform_update_type::insert, {number_at(9, t0)}, ua::node_id::string(1, "no.such")))
            .status_code == status::bad_node_id_unknown);
  services::service_history_update(insert, f.resp, f.core.space(), nullptr, f.who, f.limits);
  CHECK(f.resp.results.at(0).status_code == status::bad_history_operation_unsupported);

  // Roles (Part 3 §8.55): Insert needs InsertHistory, Replace ModifyHistory, Update both, deletes DeleteHistory.
  namespace perm = actors::authz::permission;
  actors::authz::permission_table table;
  actors::authz::permission_rule rule;
  rule.node = "ns=1;s=Demo.Dynamic";
  rule.roles = {{actors::authz::well_known::anonymous, perm::browse | perm::read | perm::read_history | perm::insert_history}};
  rule.where = "test";
  table.set_rules({rule}, {});
  REQUIRE(table.rebuild(f.core.space()).empty());
  actors::authz::role_set anonymous;
  anonymous.add(actors::authz::well_known::anonymous);
  const services::node_access inserter{&table, anonymous, 0};
  CHECK(results_of(f.update(insert, inserter)) == statuses{status::good_entry_inserted});
  CHECK(f.update(updating(ua::perform_update_type::replace, {number_at(9, t0)}), inserter).status_code ==
        status::bad_user_access_denied);
  CHECK(f.update(updating(ua::perform_update_type::update, {number_at(9, t0)}), inserter).status_code ==
        status::bad_user_access_denied);
  CHECK(f.update(deleting_range(t0, t0 + 10), inserter).status_code == status::bad_user_access_denied);
  CHECK(f.history(false).size() == 6);  // nothing refused went in

  // AccessLevel without HistoryWrite: Bad_NotWritable, whoever asks.
  REQUIRE(f.core.space().set_history_writable(f.core.space().find(counter), false) == status::good);
  CHECK(f.update(insert).status_code == status::bad_not_writable);
  CHECK(f.update(deleting_range(t0, t0 + 10)).status_code == status::bad_not_writable);
}

TEST_CASE("HistoryUpdate: hostile requests are answered, not crashed on", "[history]") {
  update_fixture f;
  ua::history_update_request empty;
  services::service_history_update(empty, f.resp, f.core.space(), f.t.store.get(), f.who, f.limits);
  CHECK(f.resp.response_header.service_result == status::bad_nothing_to_do);
  // More details than the limit.
  f.limits.max_nodes_per_history_update = 3;
  ua::history_update_request many;
  for (int i = 0; i < 4; ++i) many.history_update_details.push_back(ua::extension_object(ua::delete_raw_modified_details{}));
  services::service_history_update(many, f.resp, f.core.space(), f.t.store.get(), f.who, f.limits);
  CHECK(f.resp.response_header.service_result == status::bad_too_many_operations);
  CHECK(f.resp.results.empty());
  f.limits.max_nodes_per_history_update = 10;
  // More values than the limit in one details, no values, no times.
  f.limits.max_values_per_update = 2;
  CHECK(f.update(updating(ua::perform_update_type::insert, {number_at(1, 1), number_at(2, 2), number_at(3, 3)})).status_code ==
        status::bad_too_many_operations);
  CHECK(f.update(updating(ua::perform_update_type::insert, {})).status_code == status::bad_nothing_to_do);
  ua::delete_at_time_details at;
  at.node_id = counter;
  ua::history_update_request no_times;
  no_times.history_update_details.push_back(ua::extension_object(at));
  CHECK(f.update(no_times).status_code == status::bad_nothing_to_do);
  at.req_times.assign(3, ua::date_time{t0});
  no_times.history_update_details[0] = ua::extension_object(at);
  CHECK(f.update(no_times).status_code == status::bad_too_many_operations);
  // Not a HistoryUpdateDetails (a DataValue's place holds a ReadRawModifiedDetails), an unknown
  // body, an empty one; event details and structure data are not served.
  ua::history_update_request odd;
  odd.history_update_details.push_back(ua::extension_object(ua::read_raw_modified_details{}));
  odd.history_update_details.push_back(
      ua::extension_object::raw(ua::node_id(0, 682), ua::extension_object::encoding::byte_string, "\x01\x02"));
  odd.history_update_details.push_back(ua::extension_object{});
  odd.history_update_details.push_back(ua::extension_object(ua::update_event_details{}));
  odd.history_update_details.push_back(ua::extension_object(ua::delete_event_details{}));
  odd.history_update_details.push_back(ua::extension_object(ua::update_structure_data_details{}));
  services::service_history_update(odd, f.resp, f.core.space(), f.t.store.get(), f.who, f.limits);
  REQUIRE(f.resp.results.size() == 6);
  CHECK(f.resp.results[0].status_code == status::bad_history_operation_invalid);
  CHECK(f.resp.results[1].status_code == status::bad_history_operation_invalid);
  CHECK(f.resp.results[2].status_code == status::bad_history_operation_invalid);
  CHECK(f.resp.results[3].status_code == status::bad_history_operation_unsupported);
  CHECK(f.resp.results[4].status_code == status::bad_history_operation_unsupported);
  CHECK(f.resp.results[5].status_code == status::bad_history_operation_unsupported);
  // Times at the ends of the range: stored and found again.
  f.limits.max_values_per_update = 10;
  const std::int64_t highest = std::numeric_limits<std::int64_t>::max();
  CHECK(results_of(f.update(updating(ua::perform_update_type::insert, {number_at(1, highest), number_at(2, -5)}))) ==
        statuses{status::good_entry_inserted, status::good_entry_inserted});
  CHECK(f.update(deleting_range(highest - 1, highest)).status_code == status::bad_no_data);  // the end is not included
  CHECK(f.update(deleting_range(highest, highest)).status_code == status::good);
}

TEST_CASE("server_core: with an updater, HistoryUpdate is answered when its job comes back", "[history]") {
  auto core = test::make_core();
  temp_store t;
  fill_counter(*t.store, 3);
  std::vector<std::shared_ptr<services::history_update_job>> jobs;
  core.set_history(t.store, [](std::vector<history::record>&&) { return true; }, {},
                   [&](std::shared_ptr<services::history_update_job> j) { jobs.push_back(std::move(j)); });
  const auto n = core.space().find(counter);
  REQUIRE(core.space().set_historizing(n, true) == status::good);
  REQUIRE(core.space().set_history_writable(n, true) == status::good);

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

  send(updating(ua::perform_update_type::insert, {number_at(9, t0 + 5)}));
  CHECK(out.size() == 0);  // answered later
  REQUIRE(jobs.size() == 1);
  CHECK(jobs[0]->who.time == test::at(2).utc.ticks);
  services::run_history_update(*jobs[0]);  // what the reader does on its thread
  core.complete_history_update(*jobs[0], test::at(3));
  REQUIRE(core.history_completed().size() == 1);
  const auto& d = core.history_completed()[0];
  CHECK(d.channel_id == 3);
  CHECK(d.request_id == 77);
  REQUIRE(ua::decode_message(d.message.bytes(), response) == status::good);
  const auto* answered = response.get_if<ua::history_update_response>();
  REQUIRE(answered);
  CHECK(answered->response_header.request_handle == handle);
  REQUIRE(answered->results.size() == 1);
  CHECK(results_of(answered->results[0]) == statuses{status::good_entry_inserted});
  core.clear_history_completed();

  // Refused before the store: answered at once.
  send(updating(ua::perform_update_type::insert, {number_at(9, t0 + 5)}, ua::node_id::string(1, "no.such")));
  REQUIRE(out.size() > 0);
  REQUIRE(ua::decode_message(out.bytes(), response) == status::good);
  CHECK(response.get_if<ua::history_update_response>()->results.at(0).status_code == status::bad_node_id_unknown);
  CHECK(jobs.size() == 1);
}

TEST_CASE("server_core: a HistoryUpdate raises AuditHistoryValueUpdate and RawModifyDelete events", "[history][audit]") {
  actors::server_core_config c;
  c.description.application_uri = "urn:test:uactor:server";
  c.description.endpoint_url = "opc.tcp://localhost:4840";
  c.sessions.random = [n = std::uint8_t{0}](std::span<std::uint8_t> out) mutable {
    for (auto& b : out) b = ++n;
  };
  c.audit_events = true;
  auto core = actors::make_demo_server_core(std::move(c), "test", test::at(0).utc);
  temp_store t;
  fill_counter(*t.store, 3);
  core.set_history(t.store, [](std::vector<history::record>&&) { return true; });  // no updater: inline
  const auto n = core.space().find(counter);
  REQUIRE(core.space().set_historizing(n, true) == status::good);
  REQUIRE(core.space().set_history_writable(n, true) == status::good);

  test::core_session s(core, 3);
  ua::create_subscription_request sub;
  sub.requested_publishing_interval = 100;
  sub.requested_max_keep_alive_count = 10;
  sub.requested_lifetime_count = 100;
  sub.publishing_enabled = true;
  const auto sub_id = s.call_as<ua::create_subscription_response>(sub).subscription_id;
  ua::event_filter filter;
  filter.select_clauses.push_back(test::event_field(2041, {"EventType"}));
  filter.select_clauses.push_back(test::event_field(2052, {"Status"}));
  filter.select_clauses.push_back(test::event_field(3006, {"UpdatedNode"}));
  filter.select_clauses.push_back(test::event_field(3006, {"PerformInsertReplace"}));
  filter.select_clauses.push_back(test::event_field(3014, {"IsDeleteModified"}));
  ua::create_monitored_items_request items;
  items.subscription_id = sub_id;
  items.timestamps_to_return = ua::timestamps_to_return::both;
  ua::monitored_item_create_request item;
  item.item_to_monitor.node_id = ua::node_id(0, 2253);
  item.item_to_monitor.attribute_id = 12;  // EventNotifier
  item.monitoring_mode = ua::monitoring_mode::reporting;
  item.requested_parameters.filter = ua::extension_object(filter);
  items.items_to_create.push_back(item);
  REQUIRE(s.call_as<ua::create_monitored_items_response>(items).results.at(0).status_code == status::good);

  CHECK(results_of(s.call_as<ua::history_update_response>(updating(ua::perform_update_type::insert, {number_at(9, t0 + 5)}))
                       .results.at(0)) == statuses{status::good_entry_inserted});
  CHECK(s.call_as<ua::history_update_response>(deleting_range(t0, t0 + 10, true)).results.at(0).status_code == status::good);
  CHECK_FALSE(s.publish(10));
  core.publish_tick(test::at(100));
  REQUIRE(core.deferred().size() == 1);
  ua::extension_object o;
  REQUIRE(ua::decode_message(core.deferred()[0].message.bytes(), o) == status::good);
  const auto* p = o.get_if<ua::publish_response>();
  REQUIRE(p);
  std::vector<ua::event_field_list> events;
  for (const auto& eo : p->notification_message.notification_data)
    if (const auto* l = eo.get_if<ua::event_notification_list>())
      for (const auto& e : l->events) events.push_back(e);
  REQUIRE(events.size() == 2);
  CHECK(events[0].event_fields[0] == ua::variant(ua::node_id(0, 3006)));  // AuditHistoryValueUpdateEventType
  CHECK(events[0].event_fields[1] == ua::variant(true));
  CHECK(events[0].event_fields[2] == ua::variant(counter));
  CHECK(events[0].event_fields[3] == ua::variant(std::int32_t{1}));  // Insert
  CHECK(events[1].event_fields[0] == ua::variant(ua::node_id(0, 3014)));  // AuditHistoryRawModifyDeleteEventType
  CHECK(events[1].event_fields[4] == ua::variant(true));
}

}  // namespace engine_server_history_update_service_test
