// HistoryUpdate of event history through server_core (Part 11 §6.9.4 UpdateEventDetails, §6.9.7
// DeleteEventDetails, Part 4 §5.10.5): the Server object's recorded events (SQLite in a temp
// folder) deleted by EventId, inserted, replaced and updated through the filter's select clauses;
// each code Part 11 names; who may (the EventNotifier's HistoryWrite bit, the session's roles); the
// audit events.
#include <catch2/catch.hpp>

#include "engine/server/access/permission_table.hpp"
#include "engine/server/server_core.hpp"
#include "protocol/message.hpp"
#include "tests/engine/server/core_fixture.hpp"
#include "tests/history/temp_store.hpp"

namespace engine_server_history_event_update_test {

using namespace uactor;
using test::temp_store;
namespace status = ua::status;
using statuses = std::vector<ua::status_code>;

const ua::node_id server_object(0, 2253);

// A read of every stored event of the Server object: EventId, Severity, Message, Time.
ua::history_read_request read_all() {
  ua::read_event_details d;
  d.start_time = test::at(0).utc;
  d.end_time = test::at(100'000).utc;
  for (const char* n : {"EventId", "Severity", "Message", "Time"}) d.filter.select_clauses.push_back(test::event_field(2041, {n}));
  ua::history_read_request req;
  req.history_read_details = ua::extension_object(d);
  req.timestamps_to_return = ua::timestamps_to_return::both;
  ua::history_read_value_id id;
  id.node_id = server_object;
  req.nodes_to_read.push_back(id);
  return req;
}

struct stored_event {
  std::string id;
  std::uint16_t severity = 0;
  std::string message;
  std::int64_t time = 0;
  friend bool operator==(const stored_event&, const stored_event&) = default;
};

struct event_update_fixture {
  actors::server_core core;
  temp_store t;
  std::vector<stored_event> recorded;  // the five raised at the start

  static actors::server_core make(bool audit) {
    actors::server_core_config c;
    c.description.application_uri = "urn:test:uactor:server";
    c.description.endpoint_url = "opc.tcp://localhost:4840";
    c.sessions.random = [n = std::uint8_t{0}](std::span<std::uint8_t> out) mutable {
      for (auto& b : out) b = ++n;
    };
    c.audit_events = audit;
    return actors::make_demo_server_core(std::move(c), "test", test::at(0).utc);
  }

  explicit event_update_fixture(bool writable = true, bool audit = false) : core(make(audit)) {
    core.set_history(t.store, [this](std::vector<history::record>&& b) {
      t.store->append(b);
      return true;
    });
    REQUIRE(core.set_event_history({server_object}, writable).empty());
    for (int i = 1; i <= 5; ++i) {
      event e;
      e.severity = static_cast<std::uint16_t>(100 * i);
      e.message = ua::localized_text{ua::ua_string("en"), ua::ua_string("event " + std::to_string(i))};
      REQUIRE(core.raise_event(e, test::at(10 * i)) == status::good);
    }
    core.flush_history();
    test::core_session s(core, 9);
    recorded = events(s);
    REQUIRE((audit || recorded.size() == 5));  // with audit events on, the sessions' are recorded too
  }

  std::vector<stored_event> events(test::core_session& s) {
    core.flush_history();
    const auto& r = s.call_as<ua::history_read_response>(read_all()).results.at(0);
    std::vector<stored_event> out;
    const auto* h = r.history_data.get_if<ua::history_event>();
    if (!h) return out;
    for (const auto& e : h->events) {
      REQUIRE(e.event_fields.size() == 4);
      stored_event x;
      if (const auto* id = e.event_fields[0].get_if<ua::byte_string>()) x.id = id->str();
      if (const auto* sev = e.event_fields[1].get_if<std::uint16_t>()) x.severity = *sev;
      if (const auto* m = e.event_fields[2].get_if<ua::localized_text>()) x.message = m->text.str();
      if (const auto* tm = e.event_fields[3].get_if<ua::date_time>()) x.time = tm->ticks;
      out.push_back(std::move(x));
    }
    return out;
  }
};

ua::history_update_request deleting(std::vector<std::string> ids, const ua::node_id& node = server_object) {
  ua::delete_event_details d;
  d.node_id = node;
  for (auto& id : ids) d.event_ids.push_back(ua::byte_string(id));
  ua::history_update_request req;
  req.history_update_details.push_back(ua::extension_object(d));
  return req;
}

// UpdateEventDetails with these select clauses (BaseEventType fields by name) and events.
ua::history_update_request updating(ua::perform_update_type mode, std::vector<const char*> fields,
                                    std::vector<std::vector<ua::variant>> events, const ua::node_id& node = server_object) {
  ua::update_event_details d;
  d.node_id = node;
  d.perform_insert_replace = mode;
  for (const char* f : fields) d.filter.select_clauses.push_back(test::event_field(2041, {f}));
  for (auto& e : events) {
    ua::history_event_field_list l;
    for (auto& v : e) l.event_fields.push_back(std::move(v));
    d.event_data.push_back(std::move(l));
  }
  ua::history_update_request req;
  req.history_update_details.push_back(ua::extension_object(d));
  return req;
}

statuses results_of(const ua::history_update_result& r) { return {r.operation_results.begin(), r.operation_results.end()}; }

ua::variant text(const char* s) { return ua::variant(ua::localized_text{ua::ua_string("en"), ua::ua_string(s)}); }
ua::variant bytes(const std::string& s) { return ua::variant(ua::byte_string(s)); }

TEST_CASE("history event update: DeleteEventDetails removes events by EventId, each answered", "[history][events]") {
  event_update_fixture f;
  test::core_session s(f.core, 3);
  const auto& r = s.call_as<ua::history_update_response>(deleting({f.recorded[1].id, f.recorded[3].id, "no such id"}));
  REQUIRE(r.results.size() == 1);
  CHECK(r.results[0].status_code == status::good);
  CHECK(results_of(r.results[0]) == statuses{status::good, status::good, status::bad_no_entry_exists});
  const auto left = f.events(s);
  REQUIRE(left.size() == 3);
  CHECK(left[0] == f.recorded[0]);
  CHECK(left[1] == f.recorded[2]);
  CHECK(left[2] == f.recorded[4]);
  // Part 11 §6.9.7.2: none found is Bad_NoData for the node.
  const auto& again = s.call_as<ua::history_update_response>(deleting({f.recorded[1].id}));
  CHECK(again.results.at(0).status_code == status::bad_no_data);
  CHECK(results_of(again.results.at(0)) == statuses{status::bad_no_entry_exists});
  // Nothing to delete, a node that is not a notifier with event history, an unknown one.
  CHECK(s.call_as<ua::history_update_response>(deleting({})).results.at(0).status_code == status::bad_nothing_to_do);
  CHECK(s.call_as<ua::history_update_response>(deleting({"x"}, ua::node_id::string(1, "Demo.Dynamic.Counter")))
            .results.at(0).status_code == status::bad_history_operation_unsupported);
  CHECK(s.call_as<ua::history_update_response>(deleting({"x"}, ua::node_id::string(1, "no.such"))).results.at(0).status_code ==
        status::bad_node_id_unknown);
}

TEST_CASE("history event update: Insert, Replace and Update through the select clauses", "[history][events]") {
  event_update_fixture f;
  test::core_session s(f.core, 3);
  const ua::variant base_event_type(ua::node_id(0, 2041));
  const ua::date_time t25 = test::at(25).utc;

  // Insert (§6.9.4.2): EventType and Time needed; the EventId the server's when none is given,
  // a known one Bad_EntryExists.
  auto insert = updating(ua::perform_update_type::insert, {"EventType", "Time", "Severity", "Message", "EventId"},
                         {{base_event_type, ua::variant(t25), ua::variant(std::uint16_t{250}), text("backfilled"), ua::variant()},
                          {base_event_type, ua::variant(t25), ua::variant(std::uint16_t{1}), text("dup"), bytes(f.recorded[0].id)},
                          {base_event_type, ua::variant(t25), ua::variant(std::uint16_t{1})}});
  const auto& inserted = s.call_as<ua::history_update_response>(insert).results.at(0);
  CHECK(inserted.status_code == status::good);
  CHECK(results_of(inserted) == statuses{status::good_entry_inserted, status::bad_entry_exists, status::bad_invalid_argument});
  auto now = f.events(s);
  REQUIRE(now.size() == 6);
  CHECK(now[2].severity == 250);
  CHECK(now[2].message == "backfilled");
  CHECK(now[2].time == t25.ticks);  // in time order among the others
  CHECK_FALSE(now[2].id.empty());
  const std::string backfilled = now[2].id;

  // Replace (§6.9.4.3): the fields given change, the others stay; an unknown EventId Bad_NoEntryExists.
  const auto& replaced = s.call_as<ua::history_update_response>(
      updating(ua::perform_update_type::replace, {"EventId", "Severity"},
               {{bytes(f.recorded[0].id), ua::variant(std::uint16_t{111})}, {bytes("no such id"), ua::variant(std::uint16_t{1})}}));
  CHECK(results_of(replaced.results.at(0)) == statuses{status::good_entry_replaced, status::bad_no_entry_exists});
  now = f.events(s);
  REQUIRE(now.size() == 6);
  CHECK(now[0] == stored_event{f.recorded[0].id, 111, f.recorded[0].message, f.recorded[0].time});

  // Update (§6.9.4.4): the whole event replaced (a Message not given is gone), or inserted.
  const ua::date_time t5 = test::at(5).utc;
  const auto& updated = s.call_as<ua::history_update_response>(
      updating(ua::perform_update_type::update, {"EventId", "EventType", "Time", "Severity"},
               {{bytes(backfilled), base_event_type, ua::variant(t25), ua::variant(std::uint16_t{260})},
                {bytes("brand new"), base_event_type, ua::variant(t5), ua::variant(std::uint16_t{50})}}));
  CHECK(results_of(updated.results.at(0)) == statuses{status::good_entry_replaced, status::good_entry_inserted});
  now = f.events(s);
  REQUIRE(now.size() == 7);
  CHECK(now[0] == stored_event{"brand new", 50, "", t5.ticks});
  CHECK(now[3] == stored_event{backfilled, 260, "", t25.ticks});

  // IsReadModified is for values; the changed events are kept all the same (the store's
  // modified records, tests/history/update_contract.hpp).
}

TEST_CASE("history event update: invalid details get the codes Part 11 names", "[history][events]") {
  event_update_fixture f;
  test::core_session s(f.core, 3);
  const ua::variant base_event_type(ua::node_id(0, 2041));
  const ua::variant t(test::at(25).utc);
  const auto code = [&](const ua::history_update_request& r) { return s.call_as<ua::history_update_response>(r).results.at(0).status_code; };
  const auto ops = [&](const ua::history_update_request& r) { return results_of(s.call_as<ua::history_update_response>(r).results.at(0)); };
  // Insert without Time, Replace without EventId: Bad_ArgumentsMissing.
  CHECK(code(updating(ua::perform_update_type::insert, {"EventType", "Severity"}, {{base_event_type, ua::variant(std::uint16_t{1})}})) ==
        status::bad_arguments_missing);
  CHECK(code(updating(ua::perform_update_type::replace, {"Severity"}, {{ua::variant(std::uint16_t{1})}})) == status::bad_arguments_missing);
  // Remove (or another number): Bad_InvalidArgument; no events: Bad_NothingToDo.
  CHECK(code(updating(ua::perform_update_type::remove, {"EventType", "Time"}, {{base_event_type, t}})) == status::bad_invalid_argument);
  CHECK(code(updating(ua::perform_update_type::insert, {"EventType", "Time"}, {})) == status::bad_nothing_to_do);
  // A where clause: Bad_EventFilterInvalid (§6.9.4.2: it shall be empty).
  auto with_where = updating(ua::perform_update_type::insert, {"EventType", "Time"}, {{base_event_type, t}});
  {
    auto d = *with_where.history_update_details[0].get_if<ua::update_event_details>();
    ua::content_filter_element e;
    e.filter_operator = ua::filter_operator::is_null;
    e.filter_operands.push_back(ua::extension_object(test::event_field(2041, {"Severity"})));
    d.filter.where_clause.elements.push_back(e);
    with_where.history_update_details[0] = ua::extension_object(d);
  }
  CHECK(code(with_where) == status::bad_event_filter_invalid);
  // Per event: the wrong field count, a Time that is not one, an EventType that is no event type,
  // a SourceNode that does not exist.
  CHECK(ops(updating(ua::perform_update_type::insert, {"EventType", "Time", "SourceNode"},
                     {{base_event_type, t},
                      {base_event_type, ua::variant(std::uint16_t{5}), ua::variant()},
                      {ua::variant(ua::node_id::string(1, "Demo.Dynamic.Counter")), t, ua::variant()},
                      {base_event_type, t, ua::variant(ua::node_id::string(1, "no.such"))},
                      {ua::variant(ua::node_id(0, 2041)), t, ua::variant(ua::node_id(0, 2253))}})) ==
        statuses{status::bad_invalid_argument, status::bad_invalid_argument, status::bad_type_definition_invalid,
                 status::bad_source_node_id_invalid, status::good_entry_inserted});
  // A field no event keeps (the BrowseName attribute of a field): written without it, Good_DataIgnored.
  auto ignored = updating(ua::perform_update_type::insert, {"EventType", "Time", "Severity"},
                          {{base_event_type, t, ua::variant(std::uint16_t{7})}});
  {
    auto d = *ignored.history_update_details[0].get_if<ua::update_event_details>();
    d.filter.select_clauses[2].attribute_id = 3;  // BrowseName
    ignored.history_update_details[0] = ua::extension_object(d);
  }
  CHECK(ops(ignored) == statuses{status::good_data_ignored});
  // Too many events for one details entry.
  std::vector<std::vector<ua::variant>> many(10'001, std::vector<ua::variant>{base_event_type, t});
  CHECK(code(updating(ua::perform_update_type::insert, {"EventType", "Time"}, many)) == status::bad_too_many_operations);
  std::vector<std::string> ids(10'001, "x");
  CHECK(code(deleting(ids)) == status::bad_too_many_operations);
  CHECK(f.events(s).size() == 7);  // the five, the one inserted and the one written without a field
}

TEST_CASE("history event update: the EventNotifier's HistoryWrite bit and the session's roles decide",
          "[history][events][roles]") {
  {
    event_update_fixture read_only(false);  // [history] updates = false
    CHECK((read_only.core.space().at(read_only.core.space().find(server_object)).event_notifier & 0x0C) == 0x04);
    test::core_session s(read_only.core, 3);
    CHECK(s.call_as<ua::history_update_response>(deleting({read_only.recorded[0].id})).results.at(0).status_code ==
          status::bad_not_writable);
    CHECK(read_only.events(s).size() == 5);
  }
  event_update_fixture f;
  CHECK((f.core.space().at(f.core.space().find(server_object)).event_notifier & 0x0C) == 0x0C);
  namespace authz = actors::authz;
  namespace perm = authz::permission;
  authz::permission_rule rule;
  rule.node = server_object.to_string();
  rule.roles = {{authz::well_known::anonymous, perm::browse | perm::read | perm::read_history | perm::receive_events | perm::insert_history}};
  rule.where = "test";
  REQUIRE(f.core.set_access(nullptr, {rule}).empty());
  test::core_session s(f.core, 5);
  CHECK(s.call_as<ua::history_update_response>(deleting({f.recorded[0].id})).results.at(0).status_code ==
        status::bad_user_access_denied);
  CHECK(s.call_as<ua::history_update_response>(
             updating(ua::perform_update_type::replace, {"EventId", "Severity"}, {{bytes(f.recorded[0].id), ua::variant(std::uint16_t{1})}}))
            .results.at(0).status_code == status::bad_user_access_denied);
  CHECK(results_of(s.call_as<ua::history_update_response>(
                       updating(ua::perform_update_type::insert, {"EventType", "Time"},
                                {{ua::variant(ua::node_id(0, 2041)), ua::variant(test::at(1).utc)}}))
                       .results.at(0)) == statuses{status::good_entry_inserted});
}

TEST_CASE("history event update: AuditHistoryEventDelete and EventUpdate events are raised", "[history][events][audit]") {
  event_update_fixture f(true, true);
  test::core_session s(f.core, 3);
  ua::create_subscription_request sub;
  sub.requested_publishing_interval = 100;
  sub.requested_max_keep_alive_count = 10;
  sub.requested_lifetime_count = 100;
  sub.publishing_enabled = true;
  const auto sub_id = s.call_as<ua::create_subscription_response>(sub).subscription_id;
  ua::event_filter filter;
  filter.select_clauses.push_back(test::event_field(2041, {"EventType"}));
  filter.select_clauses.push_back(test::event_field(2052, {"Status"}));
  filter.select_clauses.push_back(test::event_field(2999, {"UpdatedNode"}));
  filter.select_clauses.push_back(test::event_field(2999, {"PerformInsertReplace"}));
  filter.select_clauses.push_back(test::event_field(3022, {"EventIds"}));
  filter.select_clauses.push_back(test::event_field(2999, {"NewValues"}));
  ua::create_monitored_items_request items;
  items.subscription_id = sub_id;
  items.timestamps_to_return = ua::timestamps_to_return::both;
  ua::monitored_item_create_request item;
  item.item_to_monitor.node_id = server_object;
  item.item_to_monitor.attribute_id = 12;  // EventNotifier
  item.monitoring_mode = ua::monitoring_mode::reporting;
  item.requested_parameters.filter = ua::extension_object(filter);
  items.items_to_create.push_back(item);
  REQUIRE(s.call_as<ua::create_monitored_items_response>(items).results.at(0).status_code == status::good);

  CHECK(s.call_as<ua::history_update_response>(deleting({f.recorded[0].id})).results.at(0).status_code == status::good);
  CHECK(results_of(s.call_as<ua::history_update_response>(updating(ua::perform_update_type::replace, {"EventId", "Severity"},
                                                                   {{bytes(f.recorded[1].id), ua::variant(std::uint16_t{1})}}))
                       .results.at(0)) == statuses{status::good_entry_replaced});
  CHECK_FALSE(s.publish(10));
  f.core.publish_tick(test::at(100));
  REQUIRE(f.core.deferred().size() == 1);
  ua::extension_object o;
  REQUIRE(ua::decode_message(f.core.deferred()[0].message.bytes(), o) == status::good);
  const auto* p = o.get_if<ua::publish_response>();
  REQUIRE(p);
  std::vector<ua::event_field_list> events;
  for (const auto& eo : p->notification_message.notification_data)
    if (const auto* l = eo.get_if<ua::event_notification_list>())
      for (const auto& e : l->events) events.push_back(e);
  REQUIRE(events.size() == 2);
  CHECK(events[0].event_fields[0] == ua::variant(ua::node_id(0, 3022)));  // AuditHistoryEventDeleteEventType
  CHECK(events[0].event_fields[1] == ua::variant(true));
  CHECK(events[0].event_fields[2] == ua::variant(server_object));
  const auto* ids = events[0].event_fields[4].get_if<ua::ua_array<ua::byte_string>>();
  REQUIRE(ids);
  CHECK(*ids == ua::ua_array<ua::byte_string>{std::vector<ua::byte_string>{ua::byte_string(f.recorded[0].id)}});
  CHECK(events[1].event_fields[0] == ua::variant(ua::node_id(0, 2999)));  // AuditHistoryEventUpdateEventType
  CHECK(events[1].event_fields[3] == ua::variant(std::int32_t{2}));       // Replace
  const auto* values = events[1].event_fields[5].get_if<ua::ua_array<ua::extension_object>>();
  REQUIRE(values);
  REQUIRE(values->size() == 1);
  CHECK((*values)[0].get_if<ua::history_event_field_list>());
}

}  // namespace engine_server_history_event_update_test
