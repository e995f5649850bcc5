// An anonymous session on a test server_core that does what an alarm client does: subscribes to the
// Server object's events with a select clause (and an optional where clause), reads and calls the
// Part 9 methods, and decodes each Publish into the condition fields the suppression and branch
// tests compare (Part 9 §5.5.2, §5.8.2).
#pragma once

#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "tests/engine/server/core_fixture.hpp"

namespace uactor::test {

// One condition event as the tests compare it.
struct condition_note {
  std::uint32_t handle = 0;  // the monitored item's client handle
  std::uint32_t type = 0;    // EventType (numeric, ns=0)
  ua::byte_string event_id;
  ua::node_id branch_id;
  bool active = false, acked = false, confirmed = false, retain = false;
  bool suppressed_or_shelved = false, suppressed = false, out_of_service = false;
  std::string comment;
  // "trunk" or "branch", then the states: "branch inactive unacked confirmed retain".
  std::string brief() const {
    std::string s = branch_id.is_null() ? "trunk" : "branch";
    s += active ? " active" : " inactive";
    s += acked ? " acked" : " unacked";
    s += confirmed ? " confirmed" : " unconfirmed";
    s += retain ? " retain" : " gone";
    return s;
  }
  // "suppressed out-of-service flagged", each word only when true ("-" when none).
  std::string flags() const {
    std::string s;
    if (suppressed) s += "suppressed ";
    if (out_of_service) s += "out-of-service ";
    if (suppressed_or_shelved) s += "flagged ";
    if (s.empty()) return "-";
    s.pop_back();
    return s;
  }
};

struct condition_client : core_session {
  explicit condition_client(actors::server_core& c, std::uint32_t channel = 9) : core_session(c, channel) {}

  // The fields condition_note holds, in this order.
  static ua::event_filter select() {
    ua::event_filter f;
    f.select_clauses.push_back(event_field(2041, {"EventType"}));
    f.select_clauses.push_back(event_field(2041, {"EventId"}));
    f.select_clauses.push_back(event_field(2782, {"BranchId"}));
    f.select_clauses.push_back(event_field(2915, {"ActiveState", "Id"}));
    f.select_clauses.push_back(event_field(2881, {"AckedState", "Id"}));
    f.select_clauses.push_back(event_field(2881, {"ConfirmedState", "Id"}));
    f.select_clauses.push_back(event_field(2782, {"Retain"}));
    f.select_clauses.push_back(event_field(2915, {"SuppressedOrShelved"}));
    f.select_clauses.push_back(event_field(2915, {"SuppressedState", "Id"}));
    f.select_clauses.push_back(event_field(2915, {"OutOfServiceState", "Id"}));
    f.select_clauses.push_back(event_field(2782, {"Comment"}));
    return f;
  }

  std::uint32_t subscribe() {
    ua::create_subscription_request req;
    req.requested_publishing_interval = 100;
    req.requested_max_keep_alive_count = 10;
    req.requested_lifetime_count = 1000;
    req.publishing_enabled = true;
    const auto& r = call_as<ua::create_subscription_response>(req);
    REQUIRE(r.response_header.service_result == ua::status::good);
    return r.subscription_id;
  }
  // An event item on the Server object with select() and `f`'s where clause.
  ua::status_code monitor_events(std::uint32_t sub, std::uint32_t handle_, ua::event_filter f = select()) {
    ua::create_monitored_items_request req;
    req.subscription_id = sub;
    ua::monitored_item_create_request c;
    c.item_to_monitor.node_id = ua::node_id(0, 2253);
    c.item_to_monitor.attribute_id = 12;
    c.monitoring_mode = ua::monitoring_mode::reporting;
    c.requested_parameters.client_handle = handle_;
    c.requested_parameters.queue_size = 1000;
    c.requested_parameters.discard_oldest = true;
    c.requested_parameters.filter = ua::extension_object(std::move(f));
    req.items_to_create.push_back(std::move(c));
    auto& r = call_as<ua::create_monitored_items_response>(req);
    REQUIRE(r.results.size() == 1);
    return r.results[0].status_code;
  }
  ua::variant read(const ua::node_id& node) {
    ua::read_request req;
    ua::read_value_id id;
    id.node_id = node;
    id.attribute_id = 13;
    req.nodes_to_read.push_back(id);
    auto& r = call_as<ua::read_response>(req);
    REQUIRE(r.results.size() == 1);
    return r.results[0].value;
  }
  ua::status_code call_method(const ua::node_id& object, std::uint32_t method, std::vector<ua::variant> inputs,
                              std::int64_t ms = 0) {
    ua::call_request req;
    ua::call_method_request m;
    m.object_id = object;
    m.method_id = ua::node_id(0, method);
    m.input_arguments = {inputs.begin(), inputs.end()};
    req.methods_to_call.push_back(std::move(m));
    auto& r = call_as<ua::call_response>(req, ms);
    REQUIRE(r.results.size() == 1);
    return r.results[0].status_code;
  }
  // The events of one Publish answered after `ms` (moved on by 100 ms), in order.
  std::vector<condition_note> events(std::int64_t& ms) {
    ms += 100;
    std::vector<condition_note> out;
    ua::extension_object answer;
    if (publish(ms)) {
      answer = response;
    } else {
      core.publish_tick(at(ms));
      if (core.deferred().empty()) return out;
      REQUIRE(ua::decode_message(core.deferred()[0].message.bytes(), answer) == ua::status::good);
      core.clear_deferred();
    }
    const auto* p = answer.get_if<ua::publish_response>();
    REQUIRE(p);
    for (const auto& eo : p->notification_message.notification_data) {
      const auto* l = eo.get_if<ua::event_notification_list>();
      if (!l) continue;
      for (const auto& e : l->events) {
        REQUIRE(e.event_fields.size() == 11);
        condition_note n;
        n.handle = e.client_handle;
        const auto& f = e.event_fields;
        if (const auto* t = f[0].get_if<ua::node_id>()) n.type = t->numeric();
        if (const auto* b = f[1].get_if<ua::byte_string>()) n.event_id = *b;
        if (const auto* b = f[2].get_if<ua::node_id>()) n.branch_id = *b;
        const auto flag = [&](std::size_t i) {
          const bool* b = f[i].get_if<bool>();
          return b && *b;
        };
        n.active = flag(3);
        n.acked = flag(4);
        n.confirmed = flag(5);
        n.retain = flag(6);
        n.suppressed_or_shelved = flag(7);
        n.suppressed = flag(8);
        n.out_of_service = flag(9);
        if (const auto* t = f[10].get_if<ua::localized_text>()) n.comment = std::string(t->text.view());
        out.push_back(std::move(n));
      }
    }
    return out;
  }
};

inline ua::localized_text condition_comment(const char* s) { return {ua::ua_string("en"), ua::ua_string(s)}; }

}  // namespace uactor::test
