// An alarm flood (issue 33 "Tests", at a smaller scale than the benchmark's 10,000 conditions):
// 100 limit alarms toggling between normal, High and Low, every transition to 5 sessions whose event
// item has a where clause; each session must see every transition of every condition, in order
// (ActiveState alternating, Time rising, EventIds all different), and nothing the where clause drops.
#include <catch2/catch.hpp>

#include <algorithm>
#include <map>
#include <memory>
#include <set>
#include <string>
#include <vector>

#include "engine/server/server_core.hpp"
#include "tests/engine/server/core_fixture.hpp"

// Everything in a namespace of its own (docs/decisions/0050).
namespace server_condition_flood_test {

using namespace uactor;
namespace status = ua::status;
using test::at;

ua::node_id fl_input(std::size_t i) { return ua::node_id::string(1, "Flood.In" + std::to_string(i)); }

// A session with one event item on the Server object: ConditionId, ActiveState/Id, Time, EventId,
// Severity; where Severity >= 700 Or ActiveState/Id = false: the High events (700) and the
// returns to normal pass, the Low events (Severity 650 here) do not.
struct fl_session : test::core_session {
  std::uint32_t sub = 0;
  std::vector<ua::subscription_acknowledgement> acks;
  fl_session(actors::server_core& c, std::uint32_t channel, std::uint32_t queue_size) : core_session(c, channel) {
    ua::create_subscription_request cs;
    cs.requested_publishing_interval = 100;
    cs.requested_max_keep_alive_count = 10;
    cs.requested_lifetime_count = 1000;
    cs.publishing_enabled = true;
    sub = call_as<ua::create_subscription_response>(cs).subscription_id;
    ua::event_filter f;
    ua::simple_attribute_operand condition_id;
    condition_id.type_definition_id = ua::node_id(0, 2782);
    condition_id.attribute_id = 1;  // NodeId: the ConditionId
    f.select_clauses.push_back(condition_id);
    f.select_clauses.push_back(test::event_field(2915, {"ActiveState", "Id"}));
    f.select_clauses.push_back(test::event_field(2041, {"Time"}));
    f.select_clauses.push_back(test::event_field(2041, {"EventId"}));
    f.select_clauses.push_back(test::event_field(2041, {"Severity"}));
    const auto literal = [](ua::variant v) { return ua::extension_object(ua::literal_operand{std::move(v)}); };
    const auto field = [](ua::simple_attribute_operand o) { return ua::extension_object(std::move(o)); };
    const auto element = [](ua::filter_operator op, std::vector<ua::extension_object> operands) {
      ua::content_filter_element e;
      e.filter_operator = op;
      e.filter_operands = {operands.begin(), operands.end()};
      return e;
    };
    ua::element_operand e1, e2;
    e1.index = 1;
    e2.index = 2;
    f.where_clause.elements.push_back(
        element(ua::filter_operator::or_, {ua::extension_object(e1), ua::extension_object(e2)}));
    f.where_clause.elements.push_back(element(ua::filter_operator::greater_than_or_equal,
                                              {field(test::event_field(2041, {"Severity"})), literal(ua::variant(std::uint16_t{700}))}));
    f.where_clause.elements.push_back(
        element(ua::filter_operator::equals, {field(test::event_field(2915, {"ActiveState", "Id"})), literal(ua::variant(false))}));
    ua::create_monitored_items_request req;
    req.subscription_id = sub;
    ua::monitored_item_create_request item;
    item.item_to_monitor.node_id = ua::node_id(0, 2253);
    item.item_to_monitor.attribute_id = 12;
    item.monitoring_mode = ua::monitoring_mode::reporting;
    item.requested_parameters.client_handle = 1;
    item.requested_parameters.queue_size = queue_size;
    item.requested_parameters.discard_oldest = true;
    item.requested_parameters.filter = ua::extension_object(std::move(f));
    req.items_to_create.push_back(std::move(item));
    auto& r = call_as<ua::create_monitored_items_response>(req);
    REQUIRE(r.results.size() == 1);
    REQUIRE(r.results[0].status_code == status::good);
  }
  // Every event waiting, Publish after Publish, in the order delivered.
  struct seen {
    std::string condition;
    bool active;
    ua::date_time time;
    ua::byte_string event_id;
    std::uint16_t severity;
  };
  // Publish answers that came out of another session's publish_tick, by channel: none is lost.
  static std::map<std::uint32_t, std::vector<ua::extension_object>>& mail() {
    static std::map<std::uint32_t, std::vector<ua::extension_object>> m;
    return m;
  }
  // Decodes the core's deferred answers into the sessions' mail.
  static void collect(actors::server_core& core) {
    for (const auto& d : core.deferred()) {
      ua::extension_object answer;
      REQUIRE(ua::decode_message(d.message.bytes(), answer) == status::good);
      mail()[d.channel_id].push_back(std::move(answer));
    }
    core.clear_deferred();
  }
  // Takes one answer: its events into `out`, its sequence number to acknowledge; whether more wait.
  bool take(const ua::extension_object& answer, std::vector<seen>& out) {
    const auto* p = answer.get_if<ua::publish_response>();
    REQUIRE(p);
    REQUIRE(p->response_header.service_result == status::good);
    for (const auto& eo : p->notification_message.notification_data) {
      const auto* l = eo.get_if<ua::event_notification_list>();
      if (!l) continue;
      for (const auto& e : l->events) {
        REQUIRE(e.event_fields.size() == 5);
        const auto* id = e.event_fields[0].get_if<ua::node_id>();
        const auto* active = e.event_fields[1].get_if<bool>();
        const auto* time = e.event_fields[2].get_if<ua::date_time>();
        const auto* event_id = e.event_fields[3].get_if<ua::byte_string>();
        const auto* severity = e.event_fields[4].get_if<std::uint16_t>();
        REQUIRE((id && active && time && event_id && severity));
        out.push_back({id->to_string(), *active, *time, *event_id, *severity});
      }
    }
    if (!p->notification_message.notification_data.empty())
      acks.push_back({p->subscription_id, p->notification_message.sequence_number});
    return p->more_notifications;
  }
  // Every event waiting, Publish after Publish, in the order delivered. A Publish the core parks
  // stays parked; its answer comes through the mail.
  void drain(std::int64_t ms, std::vector<seen>& out) {
    for (int guard = 0; guard < 1'000; ++guard) {
      auto& box = mail()[channel_id];
      for (const auto& answer : box) take(answer, out);
      box.clear();
      if (publish(ms, std::move(acks))) {
        acks.clear();
        if (!take(response, out)) return;
        ms += 1;
        continue;
      }
      acks.clear();
      core.publish_tick(at(ms));
      collect(core);
      if (mail()[channel_id].empty()) return;  // parked: nothing to send yet
      ms += 1;
    }
    FAIL("the events never ran out");
  }
};

// `fl_conditions` limit alarms, `fl_rounds` rounds of transitions, `fl_sessions` sessions.
void run_flood(std::size_t fl_conditions, std::size_t fl_sessions, std::size_t fl_rounds) {
  actors::server_core_config cfg;
  cfg.description.application_uri = "urn:test:uactor:server";
  cfg.description.endpoint_url = "opc.tcp://localhost:4840";
  // Predictable, and unlike the fixtures' byte counter (which repeats every 256 bytes, so that a
  // 17th session finds only tokens in use) good for any number of sessions.
  cfg.sessions.random = [n = std::uint64_t{0}](std::span<std::uint8_t> out) mutable {
    for (auto& b : out) b = static_cast<std::uint8_t>(++n * 0x9E3779B97F4A7C15ull >> 56);
  };
  // A session that publishes every other round holds 4 events per condition.
  cfg.subscriptions.max_queue_size = static_cast<std::uint32_t>(std::max<std::size_t>(10'000, 4 * fl_conditions));
  const std::uint32_t cfg_queue = cfg.subscriptions.max_queue_size;
  auto core = actors::make_demo_server_core(std::move(cfg), "test", at(0).utc);
  std::vector<node_change> nodes;
  for (std::size_t i = 0; i < fl_conditions; ++i) {
    variable_node v;
    v.id = fl_input(i);
    v.parent = ua::node_id::string(1, "Demo.Static");
    v.browse_name = ua::qualified_name{1, ua::ua_string("In" + std::to_string(i))};
    v.value.value = ua::variant(50.0);
    v.value.has_value = true;
    v.data_type = ua::node_id(0, 11);
    nodes.push_back(v);
  }
  std::vector<ua::status_code> statuses;
  core.apply(nodes, statuses, at(0));
  for (const auto& sc : statuses) REQUIRE(sc == status::good);
  for (std::size_t i = 0; i < fl_conditions; ++i) {
    limit_alarm a;
    a.id = ua::node_id::string(1, "Flood.Alarm" + std::to_string(i));
    a.input = fl_input(i);
    a.name = "Flood" + std::to_string(i);
    a.high = 70;
    a.low = 20;
    a.severity_low = 650;  // the where clause drops the Low events
    a.max_branches = 0;
    REQUIRE(core.add_limit_alarm(a, at(0)) == status::good);
  }
  std::vector<std::unique_ptr<fl_session>> sessions;
  for (std::size_t s = 0; s < fl_sessions; ++s)
    sessions.push_back(std::make_unique<fl_session>(core, 100 + static_cast<std::uint32_t>(s), cfg_queue));
  std::vector<std::vector<fl_session::seen>> seen(fl_sessions);
  std::int64_t ms = 1'000;
  for (auto& s : sessions) s->drain(ms, seen[&s - sessions.data()]);  // nothing yet: all normal
  for (const auto& v : seen) REQUIRE(v.empty());
  // Each round: every input to High (80) and back to normal (50), and the odd ones through Low (10)
  // as well; the sessions publish between rounds, some of them only every other round.
  std::vector<value_update> batch(fl_conditions);
  for (std::size_t i = 0; i < fl_conditions; ++i) batch[i].node.index = core.space().find(fl_input(i));
  const auto apply_all = [&](double even, double odd) {
    ms += 10;
    for (std::size_t i = 0; i < fl_conditions; ++i) batch[i].value = ua::variant(i % 2 ? odd : even);
    REQUIRE(core.apply_values(batch, at(ms)) == 0);
  };
  for (std::size_t round = 0; round < fl_rounds; ++round) {
    apply_all(80, 80);
    apply_all(50, 10);  // odd ones: Low (dropped by the where clause)
    apply_all(50, 50);
    ms += 100;
    for (std::size_t s = 0; s < fl_sessions; ++s)
      if (s % 2 == 0 || round % 2 == 1) sessions[s]->drain(ms, seen[s]);
  }
  for (std::size_t s = 0; s < fl_sessions; ++s) sessions[s]->drain(ms + 1'000, seen[s]);

  // Per session, per condition: High, normal, High, normal, ... (the Low of the odd ones dropped
  // and the return from Low to normal kept: even ones 2 per round, odd ones 2 per round too: High
  // and, after the dropped Low, its return to normal), Time never going back, EventIds unique.
  for (std::size_t s = 0; s < fl_sessions; ++s) {
    INFO("session " << s);
    REQUIRE(seen[s].size() == fl_conditions * fl_rounds * 2);
    std::map<std::string, std::vector<const fl_session::seen*>> by_condition;
    std::set<std::string> ids;
    for (const auto& e : seen[s]) {
      by_condition[e.condition].push_back(&e);
      ids.insert(std::string(e.event_id.view()));
      CHECK(e.severity != 650);
    }
    CHECK(ids.size() == seen[s].size());
    REQUIRE(by_condition.size() == fl_conditions);
    for (const auto& [condition, events] : by_condition) {
      INFO(condition);
      REQUIRE(events.size() == fl_rounds * 2);
      for (std::size_t k = 0; k < events.size(); ++k) {
        CHECK(events[k]->active == (k % 2 == 0));
        if (k > 0) CHECK(events[k - 1]->time.ticks <= events[k]->time.ticks);
      }
    }
  }
}

TEST_CASE("alarm flood: 100 conditions, 4 rounds of transitions to 5 sessions with a where clause, none lost or "
          "reordered",
          "[events][alarms][flood]") {
  run_flood(100, 5, 4);
}

// Larger sizes, run by name (hidden from the default run: seconds each).
TEST_CASE("alarm flood: 300 conditions, 4 rounds to 10 sessions", "[.][flood-large]") { run_flood(300, 10, 4); }
TEST_CASE("alarm flood: 1,000 conditions, 10 rounds to 20 sessions", "[.][flood-large]") { run_flood(1'000, 20, 10); }
// The size: 10,000 conditions to 20 sessions (each round 30,000 transitions, 20,000 delivered
// to each session; a session that publishes every other round holds 40,000).
TEST_CASE("alarm flood: 10,000 conditions, 2 rounds to 20 sessions", "[.][flood-large]") { run_flood(10'000, 20, 2); }

}  // namespace server_condition_flood_test
