// Events through server_core (Part 4 §5.12 event items, §7.22.3 EventFilter, Part 3 §6.4 notifiers)
// with a passed-in clock: an item on the Server object's EventNotifier, events raised, their
// selected fields in a PublishResponse; the where clause, notifier hierarchies, the event queue's
// overflow event and the codes for items that cannot be served.
#include <catch2/catch.hpp>

#include <cmath>
#include <string>
#include <vector>

#include "runtime/namespaces/demo_namespace.hpp"
#include "engine/server/server_core.hpp"
#include "protocol/message.hpp"
#include "tests/engine/server/core_fixture.hpp"
#include "tests/support/alloc_counter.hpp"

// Everything in a namespace of its own, so that this file can share a unity batch with neighbours
// that use the same helper names (docs/decisions/0050).
namespace server_events_test {

using namespace uactor;
namespace status = ua::status;
using op = ua::filter_operator;

namespace {

constexpr std::uint32_t channel = 3;
constexpr std::uint32_t server_object = 2253;
constexpr std::uint32_t event_notifier_attribute = 12;

using test::at;

actors::server_core make_core(actors::subscription_limits limits = {}, bool audit = false) {
  actors::server_core_config c;
  c.description.application_uri = "urn:test:uactor:server";
  c.description.endpoint_url = "opc.tcp://localhost:4840";
  c.sessions.random = [n = std::uint8_t{0}](std::span<std::uint8_t> out) mutable {
    for (auto& b : out) b = ++n;
  };
  c.subscriptions = limits;
  c.audit_events = audit;
  return actors::make_demo_server_core(std::move(c), "test", at(0).utc);
}

// One anonymous session over None, with the subscription calls these tests make.
struct client : test::core_session {
  explicit client(actors::server_core& c) : core_session(c, channel) {}

  std::uint32_t subscribe(double interval = 100) {
    ua::create_subscription_request req;
    req.requested_publishing_interval = interval;
    req.requested_max_keep_alive_count = 10;
    req.requested_lifetime_count = 100;
    req.publishing_enabled = true;
    const auto& r = call_as<ua::create_subscription_response>(req);
    REQUIRE(r.response_header.service_result == status::good);
    return r.subscription_id;
  }

  ua::monitored_item_create_result monitor_events(std::uint32_t sub, const ua::node_id& notifier,
                                                  ua::extension_object filter, std::uint32_t queue = 0,
                                                  bool discard_oldest = true, std::uint32_t client_handle = 1) {
    ua::create_monitored_items_request req;
    req.subscription_id = sub;
    req.timestamps_to_return = ua::timestamps_to_return::both;
    ua::monitored_item_create_request c;
    c.item_to_monitor.node_id = notifier;
    c.item_to_monitor.attribute_id = event_notifier_attribute;
    c.monitoring_mode = ua::monitoring_mode::reporting;
    c.requested_parameters.client_handle = client_handle;
    c.requested_parameters.queue_size = queue;
    c.requested_parameters.discard_oldest = discard_oldest;
    c.requested_parameters.filter = std::move(filter);
    req.items_to_create.push_back(std::move(c));
    auto& r = call_as<ua::create_monitored_items_response>(req);
    REQUIRE(r.results.size() == 1);
    return r.results[0];
  }
};

ua::simple_attribute_operand field(const char* name) {
  ua::simple_attribute_operand o;
  o.type_definition_id = ua::node_id(0, 2041);
  o.browse_path.push_back(ua::qualified_name{0, ua::ua_string(name)});
  o.attribute_id = 13;
  return o;
}

// Select EventType, Severity, Message, SourceName; where Severity >= min (0: no where clause).
ua::extension_object event_filter(std::int32_t min_severity = 0) {
  ua::event_filter f;
  for (const char* n : {"EventType", "Severity", "Message", "SourceName"}) f.select_clauses.push_back(field(n));
  if (min_severity > 0) {
    ua::content_filter_element e;
    e.filter_operator = op::greater_than_or_equal;
    e.filter_operands.push_back(ua::extension_object(field("Severity")));
    ua::literal_operand l;
    l.value = min_severity;
    e.filter_operands.push_back(ua::extension_object(l));
    f.where_clause.elements.push_back(std::move(e));
  }
  return ua::extension_object(std::move(f));
}

event make_event(std::uint16_t severity, const char* message, ua::node_id source = {}) {
  event e;
  e.severity = severity;
  e.message = ua::localized_text{ua::ua_string("en"), ua::ua_string(message)};
  e.source = std::move(source);
  return e;
}

std::vector<std::pair<std::uint32_t, ua::extension_object>> tick(actors::server_core& core, std::int64_t ms) {
  core.publish_tick(at(ms));
  std::vector<std::pair<std::uint32_t, ua::extension_object>> r;
  for (const auto& d : core.deferred()) {
    ua::extension_object o;
    REQUIRE(ua::decode_message(d.message.bytes(), o) == status::good);
    r.emplace_back(d.request_id, std::move(o));
  }
  core.clear_deferred();
  return r;
}

// The events of a PublishResponse: the fields of each, in order.
std::vector<ua::event_field_list> events_of(const ua::extension_object& o) {
  const auto* p = o.get_if<ua::publish_response>();
  REQUIRE(p);
  std::vector<ua::event_field_list> r;
  for (const auto& eo : p->notification_message.notification_data)
    if (const auto* l = eo.get_if<ua::event_notification_list>())
      for (const auto& e : l->events) r.push_back(e);
  return r;
}

std::string message_of(const ua::event_field_list& e) {
  REQUIRE(e.event_fields.size() == 4);
  const auto* t = e.event_fields[2].get_if<ua::localized_text>();
  REQUIRE(t);
  return std::string(t->text.view());
}

// Objects Area1 (an event notifier under the Server: HasNotifier) with Pump1 (HasEventSource), and
// Area2 (a notifier of its own).
void add_areas(actors::server_core& core) {
  auto& as = core.space();
  for (const char* name : {"Area1", "Area2", "Pump1"}) {
    ua::node_spec s;
    s.id = ua::node_id::string(1, name);
    s.cls = ua::node_class::object;
    s.browse_ns = 1;
    s.browse_name = name;
    s.event_notifier = std::string_view(name).starts_with("Area") ? 1 : 0;
    REQUIRE(as.add_node(std::move(s)));
    REQUIRE(as.add_reference(ua::node_id(0, 85), ua::node_id(0, 35), ua::node_id::string(1, name)) == status::good);
  }
  REQUIRE(as.add_reference(ua::node_id(0, server_object), ua::node_id(0, 48), ua::node_id::string(1, "Area1")) == status::good);
  REQUIRE(as.add_reference(ua::node_id(0, server_object), ua::node_id(0, 48), ua::node_id::string(1, "Area2")) == status::good);
  REQUIRE(as.add_reference(ua::node_id::string(1, "Area1"), ua::node_id(0, 36), ua::node_id::string(1, "Pump1")) == status::good);
}

}  // namespace

TEST_CASE("events: an item on the Server object gets the selected fields of each raised event", "[events]") {
  auto core = make_core();
  client c(core);
  const auto sub = c.subscribe(100);
  const auto r = c.monitor_events(sub, ua::node_id(0, server_object), event_filter());
  REQUIRE(r.status_code == status::good);
  CHECK(r.revised_sampling_interval == 0);
  CHECK(r.revised_queue_size == 1000);  // 0: the server's default
  const auto* fr = r.filter_result.get_if<ua::event_filter_result>();
  REQUIRE(fr);
  CHECK(fr->select_clause_results.size() == 4);

  CHECK_FALSE(c.publish(10));
  REQUIRE(core.raise_event(make_event(300, "first"), at(20)) == status::good);
  REQUIRE(core.raise_event(make_event(700, "second"), at(30)) == status::good);
  const auto answers = tick(core, 100);
  REQUIRE(answers.size() == 1);
  const auto events = events_of(answers[0].second);
  REQUIRE(events.size() == 2);
  CHECK(events[0].client_handle == 1);
  CHECK(events[0].event_fields[0] == ua::variant(ua::node_id(0, 2041)));
  CHECK(events[0].event_fields[1] == ua::variant(std::uint16_t{300}));
  CHECK(message_of(events[0]) == "first");
  CHECK(events[0].event_fields[3] == ua::variant(ua::ua_string("Server")));  // the source's BrowseName
  CHECK(message_of(events[1]) == "second");
}

TEST_CASE("events: the where clause keeps the events that pass it", "[events]") {
  auto core = make_core();
  client c(core);
  const auto sub = c.subscribe(100);
  REQUIRE(c.monitor_events(sub, ua::node_id(0, server_object), event_filter(500)).status_code == status::good);
  CHECK_FALSE(c.publish(10));
  for (std::uint16_t sev : {100, 500, 499, 900}) core.raise_event(make_event(sev, std::to_string(sev).c_str()), at(20));
  const auto answers = tick(core, 100);
  REQUIRE(answers.size() == 1);
  const auto events = events_of(answers[0].second);
  REQUIRE(events.size() == 2);
  CHECK(message_of(events[0]) == "500");
  CHECK(message_of(events[1]) == "900");
}

TEST_CASE("events: items that cannot be served get their codes", "[events]") {
  auto core = make_core();
  add_areas(core);
  client c(core);
  const auto sub = c.subscribe(100);
  // Pump1 is an object without SubscribeToEvents.
  CHECK(c.monitor_events(sub, ua::node_id::string(1, "Pump1"), event_filter()).status_code == status::bad_not_supported);
  // A Variable has no EventNotifier attribute.
  CHECK(c.monitor_events(sub, ua::node_id(0, 2256), event_filter()).status_code == status::bad_attribute_id_invalid);
  // No filter, a DataChangeFilter, an EventFilter without select clauses.
  CHECK(c.monitor_events(sub, ua::node_id(0, server_object), {}).status_code == status::bad_event_filter_invalid);
  CHECK(c.monitor_events(sub, ua::node_id(0, server_object), ua::extension_object(ua::data_change_filter{})).status_code ==
        status::bad_filter_not_allowed);
  CHECK(c.monitor_events(sub, ua::node_id(0, server_object), ua::extension_object(ua::event_filter{})).status_code ==
        status::bad_event_filter_invalid);
  // A where clause in error: the item fails, with the element's result.
  ua::event_filter f;
  f.select_clauses.push_back(field("Severity"));
  ua::content_filter_element self;
  self.filter_operator = op::not_;
  ua::element_operand me;
  me.index = 0;
  self.filter_operands.push_back(ua::extension_object(me));
  f.where_clause.elements.push_back(self);
  const auto bad = c.monitor_events(sub, ua::node_id(0, server_object), ua::extension_object(f));
  CHECK(bad.status_code == status::bad_event_filter_invalid);
  CHECK(bad.monitored_item_id == 0);
  const auto* fr = bad.filter_result.get_if<ua::event_filter_result>();
  REQUIRE(fr);
  REQUIRE(fr->where_clause_result.element_results.size() == 1);
  CHECK(fr->where_clause_result.element_results[0].status_code == status::bad_filter_operand_invalid);
  // An EventFilter on a Value is not allowed.
  ua::create_monitored_items_request req;
  req.subscription_id = sub;
  ua::monitored_item_create_request v;
  v.item_to_monitor.node_id = ua::node_id(0, 2258);
  v.item_to_monitor.attribute_id = 13;
  v.requested_parameters.filter = event_filter();
  req.items_to_create.push_back(v);
  const auto& vr = c.call_as<ua::create_monitored_items_response>(req);
  CHECK(vr.results[0].status_code == status::bad_filter_not_allowed);
  // An event of an unknown type or from an unknown source is refused.
  auto e = make_event(100, "x");
  e.type = ua::node_id(0, 58);
  CHECK(core.raise_event(e, at(0)) == status::bad_type_definition_invalid);
  CHECK(core.raise_event(make_event(100, "x", ua::node_id::string(1, "nowhere")), at(0)) == status::bad_node_id_unknown);
}

TEST_CASE("events: an event reaches the notifiers above its source, not the others", "[events]") {
  auto core = make_core();
  add_areas(core);
  client c(core);
  const auto sub = c.subscribe(100);
  REQUIRE(c.monitor_events(sub, ua::node_id(0, server_object), event_filter(), 0, true, 1).status_code == status::good);
  REQUIRE(c.monitor_events(sub, ua::node_id::string(1, "Area1"), event_filter(), 0, true, 2).status_code == status::good);
  REQUIRE(c.monitor_events(sub, ua::node_id::string(1, "Area2"), event_filter(), 0, true, 3).status_code == status::good);
  CHECK_FALSE(c.publish(10));
  core.raise_event(make_event(100, "pump", ua::node_id::string(1, "Pump1")), at(20));
  core.raise_event(make_event(100, "area2", ua::node_id::string(1, "Area2")), at(20));
  const auto answers = tick(core, 100);
  REQUIRE(answers.size() == 1);
  std::vector<std::pair<std::uint32_t, std::string>> got;
  for (const auto& e : events_of(answers[0].second)) got.emplace_back(e.client_handle, message_of(e));
  std::sort(got.begin(), got.end());
  const std::vector<std::pair<std::uint32_t, std::string>> want{{1, "area2"}, {1, "pump"}, {2, "pump"}, {3, "area2"}};
  CHECK(got == want);
}

TEST_CASE("events: a full queue yields the EventQueueOverflow event, first when the oldest go, last otherwise",
          "[events]") {
  for (const bool discard_oldest : {true, false}) {
    CAPTURE(discard_oldest);
    auto core = make_core();
    client c(core);
    const auto sub = c.subscribe(100);
    REQUIRE(c.monitor_events(sub, ua::node_id(0, server_object), event_filter(), 3, discard_oldest).status_code ==
            status::good);
    CHECK_FALSE(c.publish(10));
    for (int i = 1; i <= 5; ++i) core.raise_event(make_event(100, std::to_string(i).c_str()), at(20));
    const auto answers = tick(core, 100);
    REQUIRE(answers.size() == 1);
    const auto events = events_of(answers[0].second);
    REQUIRE(events.size() == 4);
    std::vector<std::string> messages;
    for (const auto& e : events) messages.push_back(message_of(e));
    const auto overflow = discard_oldest ? events.front() : events.back();
    CHECK(overflow.event_fields[0] == ua::variant(ua::node_id(0, 3035)));  // EventQueueOverflowEventType
    if (discard_oldest) CHECK(messages == std::vector<std::string>{"Event queue overflow", "3", "4", "5"});
    else CHECK(messages == std::vector<std::string>{"1", "2", "3", "Event queue overflow"});
    // One overflow event per overflow: the next cycle starts clean.
    CHECK_FALSE(c.publish(110));
    core.raise_event(make_event(100, "6"), at(120));
    const auto next = tick(core, 200);
    REQUIRE(next.size() == 1);
    const auto later = events_of(next[0].second);
    REQUIRE(later.size() == 1);
    CHECK(message_of(later[0]) == "6");
  }
}

TEST_CASE("events: a disabled item drops events, Modify replaces the where clause, Delete stops them", "[events]") {
  auto core = make_core();
  client c(core);
  const auto sub = c.subscribe(100);
  const auto r = c.monitor_events(sub, ua::node_id(0, server_object), event_filter());
  REQUIRE(r.status_code == status::good);

  ua::set_monitoring_mode_request mode;
  mode.subscription_id = sub;
  mode.monitoring_mode = ua::monitoring_mode::disabled;
  mode.monitored_item_ids.push_back(r.monitored_item_id);
  REQUIRE(c.call_as<ua::set_monitoring_mode_response>(mode).results[0] == status::good);
  core.raise_event(make_event(100, "dropped"), at(20));
  mode.monitoring_mode = ua::monitoring_mode::reporting;
  REQUIRE(c.call_as<ua::set_monitoring_mode_response>(mode).results[0] == status::good);

  ua::modify_monitored_items_request modify;
  modify.subscription_id = sub;
  ua::monitored_item_modify_request m;
  m.monitored_item_id = r.monitored_item_id;
  m.requested_parameters.client_handle = 9;
  m.requested_parameters.queue_size = 10;
  m.requested_parameters.filter = event_filter(800);
  modify.items_to_modify.push_back(m);
  const auto& mr = c.call_as<ua::modify_monitored_items_response>(modify);
  REQUIRE(mr.results[0].status_code == status::good);
  CHECK(mr.results[0].revised_queue_size == 10);
  CHECK(mr.results[0].filter_result.get_if<ua::event_filter_result>());

  CHECK_FALSE(c.publish(30));
  core.raise_event(make_event(100, "low"), at(40));
  core.raise_event(make_event(900, "high"), at(40));
  auto answers = tick(core, 100);
  REQUIRE(answers.size() == 1);
  auto events = events_of(answers[0].second);
  REQUIRE(events.size() == 1);
  CHECK(events[0].client_handle == 9);
  CHECK(message_of(events[0]) == "high");

  ua::delete_monitored_items_request del;
  del.subscription_id = sub;
  del.monitored_item_ids.push_back(r.monitored_item_id);
  REQUIRE(c.call_as<ua::delete_monitored_items_response>(del).results[0] == status::good);
  CHECK(core.raise_event(make_event(900, "gone"), at(150)) == status::good);
}

TEST_CASE("events: raised, filtered, fanned out to 20 items and published allocates nothing in steady state",
          "[events]") {
  // Bursts of one size, and of changing sizes (a recycled message then has more or fewer events
  // than before: the field storage of the ones it drops is kept for the next longer one).
  const bool varying = GENERATE(false, true);
  INFO((varying ? "bursts of 10, 4 and 16 events" : "bursts of 10 events"));
  auto core = make_core();
  client c(core);
  const auto sub = c.subscribe(100);
  for (std::uint32_t i = 0; i < 20; ++i)
    REQUIRE(c.monitor_events(sub, ua::node_id(0, server_object), event_filter(300), 100, true, i).status_code ==
            status::good);
  std::int64_t t = 0;
  std::uint32_t acked = 0;
  const auto low = make_event(100, "pump tripped");
  const auto high = make_event(700, "pump tripped");
  std::uint64_t used = 0;  // in raise_event and the publishing cycle (not in building the requests)
  const auto cycle = [&] {
    std::vector<ua::subscription_acknowledgement> acks;
    if (acked) acks.push_back({sub, acked});
    CHECK_FALSE(c.publish(t + 1, acks));
    const auto before = test::thread_alloc_counts().allocations;
    const int burst = varying ? (t / 100 % 3 == 0 ? 10 : t / 100 % 3 == 1 ? 4 : 16) : 10;
    for (int i = 0; i < burst; ++i) core.raise_event(i % 2 ? high : low, at(t + 2));
    t += 100;
    core.publish_tick(at(t));
    used += test::thread_alloc_counts().allocations - before;
    REQUIRE(core.deferred().size() == 1);
    core.clear_deferred();
    acked = static_cast<std::uint32_t>(t / 100);
  };
  for (int i = 0; i < 30; ++i) cycle();  // warm: queues, messages, the retransmission queue
  used = 0;
  for (int i = 0; i < 20; ++i) cycle();
  if (test::counts_allocations) CHECK(used == 0);
}

// ---------------------------------------------------------------------------------------------
// Alarms and conditions (Part 9)

namespace {

const ua::node_id alarm_id = ua::node_id::string(1, "Alarm.Double");
const ua::node_id alarm_input = ua::node_id::string(1, "Demo.Static.Scalar.Double");

limit_alarm tank_alarm() {
  limit_alarm a;
  a.id = alarm_id;
  a.input = alarm_input;
  a.name = "TankLevel";
  a.high_high = 90;
  a.high = 70;
  a.low = 20;
  a.low_low = 10;
  a.deadband = 2;
  return a;
}

// EventId, EventType, ConditionId, Severity, ActiveState/Id, AckedState/Id, ConfirmedState/Id,
// Retain, LimitState/CurrentState, Message; where OfType(AlarmConditionType) when `alarms_only`.
ua::extension_object alarm_filter(bool alarms_only = false) {
  ua::event_filter f;
  f.select_clauses.push_back(field("EventId"));
  f.select_clauses.push_back(field("EventType"));
  f.select_clauses.push_back(test::event_field(2782, {}, 1));  // ConditionId
  f.select_clauses.push_back(field("Severity"));
  f.select_clauses.push_back(test::event_field(2915, {"ActiveState", "Id"}));
  f.select_clauses.push_back(test::event_field(2881, {"AckedState", "Id"}));
  f.select_clauses.push_back(test::event_field(2881, {"ConfirmedState", "Id"}));
  f.select_clauses.push_back(test::event_field(2782, {"Retain"}));
  f.select_clauses.push_back(test::event_field(9341, {"LimitState", "CurrentState"}));
  f.select_clauses.push_back(field("Message"));
  if (alarms_only) {
    ua::content_filter_element e;
    e.filter_operator = op::of_type;
    ua::literal_operand l;
    l.value = ua::node_id(0, 2915);
    e.filter_operands.push_back(ua::extension_object(l));
    f.where_clause.elements.push_back(std::move(e));
  }
  return ua::extension_object(std::move(f));
}

struct alarm_event {
  ua::byte_string event_id;
  ua::node_id type;
  ua::node_id condition;
  std::uint16_t severity = 0;
  bool active = false, acked = false, confirmed = false, retain = false;
  std::string limit;
};

alarm_event as_alarm(const ua::event_field_list& e) {
  REQUIRE(e.event_fields.size() == 10);
  alarm_event a;
  if (const auto* b = e.event_fields[0].get_if<ua::byte_string>()) a.event_id = *b;
  if (const auto* t = e.event_fields[1].get_if<ua::node_id>()) a.type = *t;
  if (const auto* c = e.event_fields[2].get_if<ua::node_id>()) a.condition = *c;
  if (const auto* s = e.event_fields[3].get_if<std::uint16_t>()) a.severity = *s;
  const auto flag = [&](std::size_t i) {
    const bool* b = e.event_fields[i].get_if<bool>();
    return b && *b;
  };
  a.active = flag(4);
  a.acked = flag(5);
  a.confirmed = flag(6);
  a.retain = flag(7);
  if (const auto* l = e.event_fields[8].get_if<ua::localized_text>()) a.limit = std::string(l->text.view());
  return a;
}

std::vector<alarm_event> alarm_events(client& c, actors::server_core& core, std::int64_t& t) {
  CHECK_FALSE(c.publish(t + 1));
  t += 100;
  const auto answers = tick(core, t);
  std::vector<alarm_event> r;
  if (answers.empty()) return r;
  REQUIRE(answers.size() == 1);
  for (const auto& e : events_of(answers[0].second)) r.push_back(as_alarm(e));
  return r;
}

ua::call_method_result call_method(client& c, const ua::node_id& object, std::uint32_t method,
                                   std::vector<ua::variant> inputs) {
  ua::call_request req;
  ua::call_method_request m;
  m.object_id = object;
  m.method_id = ua::node_id(0, method);
  m.input_arguments = {inputs.begin(), inputs.end()};
  req.methods_to_call.push_back(std::move(m));
  auto& r = c.call_as<ua::call_response>(req);
  REQUIRE(r.results.size() == 1);
  return r.results[0];
}

constexpr std::uint32_t acknowledge = 9111, confirm = 9113, enable = 9027, disable = 9028, add_comment = 9029,
                        condition_refresh = 3875;

ua::localized_text comment(const char* s) { return {ua::ua_string("en"), ua::ua_string(s)}; }

}  // namespace

TEST_CASE("alarms: a limit alarm goes through High, HighHigh and back with its deadband, each transition an event",
          "[events][alarms]") {
  auto core = make_core();
  client c(core);
  const auto sub = c.subscribe(100);
  REQUIRE(c.monitor_events(sub, ua::node_id(0, server_object), alarm_filter(true)).status_code == status::good);
  test::apply_value(core, alarm_input, 50, 0);
  REQUIRE(core.add_limit_alarm(tank_alarm(), at(0)) == status::good);
  std::int64_t t = 0;
  auto first = alarm_events(c, core, t);
  REQUIRE(first.size() == 1);  // its first state: normal
  CHECK_FALSE(first[0].active);
  CHECK(first[0].type == ua::node_id(0, 9341));
  CHECK_FALSE(first[0].retain);

  const std::vector<std::pair<double, const char*>> steps{{75, "High"},     {95, "HighHigh"}, {89, "HighHigh"},
                                                          {87, "High"},     {69, "High"},     {60, ""},
                                                          {15, "Low"},      {5, "LowLow"},    {11, "LowLow"},
                                                          {13, "Low"},      {25, ""}};
  std::vector<std::string> seen;
  for (const auto& [v, want] : steps) {
    test::apply_value(core, alarm_input, v, t + 2);
    for (const auto& e : alarm_events(c, core, t)) seen.push_back(e.limit + (e.active ? "+" : "-"));
  }
  // Low while the normal state before it is unacknowledged: that state becomes a branch (Part 9
  // §5.5.2, its event the second "-"), then the trunk's Low.
  const std::vector<std::string> want{"High+", "HighHigh+", "High+", "-", "-", "Low+", "LowLow+", "Low+", "-"};
  CHECK(seen == want);
}

TEST_CASE("alarms: each limit leaves its state by its own deadband (Part 9 1.05 HighDeadband ...), and says so as "
          "properties",
          "[events][alarms]") {
  auto core = make_core();
  client c(core);
  const auto sub = c.subscribe(100);
  REQUIRE(c.monitor_events(sub, ua::node_id(0, server_object), alarm_filter(true)).status_code == status::good);
  test::apply_value(core, alarm_input, 50, 0);
  auto a = tank_alarm();  // HighHigh 90, High 70, Low 20, LowLow 10, deadband 2
  a.high_deadband = 5;    // High ends below 65
  a.low_low_deadband = 0; // LowLow ends at 10 itself
  a.severity_high = 650;
  REQUIRE(core.add_limit_alarm(a, at(0)) == status::good);
  std::int64_t t = 0;
  REQUIRE(alarm_events(c, core, t).size() == 1);  // its first state: normal
  const std::vector<std::pair<double, const char*>> steps{
      {75, "High"},  {66, "High"},  {64.9, ""},     // High's own 5
      {95, "HighHigh"}, {88.5, "HighHigh"}, {87.9, "High"},  // HighHigh's the alarm's 2
      {60, ""},      {5, "LowLow"}, {10.5, "Low"},  // LowLow's 0: out as soon as above 10
      {21.9, "Low"}, {22.1, ""}};                   // Low's the alarm's 2
  std::vector<std::string> seen;
  for (const auto& [v, want] : steps) {
    test::apply_value(core, alarm_input, v, t + 2);
    for (const auto& e : alarm_events(c, core, t)) seen.push_back(e.limit + (e.active ? "+" : "-"));
  }
  // A normal state left unacknowledged becomes a branch when the alarm comes back (its "-" before
  // the trunk's new state).
  const std::vector<std::string> want{"High+", "-", "-", "HighHigh+", "High+", "-", "-", "LowLow+", "Low+", "-"};
  CHECK(seen == want);
  // The definition as properties of the condition (1.05 LimitAlarmType): each limit's severity, and
  // the deadband of each limit that has one.
  const auto read = [&](const char* path) {
    ua::read_request req;
    ua::read_value_id id;
    id.node_id = ua::node_id::string(1, std::string(alarm_id.text()) + "." + path);
    id.attribute_id = 13;
    req.nodes_to_read.push_back(id);
    const auto& r = c.call_as<ua::read_response>(req);
    REQUIRE(r.results.size() == 1);
    return r.results[0];
  };
  CHECK(read("HighDeadband").value == ua::variant(5.0));
  CHECK(read("HighHighDeadband").value == ua::variant(2.0));
  CHECK(read("LowDeadband").value == ua::variant(2.0));
  CHECK(read("LowLowDeadband").status == status::bad_node_id_unknown);  // none: not there
  CHECK(read("SeverityHigh").value == ua::variant(std::uint16_t{650}));
  CHECK(read("SeverityHighHigh").value == ua::variant(std::uint16_t{900}));
  CHECK(read("SeverityLowLow").value == ua::variant(std::uint16_t{900}));
}

TEST_CASE("alarms: a limit's deadband for a limit the alarm lacks, or one reaching the next limit inward, is refused",
          "[events][alarms]") {
  auto core = make_core();
  auto a = tank_alarm();
  a.id = ua::node_id::string(1, "Alarm.Deadbands");
  a.high_high = std::nullopt;
  a.high_high_deadband = 1;  // no HighHigh
  CHECK(core.add_limit_alarm(a, at(0)) == status::bad_invalid_argument);
  a.high_high_deadband = std::nullopt;
  a.high_deadband = 50;  // 70 - 50 = 20: reaches Low (Part 9 §5.8.18: HighLimit - HighDeadband > LowLimit)
  CHECK(core.add_limit_alarm(a, at(0)) == status::bad_invalid_argument);
  a.high_deadband = 49.9;
  a.low_low_deadband = 10;  // 10 + 10 = 20: reaches Low
  CHECK(core.add_limit_alarm(a, at(0)) == status::bad_invalid_argument);
  a.low_low_deadband = -1;
  CHECK(core.add_limit_alarm(a, at(0)) == status::bad_invalid_argument);
  a.low_low_deadband = 9.9;
  CHECK(core.add_limit_alarm(a, at(0)) == status::good);
}

TEST_CASE("alarms: Acknowledge and Confirm with the EventId and a comment, with their Bad_ codes", "[events][alarms]") {
  auto core = make_core();
  client c(core);
  const auto sub = c.subscribe(100);
  REQUIRE(c.monitor_events(sub, ua::node_id(0, server_object), alarm_filter()).status_code == status::good);
  test::apply_value(core, alarm_input, 50, 0);
  REQUIRE(core.add_limit_alarm(tank_alarm(), at(0)) == status::good);
  std::int64_t t = 0;
  alarm_events(c, core, t);
  test::apply_value(core, alarm_input, 80, t + 2);
  auto events = alarm_events(c, core, t);
  REQUIRE(events.size() == 1);
  const auto high = events[0];
  CHECK(high.active);
  CHECK_FALSE(high.acked);
  CHECK(high.retain);
  CHECK(high.severity == 700);
  CHECK(high.condition == alarm_id);

  // Confirm before Acknowledge: nothing to confirm yet.
  CHECK(call_method(c, alarm_id, confirm, {high.event_id, comment("early")}).status_code ==
        status::bad_condition_branch_already_confirmed);
  CHECK(call_method(c, alarm_id, acknowledge, {ua::byte_string("not an event"), comment("x")}).status_code ==
        status::bad_event_id_unknown);
  CHECK(call_method(c, alarm_id, acknowledge, {high.event_id}).status_code == status::bad_arguments_missing);
  const auto typed = call_method(c, alarm_id, acknowledge, {ua::ua_string("text"), comment("x")});
  CHECK(typed.status_code == status::bad_invalid_argument);
  REQUIRE(typed.input_argument_results.size() == 2);
  CHECK(typed.input_argument_results[0] == status::bad_type_mismatch);
  CHECK(typed.input_argument_results[1] == status::good);
  CHECK(call_method(c, ua::node_id::string(1, "no.such.alarm"), acknowledge, {high.event_id, comment("x")}).status_code ==
        status::bad_node_id_unknown);
  CHECK(call_method(c, alarm_input, acknowledge, {high.event_id, comment("x")}).status_code == status::bad_method_invalid);

  CHECK(call_method(c, alarm_id, acknowledge, {high.event_id, comment("seen it")}).status_code == status::good);
  events = alarm_events(c, core, t);
  REQUIRE(events.size() == 1);
  CHECK(events[0].acked);
  CHECK_FALSE(events[0].confirmed);
  CHECK(events[0].retain);
  CHECK_FALSE(events[0].event_id == high.event_id);  // a new state, a new EventId
  // The old EventId no longer names the latest state.
  CHECK(call_method(c, alarm_id, acknowledge, {high.event_id, comment("again")}).status_code == status::bad_event_id_unknown);
  CHECK(call_method(c, alarm_id, acknowledge, {events[0].event_id, comment("again")}).status_code ==
        status::bad_condition_branch_already_acked);
  CHECK(call_method(c, alarm_id, confirm, {events[0].event_id, comment("fixed")}).status_code == status::good);
  events = alarm_events(c, core, t);
  REQUIRE(events.size() == 1);
  CHECK(events[0].confirmed);
  CHECK(events[0].retain);  // still active
  CHECK(call_method(c, alarm_id, confirm, {events[0].event_id, comment("again")}).status_code ==
        status::bad_condition_branch_already_confirmed);
  CHECK(call_method(c, alarm_id, add_comment, {events[0].event_id, comment("note")}).status_code == status::good);
  events = alarm_events(c, core, t);
  REQUIRE(events.size() == 1);
  test::apply_value(core, alarm_input, 50, t + 2);
  events = alarm_events(c, core, t);
  REQUIRE(events.size() == 1);
  CHECK_FALSE(events[0].active);
  CHECK_FALSE(events[0].retain);  // inactive, acknowledged, confirmed: nothing left to do
}

TEST_CASE("alarms: Disable and Enable, and what a disabled alarm refuses", "[events][alarms]") {
  auto core = make_core();
  client c(core);
  const auto sub = c.subscribe(100);
  REQUIRE(c.monitor_events(sub, ua::node_id(0, server_object), alarm_filter()).status_code == status::good);
  test::apply_value(core, alarm_input, 80, 0);
  REQUIRE(core.add_limit_alarm(tank_alarm(), at(0)) == status::good);
  std::int64_t t = 0;
  auto events = alarm_events(c, core, t);
  REQUIRE(events.size() == 2);  // normal at definition, then High from the current value
  CHECK(call_method(c, alarm_id, enable, {}).status_code == status::bad_condition_already_enabled);
  CHECK(call_method(c, alarm_id, disable, {}).status_code == status::good);
  CHECK(call_method(c, alarm_id, disable, {}).status_code == status::bad_condition_already_disabled);
  events = alarm_events(c, core, t);
  REQUIRE(events.size() == 1);
  CHECK_FALSE(events[0].retain);  // §5.5.2: a disabled condition is not retained
  CHECK(call_method(c, alarm_id, acknowledge, {events[0].event_id, comment("x")}).status_code ==
        status::bad_condition_disabled);
  test::apply_value(core, alarm_input, 95, t + 2);  // tracked, not reported while disabled
  CHECK(alarm_events(c, core, t).empty());
  CHECK(call_method(c, alarm_id, enable, {}).status_code == status::good);
  events = alarm_events(c, core, t);
  REQUIRE(events.size() == 1);
  CHECK(events[0].limit == "HighHigh");
  CHECK(events[0].retain);
}

TEST_CASE("alarms: ConditionRefresh sends RefreshStart, the retained conditions and RefreshEnd to that subscription",
          "[events][alarms]") {
  auto core = make_core();
  client c(core);
  client other(core);
  const auto sub = c.subscribe(100);
  const auto other_sub = other.subscribe(100);
  REQUIRE(c.monitor_events(sub, ua::node_id(0, server_object), alarm_filter(true)).status_code == status::good);
  REQUIRE(other.monitor_events(other_sub, ua::node_id(0, server_object), alarm_filter()).status_code == status::good);
  test::apply_value(core, alarm_input, 50, 0);
  REQUIRE(core.add_limit_alarm(tank_alarm(), at(0)) == status::good);
  auto second = tank_alarm();
  second.id = ua::node_id::string(1, "Alarm.Quiet");
  second.name = "Quiet";
  REQUIRE(core.add_limit_alarm(second, at(0)) == status::good);
  test::apply_value(core, alarm_input, 80, 2);  // both alarms watch the same input: both go High
  std::int64_t t = 0;
  REQUIRE(alarm_events(c, core, t).size() == 4);
  CHECK(call_method(c, ua::node_id(0, 2782), condition_refresh, {other_sub}).status_code ==
        status::bad_subscription_id_invalid);
  CHECK(call_method(c, ua::node_id(0, 2782), condition_refresh, {std::int32_t{1}}).status_code == status::bad_invalid_argument);
  CHECK(call_method(c, ua::node_id(0, 2782), condition_refresh, {sub}).status_code == status::good);
  CHECK_FALSE(c.publish(t + 1));
  t += 100;
  const auto answers = tick(core, t);
  REQUIRE(answers.size() == 1);  // nothing for the other session
  const auto events = events_of(answers[0].second);
  REQUIRE(events.size() == 4);
  // RefreshStart and RefreshEnd pass the OfType(AlarmConditionType) where clause (Part 9 §5.5.7).
  CHECK(events[0].event_fields[1] == ua::variant(ua::node_id(0, 2787)));
  CHECK(as_alarm(events[1]).limit == "High");
  CHECK(as_alarm(events[2]).limit == "High");
  CHECK(events[3].event_fields[1] == ua::variant(ua::node_id(0, 2788)));
  // The other session got the transitions, not the refresh.
  // Its subscription is late (no Publish so far): answered at once.
  REQUIRE(other.publish(t + 1));
  const auto theirs = events_of(other.response);
  CHECK(theirs.size() == 4);
  for (const auto& e : theirs) CHECK(e.event_fields[1] == ua::variant(ua::node_id(0, 9341)));
}

TEST_CASE("alarms: definitions the server refuses", "[events][alarms]") {
  auto core = make_core();
  CHECK(core.add_limit_alarm(tank_alarm(), at(0)) == status::good);
  CHECK(core.add_limit_alarm(tank_alarm(), at(0)) == status::bad_node_id_exists);
  auto a = tank_alarm();
  a.id = ua::node_id::string(1, "Alarm.B");
  a.input = ua::node_id::string(1, "nowhere");
  CHECK(core.add_limit_alarm(a, at(0)) == status::bad_node_id_unknown);
  a.input = ua::node_id(0, server_object);
  CHECK(core.add_limit_alarm(a, at(0)) == status::bad_node_class_invalid);
  a.input = alarm_input;
  a.high = 95;  // above HighHigh
  CHECK(core.add_limit_alarm(a, at(0)) == status::bad_invalid_argument);
  a.high = 70;
  a.deadband = -1;
  CHECK(core.add_limit_alarm(a, at(0)) == status::bad_invalid_argument);
  a.deadband = 0;
  a.high_high = a.high = a.low = a.low_low = std::nullopt;
  CHECK(core.add_limit_alarm(a, at(0)) == status::bad_invalid_argument);
}

namespace {

const ua::node_id trip_id = ua::node_id::string(1, "Alarm.Trip");
const ua::node_id trip_input = ua::node_id::string(1, "Demo.Static.Scalar.Boolean");

off_normal_alarm trip_alarm() {
  off_normal_alarm a;
  a.id = trip_id;
  a.input = trip_input;
  a.name = "PumpTrip";
  a.normal = false;
  a.severity = 800;
  return a;
}

void set_input(actors::server_core& core, const ua::node_id& node, ua::variant v, std::int64_t ms) {
  value_update u;
  u.node.index = core.space().find(node);
  u.value = std::move(v);
  REQUIRE(core.apply_values(std::span(&u, 1), at(ms)) == 0);
}

}  // namespace

TEST_CASE("alarms: an off-normal alarm is active while its input is not the normal value, with the limit alarms' methods",
          "[events][alarms]") {
  auto core = make_core();
  client c(core);
  const auto sub = c.subscribe(100);
  REQUIRE(c.monitor_events(sub, ua::node_id(0, server_object), alarm_filter(true)).status_code == status::good);
  set_input(core, trip_input, false, 0);
  REQUIRE(core.add_off_normal_alarm(trip_alarm(), at(0)) == status::good);
  std::int64_t t = 0;
  auto events = alarm_events(c, core, t);
  REQUIRE(events.size() == 1);  // its first state: normal
  CHECK(events[0].type == ua::node_id(0, 10637));
  CHECK(events[0].condition == trip_id);
  CHECK_FALSE(events[0].active);
  CHECK(events[0].limit.empty());  // no LimitState in an OffNormalAlarmType event

  set_input(core, trip_input, true, t + 2);
  events = alarm_events(c, core, t);
  REQUIRE(events.size() == 1);
  const auto tripped = events[0];
  CHECK(tripped.active);
  CHECK_FALSE(tripped.acked);
  CHECK(tripped.retain);
  CHECK(tripped.severity == 800);
  set_input(core, trip_input, true, t + 2);  // the same value again: no transition
  CHECK(alarm_events(c, core, t).empty());

  CHECK(call_method(c, trip_id, confirm, {tripped.event_id, comment("early")}).status_code ==
        status::bad_condition_branch_already_confirmed);
  CHECK(call_method(c, trip_id, acknowledge, {tripped.event_id, comment("on my way")}).status_code == status::good);
  events = alarm_events(c, core, t);
  REQUIRE(events.size() == 1);
  CHECK(events[0].acked);
  CHECK_FALSE(events[0].confirmed);
  CHECK(call_method(c, trip_id, confirm, {events[0].event_id, comment("reset")}).status_code == status::good);
  events = alarm_events(c, core, t);
  REQUIRE(events.size() == 1);
  CHECK(events[0].retain);  // still active

  // ConditionRefresh sends it between the markers, with the EventId of its latest state.
  CHECK(call_method(c, ua::node_id(0, 2782), condition_refresh, {sub}).status_code == status::good);
  auto refreshed = alarm_events(c, core, t);
  REQUIRE(refreshed.size() == 3);
  CHECK(refreshed[1].event_id == events[0].event_id);
  CHECK(refreshed[1].type == ua::node_id(0, 10637));

  CHECK(call_method(c, trip_id, disable, {}).status_code == status::good);
  CHECK(call_method(c, trip_id, disable, {}).status_code == status::bad_condition_already_disabled);
  events = alarm_events(c, core, t);
  REQUIRE(events.size() == 1);
  CHECK_FALSE(events[0].retain);
  set_input(core, trip_input, false, t + 2);  // tracked, not reported while disabled
  CHECK(alarm_events(c, core, t).empty());
  CHECK(call_method(c, trip_id, enable, {}).status_code == status::good);
  events = alarm_events(c, core, t);
  REQUIRE(events.size() == 1);
  CHECK_FALSE(events[0].active);
  CHECK_FALSE(events[0].retain);
}

TEST_CASE("alarms: an off-normal alarm on a number compares it with a numeric normal value", "[events][alarms]") {
  auto core = make_core();
  client c(core);
  const auto sub = c.subscribe(100);
  REQUIRE(c.monitor_events(sub, ua::node_id(0, server_object), alarm_filter(true)).status_code == status::good);
  set_input(core, alarm_input, 2.0, 0);
  auto a = trip_alarm();
  a.input = alarm_input;
  a.normal = std::int32_t{2};
  REQUIRE(core.add_off_normal_alarm(a, at(0)) == status::good);
  std::int64_t t = 0;
  REQUIRE(alarm_events(c, core, t).size() == 1);
  std::vector<bool> seen;
  for (const double v : {3.0, 4.0, 2.0, 2.5, 2.0}) {
    set_input(core, alarm_input, v, t + 2);
    for (const auto& e : alarm_events(c, core, t)) seen.push_back(e.active);
  }
  // Active again while the normal state is unacknowledged: a branch of that state first (§5.5.2).
  CHECK(seen == std::vector<bool>{true, false, false, true, false});
}

TEST_CASE("alarms: off-normal definitions the server refuses", "[events][alarms]") {
  auto core = make_core();
  REQUIRE(core.add_off_normal_alarm(trip_alarm(), at(0)) == status::good);
  CHECK(core.add_off_normal_alarm(trip_alarm(), at(0)) == status::bad_node_id_exists);
  auto a = trip_alarm();
  a.id = ua::node_id::string(1, "Alarm.Other");
  a.normal = ua::ua_string("closed");
  CHECK(core.add_off_normal_alarm(a, at(0)) == status::bad_invalid_argument);
  a.normal = std::nan("");
  CHECK(core.add_off_normal_alarm(a, at(0)) == status::bad_invalid_argument);
  a.normal = true;
  a.name.clear();
  CHECK(core.add_off_normal_alarm(a, at(0)) == status::bad_invalid_argument);
  a.name = "Other";
  a.input = ua::node_id(0, server_object);
  CHECK(core.add_off_normal_alarm(a, at(0)) == status::bad_node_class_invalid);
  a.input = ua::node_id::string(1, "nowhere");
  CHECK(core.add_off_normal_alarm(a, at(0)) == status::bad_node_id_unknown);
}

// ---------------------------------------------------------------------------------------------
// NonExclusiveLimitAlarmType (Part 9 §5.8.20) and DiscreteAlarmType (§5.8.24.1)

namespace {

// EventType, ActiveState/Id, AckedState/Id, Severity, then HighHighState/Id, HighState/Id,
// LowState/Id, LowLowState/Id of NonExclusiveLimitAlarmType, EventId.
ua::extension_object non_exclusive_filter() {
  ua::event_filter f;
  f.select_clauses.push_back(field("EventType"));
  f.select_clauses.push_back(test::event_field(2915, {"ActiveState", "Id"}));
  f.select_clauses.push_back(test::event_field(2881, {"AckedState", "Id"}));
  f.select_clauses.push_back(field("Severity"));
  for (const char* state : {"HighHighState", "HighState", "LowState", "LowLowState"})
    f.select_clauses.push_back(test::event_field(9906, {state, "Id"}));
  f.select_clauses.push_back(field("EventId"));
  ua::content_filter_element e;
  e.filter_operator = op::of_type;
  ua::literal_operand l;
  l.value = ua::node_id(0, 2915);
  e.filter_operands.push_back(ua::extension_object(l));
  f.where_clause.elements.push_back(std::move(e));
  return ua::extension_object(std::move(f));
}

// "HH H L LL" as each state is (1 active, 0 inactive, - the limit is not defined), the severity,
// "+" active, "!" unacknowledged.
std::string states_of(const ua::event_field_list& e) {
  REQUIRE(e.event_fields.size() == 9);
  std::string out;
  for (std::size_t i = 4; i < 8; ++i) {
    const bool* b = e.event_fields[i].get_if<bool>();
    out += b ? (*b ? '1' : '0') : '-';
  }
  const auto* sev = e.event_fields[3].get_if<std::uint16_t>();
  out += " " + std::to_string(sev ? *sev : 0);
  const bool* active = e.event_fields[1].get_if<bool>();
  const bool* acked = e.event_fields[2].get_if<bool>();
  if (active && *active) out += "+";
  if (acked && !*acked) out += "!";
  return out;
}

std::vector<ua::event_field_list> published_events(client& c, actors::server_core& core, std::int64_t& t) {
  CHECK_FALSE(c.publish(t + 1));
  t += 100;
  const auto answers = tick(core, t);
  if (answers.empty()) return {};
  REQUIRE(answers.size() == 1);
  return events_of(answers[0].second);
}

}  // namespace

TEST_CASE("alarms: a non-exclusive limit alarm has a state per limit, HighHigh and High active at once",
          "[events][alarms]") {
  auto core = make_core();
  client c(core);
  const auto sub = c.subscribe(100);
  REQUIRE(c.monitor_events(sub, ua::node_id(0, server_object), non_exclusive_filter()).status_code == status::good);
  test::apply_value(core, alarm_input, 50, 0);
  auto a = tank_alarm();
  a.exclusive = false;
  a.low_low = std::nullopt;  // a limit it does not have: its state stays null
  REQUIRE(core.add_limit_alarm(a, at(0)) == status::good);
  std::int64_t t = 0;
  auto first = published_events(c, core, t);
  REQUIRE(first.size() == 1);
  CHECK(first[0].event_fields[0] == ua::variant(ua::node_id(0, 9906)));  // NonExclusiveLimitAlarmType
  CHECK(states_of(first[0]) == "000- 1");

  // Deadband 2: a state ends only when the value is back by more than 2.
  std::vector<std::string> seen;
  for (const double v : {75.0, 95.0, 89.0, 87.0, 69.0, 67.0, 15.0, 21.0, 23.0}) {
    test::apply_value(core, alarm_input, v, t + 2);
    for (const auto& e : published_events(c, core, t)) seen.push_back(states_of(e));
  }
  // Back to normal unacknowledged: still "!" (Part 9 §5.7.2, the operator has not seen it yet); Low
  // after it keeps that normal state as a branch (§5.5.2: the second "000- 1!").
  const std::vector<std::string> want{"010- 700+!", "110- 900+!", "010- 700+!", "000- 1!", "000- 1!", "001- 700+!", "000- 1!"};
  CHECK(seen == want);

  // Acknowledged in High; HighHigh newly active wants a new acknowledgement, leaving it for High
  // (a state ending) does not.
  const ua::node_id condition = a.id;
  test::apply_value(core, alarm_input, 75, t + 2);
  auto up = published_events(c, core, t);
  REQUIRE(up.size() == 2);  // the unacknowledged normal state as a branch, then the trunk's High
  const auto* id = up[1].event_fields[8].get_if<ua::byte_string>();
  REQUIRE(id);
  CHECK(call_method(c, condition, acknowledge, {*id, comment("seen")}).status_code == status::good);
  seen.clear();
  for (const auto& e : published_events(c, core, t)) seen.push_back(states_of(e));
  for (const double v : {95.0, 80.0}) {
    test::apply_value(core, alarm_input, v, t + 2);
    for (const auto& e : published_events(c, core, t)) seen.push_back(states_of(e));
  }
  CHECK(seen == std::vector<std::string>{"010- 700+", "110- 900+!", "010- 700+!"});
}

TEST_CASE("alarms: a discrete alarm is active while its input is the alarm value", "[events][alarms]") {
  auto core = make_core();
  client c(core);
  const auto sub = c.subscribe(100);
  REQUIRE(c.monitor_events(sub, ua::node_id(0, server_object), alarm_filter(true)).status_code == status::good);
  set_input(core, trip_input, false, 0);
  discrete_alarm d;
  d.id = trip_id;
  d.input = trip_input;
  d.name = "PumpRunningDry";
  d.active = true;
  d.severity = 650;
  REQUIRE(core.add_discrete_alarm(d, at(0)) == status::good);
  std::int64_t t = 0;
  auto events = alarm_events(c, core, t);
  REQUIRE(events.size() == 1);
  CHECK(events[0].type == ua::node_id(0, 10523));  // DiscreteAlarmType
  CHECK_FALSE(events[0].active);
  set_input(core, trip_input, true, t + 2);
  events = alarm_events(c, core, t);
  REQUIRE(events.size() == 1);
  CHECK(events[0].active);
  CHECK_FALSE(events[0].acked);
  CHECK(events[0].severity == 650);
  CHECK(call_method(c, trip_id, acknowledge, {events[0].event_id, comment("seen")}).status_code == status::good);
  events = alarm_events(c, core, t);
  REQUIRE(events.size() == 1);
  CHECK(events[0].acked);
  CHECK(call_method(c, trip_id, acknowledge, {events[0].event_id, comment("again")}).status_code ==
        status::bad_condition_branch_already_acked);
  set_input(core, trip_input, false, t + 2);
  events = alarm_events(c, core, t);
  REQUIRE(events.size() == 1);
  CHECK_FALSE(events[0].active);
  CHECK(events[0].retain);  // acknowledged, not confirmed yet

  // A numeric input: active while it is the alarm value (3: "fault"), not for other values.
  auto n = d;
  n.id = ua::node_id::string(1, "Alarm.Mode");
  n.input = alarm_input;
  n.active = std::int32_t{3};
  set_input(core, alarm_input, 1.0, t + 2);
  REQUIRE(core.add_discrete_alarm(n, at(t + 2)) == status::good);
  std::vector<bool> seen;
  alarm_events(c, core, t);
  for (const double v : {2.0, 3.0, 3.0, 4.0}) {
    set_input(core, alarm_input, v, t + 2);
    for (const auto& e : alarm_events(c, core, t)) seen.push_back(e.active);
  }
  CHECK(seen == std::vector<bool>{true, false});

  auto bad = d;
  bad.id = ua::node_id::string(1, "Alarm.Bad");
  bad.active = ua::ua_string("on");
  CHECK(core.add_discrete_alarm(bad, at(t)) == status::bad_invalid_argument);
  bad.active = std::nan("");
  CHECK(core.add_discrete_alarm(bad, at(t)) == status::bad_invalid_argument);
  bad.active = true;
  CHECK(core.add_discrete_alarm(bad, at(t)) == status::good);
  CHECK(core.add_discrete_alarm(bad, at(t)) == status::bad_node_id_exists);
}

// ---------------------------------------------------------------------------------------------
// Audit events (Part 5 §6.4.3+)

namespace {

// EventType, Status, ClientUserId, StatusCodeId, NewValue; where OfType(AuditEventType).
ua::extension_object audit_filter() {
  ua::event_filter f;
  for (const char* n : {"EventType", "Status", "ClientUserId", "StatusCodeId", "NewValue"}) f.select_clauses.push_back(field(n));
  ua::content_filter_element e;
  e.filter_operator = op::of_type;
  ua::literal_operand l;
  l.value = ua::node_id(0, 2052);
  e.filter_operands.push_back(ua::extension_object(l));
  f.where_clause.elements.push_back(std::move(e));
  return ua::extension_object(std::move(f));
}

// A session whose ActivateSession with a UserName token is refused (no users on this server).
ua::status_code refused_login(actors::server_core& core) {
  ua::create_session_request create;
  create.requested_session_timeout = 600'000;
  ua::byte_buffer out;
  ua::extension_object resp;
  core.handle(channel, 900, create.request_header, ua::extension_object(create), at(5), out);
  REQUIRE(ua::decode_message(out.bytes(), resp) == status::good);
  const auto* created = resp.get_if<ua::create_session_response>();
  REQUIRE(created);
  ua::activate_session_request act;
  act.request_header.authentication_token = created->authentication_token;
  ua::user_name_identity_token t;
  t.user_name = ua::ua_string("mallory");
  t.password = ua::byte_string("guess");
  act.user_identity_token = ua::extension_object(std::move(t));
  out.clear();
  core.handle(channel, 901, act.request_header, ua::extension_object(act), at(6), out);
  REQUIRE(ua::decode_message(out.bytes(), resp) == status::good);
  const auto* fault = resp.get_if<ua::service_fault>();
  REQUIRE(fault);
  return fault->response_header.service_result;
}

}  // namespace

TEST_CASE("audit: a refused ActivateSession and a Write are audit events, when the server is told to", "[events][audit]") {
  auto core = make_core({}, true);
  client c(core);
  const auto sub = c.subscribe(100);
  REQUIRE(c.monitor_events(sub, ua::node_id(0, server_object), audit_filter()).status_code == status::good);
  const auto refused = refused_login(core);
  CHECK(refused.is_bad());
  ua::write_request w;
  ua::write_value v;
  v.node_id = alarm_input;
  v.attribute_id = 13;
  v.value.set_value(42.0);
  w.nodes_to_write.push_back(v);
  REQUIRE(c.call_as<ua::write_response>(w).results[0] == status::good);
  CHECK_FALSE(c.publish(10));
  const auto answers = tick(core, 100);
  REQUIRE(answers.size() == 1);
  const auto events = events_of(answers[0].second);
  REQUIRE(events.size() == 2);
  CHECK(events[0].event_fields[0] == ua::variant(ua::node_id(0, 2075)));  // AuditActivateSessionEventType
  CHECK(events[0].event_fields[1] == ua::variant(false));
  CHECK(events[0].event_fields[2] == ua::variant(ua::ua_string("mallory")));
  CHECK(events[0].event_fields[3] == ua::variant(refused));
  CHECK(events[1].event_fields[0] == ua::variant(ua::node_id(0, 2100)));  // AuditWriteUpdateEventType
  CHECK(events[1].event_fields[1] == ua::variant(true));
  CHECK(events[1].event_fields[4] == ua::variant(42.0));
}

TEST_CASE("audit: off by default", "[events][audit]") {
  auto core = make_core();
  client c(core);
  const auto sub = c.subscribe(100);
  REQUIRE(c.monitor_events(sub, ua::node_id(0, server_object), audit_filter()).status_code == status::good);
  refused_login(core);
  CHECK_FALSE(c.publish(10));
  const auto answers = tick(core, 100);  // the first cycle's keep-alive, without events
  REQUIRE(answers.size() == 1);
  CHECK(events_of(answers[0].second).empty());
}

namespace {

// EventType, Status, SecureChannelId, StatusCodeId, RequestType, SecurityPolicyUri,
// CertificateErrorEventId, EventId, Certificate, SourceName, ClientUserId, Message; OfType(AuditEventType).
ua::extension_object channel_audit_filter() {
  ua::event_filter f;
  for (const char* n : {"EventType", "Status", "SecureChannelId", "StatusCodeId", "RequestType", "SecurityPolicyUri",
                        "CertificateErrorEventId", "EventId", "Certificate", "SourceName", "ClientUserId", "Message"})
    f.select_clauses.push_back(field(n));
  ua::content_filter_element e;
  e.filter_operator = op::of_type;
  ua::literal_operand l;
  l.value = ua::node_id(0, 2052);
  e.filter_operands.push_back(ua::extension_object(l));
  f.where_clause.elements.push_back(std::move(e));
  return ua::extension_object(std::move(f));
}

std::string text_of(const ua::variant& v) {
  if (const auto* s = v.get_if<ua::ua_string>()) return std::string(s->view());
  if (const auto* t = v.get_if<ua::localized_text>()) return std::string(t->text.view());
  return "?";
}

}  // namespace

TEST_CASE("audit: secure channels opened, refused and closed, and a refused certificate, as Part 5 types them",
          "[events][audit]") {
  auto core = make_core({}, true);
  client c(core);
  const auto sub = c.subscribe(100);
  REQUIRE(c.monitor_events(sub, ua::node_id(0, server_object), channel_audit_filter()).status_code == status::good);
  const std::string none = "http://opcfoundation.org/UA/SecurityPolicy#None";
  const std::string basic = "http://opcfoundation.org/UA/SecurityPolicy#Basic256Sha256";
  actors::channel_audit opened;
  opened.channel_id = 41;
  opened.status = status::good;
  opened.security_policy_uri = none;
  opened.security_mode = ua::message_security_mode::none;
  opened.requested_lifetime = 600'000;
  actors::channel_audit cert;
  cert.what = actors::channel_audit::kind::certificate;
  cert.channel_id = 42;
  cert.status = status::bad_certificate_untrusted;
  cert.security_policy_uri = basic;
  cert.client_certificate = ua::byte_string("DER");
  actors::channel_audit refused = cert;
  refused.what = actors::channel_audit::kind::open;
  refused.status = status::bad_security_checks_failed;
  refused.reason = "client certificate refused by the trust list check";
  actors::channel_audit expired = cert;
  expired.channel_id = 43;
  expired.status = status::bad_certificate_time_invalid;
  actors::channel_audit closed;
  closed.what = actors::channel_audit::kind::close;
  closed.channel_id = 41;
  closed.status = status::good;
  for (const auto* a : {&opened, &cert, &refused, &expired, &closed}) core.audit_channel(*a, at(5));
  CHECK_FALSE(c.publish(10));
  const auto answers = tick(core, 100);
  REQUIRE(answers.size() == 1);
  const auto events = events_of(answers[0].second);
  REQUIRE(events.size() == 5);
  const auto& o = events[0].event_fields;
  CHECK(o[0] == ua::variant(ua::node_id(0, 2060)));  // AuditOpenSecureChannelEventType
  CHECK(o[1] == ua::variant(true));
  CHECK(text_of(o[2]) == "41");
  CHECK(o[4] == ua::variant(std::int32_t{0}));  // Issue
  CHECK(text_of(o[5]) == none);
  CHECK(o[6].empty());  // no certificate error
  CHECK(text_of(o[9]) == "SecureChannel/OpenSecureChannel");
  CHECK(text_of(o[10]) == "System/OpenSecureChannel");
  const auto& u = events[1].event_fields;
  CHECK(u[0] == ua::variant(ua::node_id(0, 2087)));  // AuditCertificateUntrustedEventType
  CHECK(u[1] == ua::variant(false));
  CHECK(u[3] == ua::variant(status::bad_certificate_untrusted));
  CHECK(u[8] == ua::variant(ua::byte_string("DER")));
  CHECK(text_of(u[9]) == "Security/Certificate");
  const auto& r = events[2].event_fields;
  CHECK(r[0] == ua::variant(ua::node_id(0, 2060)));
  CHECK(r[1] == ua::variant(false));
  CHECK(r[3] == ua::variant(status::bad_security_checks_failed));
  CHECK(r[6] == u[7]);  // CertificateErrorEventId: the EventId of the certificate event
  CHECK(text_of(r[11]).find("trust list") != std::string::npos);  // the log's reason, not the client's
  CHECK(events[3].event_fields[0] == ua::variant(ua::node_id(0, 2085)));  // AuditCertificateExpiredEventType
  const auto& x = events[4].event_fields;
  CHECK(x[0] == ua::variant(ua::node_id(0, 2059)));  // AuditChannelEventType: CloseSecureChannel
  CHECK(text_of(x[2]) == "41");
  CHECK(text_of(x[9]) == "SecureChannel/CloseSecureChannel");
}

}  // namespace server_events_test
