// The client's subscription engine with event items (Part 4 §7.25.3 EventNotificationList):
// encoded PublishResponses in, the event handlers called, plus the EventFilter builders.
#include <catch2/catch.hpp>

#include <algorithm>
#include <string>
#include <vector>

#include "engine/client/subscription.hpp"
#include "protocol/codec.hpp"
#include "protocol/message.hpp"
#include "tests/support/alloc_counter.hpp"

// Everything in a namespace of its own, so that this file can share a unity batch with neighbours
// that use the same helper names (docs/decisions/0050).
namespace client_subscription_events_test {

using namespace uactor;
using actors::subscription_engine;
namespace status = ua::status;

namespace {

using clock_point = std::chrono::steady_clock::time_point;
const clock_point t0{std::chrono::seconds(1000)};

// An event as a server selects it: Severity (UInt16) and Message (LocalizedText), for `handle`.
ua::event_field_list event_of(std::uint32_t handle, std::uint16_t severity, const std::string& text) {
  ua::event_field_list e;
  e.client_handle = handle;
  e.event_fields.push_back(ua::variant(severity));
  e.event_fields.push_back(ua::variant(ua::localized_text{ua::ua_string("en"), ua::ua_string(text)}));
  return e;
}

ua::extension_object events_of(std::vector<ua::event_field_list> events) {
  ua::event_notification_list l;
  l.events = ua::ua_array<ua::event_field_list>(std::move(events));
  return ua::extension_object(std::move(l));
}

ua::extension_object changes_of(std::uint32_t handle, std::int32_t value) {
  ua::data_change_notification dc;
  ua::monitored_item_notification n;
  n.client_handle = handle;
  n.value.set_value(value);
  dc.monitored_items.push_back(n);
  return ua::extension_object(std::move(dc));
}

ua::publish_response publish(std::uint32_t sub, std::uint32_t seq, std::vector<ua::extension_object> data) {
  ua::publish_response r;
  r.subscription_id = sub;
  r.notification_message.sequence_number = seq;
  r.notification_message.publish_time = ua::date_time::from_unix_ms(1'767'225'600'000);
  r.notification_message.notification_data = ua::ua_array<ua::extension_object>(std::move(data));
  r.available_sequence_numbers = {seq};
  return r;
}

// Encoded as on the wire, then decoded into `into` (a reused message, as the client channel does).
const ua::publish_response& through_wire(const ua::publish_response& r, ua::byte_buffer& buf, ua::extension_object& into) {
  buf.clear();
  ua::encoder e(buf);
  ua::encode_message(e, r);
  REQUIRE(ua::decode_message(buf.bytes(), into) == status::good);
  const auto* p = into.get_if<ua::publish_response>();
  REQUIRE(p);
  return *p;
}

std::string text_of(const ua::event_field_list& e) {
  const auto* t = e.event_fields.at(1).get_if<ua::localized_text>();
  return t ? std::string(t->text.view()) : "?";
}

}  // namespace

TEST_CASE("client_subscription: events reach the fast event handler with their fields, in order", "[client_subscription]") {
  subscription_engine e;
  std::vector<std::uint32_t> sequences;
  std::vector<std::string> seen;
  subscription_handlers h;
  h.on_events = [&](std::uint32_t sub, std::uint32_t seq, std::span<const ua::event_field_list> events) {
    CHECK(sub == 3);
    sequences.push_back(seq);
    for (const auto& ev : events)
      seen.push_back(std::to_string(ev.client_handle) + " " + std::to_string(*ev.event_fields.at(0).get_if<std::uint16_t>()) +
                     " " + text_of(ev));
  };
  e.add(3, 100, 10, std::move(h), t0);
  ua::byte_buffer buf;
  ua::extension_object msg;
  e.on_publish_response(through_wire(publish(3, 1, {events_of({event_of(9, 700, "pump 1 tripped"), event_of(9, 100, "low flow")})}), buf, msg), t0);
  e.on_publish_response(through_wire(publish(3, 2, {events_of({event_of(10, 900, "valve stuck")})}), buf, msg), t0);
  CHECK(sequences == std::vector<std::uint32_t>{1, 2});
  CHECK(seen == std::vector<std::string>{"9 700 pump 1 tripped", "9 100 low flow", "10 900 valve stuck"});
  CHECK(e.stats().events == 3);
  CHECK(e.stats().data_changes == 0);
  ua::publish_request req;
  e.fill_publish(req);
  CHECK(req.subscription_acknowledgements.size() == 2);  // event messages are acknowledged like data ones
}

TEST_CASE("client_subscription: one message with data changes and events calls both fast handlers, data first",
          "[client_subscription]") {
  subscription_engine e;
  std::vector<std::string> calls;
  subscription_handlers h;
  h.on_data = [&](std::uint32_t, std::uint32_t seq, std::span<const ua::monitored_item_notification> changes) {
    calls.push_back("data " + std::to_string(seq) + " " + std::to_string(changes.size()));
  };
  h.on_events = [&](std::uint32_t, std::uint32_t seq, std::span<const ua::event_field_list> events) {
    calls.push_back("events " + std::to_string(seq) + " " + std::to_string(events.size()));
  };
  e.add(1, 100, 10, std::move(h), t0);
  ua::byte_buffer buf;
  ua::extension_object msg;
  // Part 4 §7.25.1: a NotificationMessage may carry a DataChangeNotification and an EventNotificationList.
  e.on_publish_response(
      through_wire(publish(1, 1, {changes_of(1, 42), events_of({event_of(2, 500, "a"), event_of(2, 600, "b")})}), buf, msg), t0);
  CHECK(calls == std::vector<std::string>{"data 1 1", "events 1 2"});
  CHECK(e.stats().messages == 1);
  CHECK(e.stats().events == 2);
  CHECK(e.stats().data_changes == 1);
}

TEST_CASE("client_subscription: per-item event handlers get their own item's events, value items their changes",
          "[client_subscription]") {
  subscription_engine e;
  e.add(4, 100, 10, subscription_handlers{}, t0);
  std::vector<std::string> alarms, audit;
  std::vector<std::int32_t> values;
  e.add_item_handler(4, 1, [&](const ua::event_field_list& ev) { alarms.push_back(text_of(ev)); });
  e.add_item_handler(4, 2, [&](const ua::event_field_list& ev) { audit.push_back(text_of(ev)); });
  e.add_item_handler(4, 3, [&](const ua::monitored_item_notification& n) { values.push_back(*n.value.value.get_if<std::int32_t>()); });
  e.bind_item(4, 1, 101);
  e.bind_item(4, 2, 102);
  ua::byte_buffer buf;
  ua::extension_object msg;
  e.on_publish_response(
      through_wire(publish(4, 1, {events_of({event_of(1, 800, "hi"), event_of(2, 100, "login"), event_of(7, 1, "nobody's")}),
                                  changes_of(3, 5), changes_of(1, 6)}),
                   buf, msg),
      t0);
  CHECK(alarms == std::vector<std::string>{"hi"});
  CHECK(audit == std::vector<std::string>{"login"});
  CHECK(values == std::vector<std::int32_t>{5});  // handle 1 is an event item: its "change" goes nowhere
  e.remove_item(4, 101);
  e.on_publish_response(through_wire(publish(4, 2, {events_of({event_of(1, 800, "gone"), event_of(2, 100, "again")})}), buf, msg), t0);
  CHECK(alarms == std::vector<std::string>{"hi"});
  CHECK(audit == std::vector<std::string>{"login", "again"});
}

TEST_CASE("client_subscription: decoding and dispatching an EventNotificationList allocates nothing in steady state",
          "[client_subscription]") {
  if (!test::counts_allocations) {
    WARN("skipped: allocations are not counted in a sanitizer build");
    return;
  }
  std::vector<ua::byte_buffer> wire;
  for (std::uint32_t seq = 1; seq <= 30; ++seq) {
    std::vector<ua::event_field_list> events;
    for (std::uint16_t i = 0; i < 20; ++i) events.push_back(event_of(1, static_cast<std::uint16_t>(i * 10), "pump tripped"));
    ua::byte_buffer b;
    ua::encoder enc(b);
    ua::encode_message(enc, publish(5, seq, {events_of(std::move(events))}));
    wire.push_back(std::move(b));
  }
  subscription_engine e;
  std::uint64_t severity_sum = 0;
  subscription_handlers h;
  h.on_events = [&](std::uint32_t, std::uint32_t, std::span<const ua::event_field_list> events) {
    for (const auto& ev : events) severity_sum += *ev.event_fields[0].get_if<std::uint16_t>();
  };
  e.add(5, 100, 10, std::move(h), t0);
  ua::extension_object msg;
  ua::publish_request req;
  for (std::size_t i = 0; i < 2; ++i) {
    REQUIRE(ua::decode_message(wire[i].bytes(), msg) == status::good);
    e.on_publish_response(*msg.get_if<ua::publish_response>(), t0);
    e.fill_publish(req);
  }
  test::alloc_scope scope;
  for (std::size_t i = 2; i < wire.size(); ++i) {
    REQUIRE(ua::decode_message(wire[i].bytes(), msg) == status::good);
    e.on_publish_response(*msg.get_if<ua::publish_response>(), t0);
    e.fill_publish(req);
  }
  const auto counted = scope.counted();
  CHECK(counted.allocations == 0);
  CHECK(counted.bytes == 0);
  CHECK(e.stats().events == wire.size() * 20);
  CHECK(severity_sum == wire.size() * 1900);
}

TEST_CASE("event filter builder: select clauses by BaseEventType path and Value, where conditions under one And",
          "[client_subscription]") {
  SECTION("fields") {
    const auto f = event_field("ActiveState/Id");
    CHECK(f.type_definition_id == ua::node_id(0, 2041));
    CHECK(f.attribute_id == 13);
    REQUIRE(f.browse_path.size() == 2);
    CHECK(f.browse_path[0] == ua::qualified_name{0, ua::ua_string("ActiveState")});
    CHECK(f.browse_path[1] == ua::qualified_name{0, ua::ua_string("Id")});
    CHECK(event_field("").browse_path.empty());  // with attribute NodeId: a ConditionId
  }
  SECTION("no where condition: an empty where clause") {
    const auto f = event_filter_builder().select("Time").select("Severity").build();
    CHECK(f.select_clauses.size() == 2);
    CHECK(f.where_clause.elements.empty());
  }
  SECTION("one condition: it is element 0") {
    event_filter_builder b;
    b.select("Message").min_severity(500);
    const auto f = b.build();
    REQUIRE(f.where_clause.elements.size() == 1);
    CHECK(b.where_element(0) == 0);
    const auto& el = f.where_clause.elements[0];
    CHECK(el.filter_operator == ua::filter_operator::greater_than_or_equal);
    REQUIRE(el.filter_operands.size() == 2);
    const auto* lhs = el.filter_operands[0].get_if<ua::simple_attribute_operand>();
    REQUIRE(lhs);
    CHECK(lhs->browse_path[0].name.view() == "Severity");
    const auto* rhs = el.filter_operands[1].get_if<ua::literal_operand>();
    REQUIRE(rhs);
    CHECK(*rhs->value.get_if<std::uint16_t>() == 500);
  }
  SECTION("three conditions: two Ands, each pointing to later elements only (Part 4 §7.7.4.2)") {
    event_filter_builder b;
    b.min_severity(100).of_type(ua::node_id(0, 2041)).min_severity(200);
    const auto f = b.build();
    REQUIRE(f.where_clause.elements.size() == 5);
    CHECK(b.where_element(0) == 2);
    CHECK(b.where_element(2) == 4);
    CHECK(f.where_clause.elements[3].filter_operator == ua::filter_operator::of_type);
    std::vector<std::uint32_t> reached;
    for (std::size_t i = 0; i < 2; ++i) {
      const auto& a = f.where_clause.elements[i];
      CHECK(a.filter_operator == ua::filter_operator::and_);
      for (const auto& o : a.filter_operands) {
        const auto* e = o.get_if<ua::element_operand>();
        REQUIRE(e);
        CHECK(e->index > i);
        reached.push_back(e->index);
      }
    }
    std::sort(reached.begin(), reached.end());
    CHECK(reached == std::vector<std::uint32_t>{1, 2, 3, 4});  // every element reached once from element 0
  }
}

TEST_CASE("event filter result: the first refused clause is named with its status", "[client_subscription]") {
  ua::event_filter_result r;
  CHECK(first_refused_clause(r).empty());
  r.select_clause_results = {ua::status_code(status::good), ua::status_code(status::bad_browse_name_invalid)};
  CHECK(first_refused_clause(r) == "select clause 1: BadBrowseNameInvalid (0x80600000)");
  r.select_clause_results = {ua::status_code(status::good)};
  ua::content_filter_element_result el;
  el.status_code = status::bad_filter_operand_invalid;
  el.operand_status_codes = {ua::status_code(status::good), ua::status_code(status::bad_filter_literal_invalid)};
  r.where_clause_result.element_results.push_back(el);
  CHECK(first_refused_clause(r).rfind("where element 0: BadFilterOperandInvalid", 0) == 0);
  CHECK(first_refused_clause(r).find("operand 1: BadFilterLiteralInvalid") != std::string::npos);
  ua::monitored_item_create_result mr;
  CHECK(event_filter_result_of(mr) == nullptr);
  mr.filter_result = ua::extension_object(r);
  REQUIRE(event_filter_result_of(mr));
  CHECK(event_filter_result_of(mr)->select_clause_results.size() == 1);
}

}  // namespace client_subscription_events_test
