// The supervised client's policy, without a network: backoff, what each recovery answer leads to,
// what is republished after a transfer, and the book of what to create again.
#include <catch2/catch.hpp>

#include "engine/client/recovery.hpp"
#include "engine/client/subscription.hpp"

using namespace uactor;
using namespace uactor::actors;
using namespace std::chrono_literals;

TEST_CASE("recovery: backoff doubles from the initial delay up to the cap", "[client][recovery]") {
  const backoff_policy p{100ms, 2000ms, 0.0};
  CHECK(backoff_delay(p, 0, 0.5) == 100ms);
  CHECK(backoff_delay(p, 1, 0.5) == 200ms);
  CHECK(backoff_delay(p, 3, 0.5) == 800ms);
  CHECK(backoff_delay(p, 5, 0.5) == 2000ms);
  CHECK(backoff_delay(p, 1000, 0.5) == 2000ms);  // no overflow for a long outage
}

TEST_CASE("recovery: jitter moves the delay within its share, never below zero", "[client][recovery]") {
  const backoff_policy p{1000ms, 10'000ms, 0.25};
  CHECK(backoff_delay(p, 0, 0.0) == 750ms);
  CHECK(backoff_delay(p, 0, 0.5) == 1000ms);
  CHECK(backoff_delay(p, 0, 0.999999) == 1250ms);
  const backoff_policy wild{100ms, 100ms, 5.0};  // clamped to 100 %
  CHECK(backoff_delay(wild, 0, 0.0) == 0ms);
  CHECK(backoff_delay(wild, 0, 1.0) == 200ms);
}

TEST_CASE("recovery: Part 4 §6.7 order: reactivate, else a new session, a link failure retries", "[client][recovery]") {
  CHECK(after_reactivate(ua::status::good) == reactivate_outcome::resume);
  CHECK(after_reactivate(ua::status::bad_session_id_invalid) == reactivate_outcome::new_session);
  CHECK(after_reactivate(ua::status::bad_session_closed) == reactivate_outcome::new_session);
  CHECK(after_reactivate(ua::status::bad_security_checks_failed) == reactivate_outcome::new_session);
  CHECK(after_reactivate(ua::status::bad_timeout) == reactivate_outcome::reconnect);
  CHECK(after_reactivate(ua::status::bad_connection_closed) == reactivate_outcome::reconnect);
}

TEST_CASE("recovery: a transferred subscription is republished, a refused one recreated", "[client][recovery]") {
  CHECK(after_transfer(ua::status::good, ua::status::good) == transfer_outcome::republish);
  CHECK(after_transfer(ua::status::good, ua::status::bad_subscription_id_invalid) == transfer_outcome::recreate);
  CHECK(after_transfer(ua::status::good, ua::status::bad_user_access_denied) == transfer_outcome::recreate);
  CHECK(after_transfer(ua::status::bad_service_unsupported, ua::status::good) == transfer_outcome::recreate);
  CHECK(after_transfer(ua::status::bad_timeout, ua::status::good) == transfer_outcome::reconnect);
}

TEST_CASE("recovery: after a transfer, the available numbers from the next expected on, in order", "[client][recovery]") {
  CHECK(to_republish(5, ua::ua_array<std::uint32_t>(std::vector<std::uint32_t>{7, 3, 5, 4, 6, 6})) ==
        std::vector<std::uint32_t>{5, 6, 7});
  CHECK(to_republish(5, ua::ua_array<std::uint32_t>()).empty());
  // Along the wrap (Part 4 §7.26: 0 is never used).
  CHECK(to_republish(0xFFFFFFFEu, ua::ua_array<std::uint32_t>(std::vector<std::uint32_t>{1, 0xFFFFFFFFu, 0xFFFFFFFEu, 2})) ==
        std::vector<std::uint32_t>{0xFFFFFFFEu, 0xFFFFFFFFu, 1, 2});
  // Nothing seen yet: everything available.
  CHECK(to_republish(0, ua::ua_array<std::uint32_t>(std::vector<std::uint32_t>{2, 1})) == std::vector<std::uint32_t>{1, 2});
}

namespace {

ua::extension_object created_subscription(std::uint32_t id) {
  ua::create_subscription_response r;
  r.subscription_id = id;
  r.revised_publishing_interval = 50;
  r.revised_max_keep_alive_count = 10;
  return ua::extension_object(std::move(r));
}

ua::create_monitored_items_request items_for(std::uint32_t sub, std::vector<std::uint32_t> handles) {
  ua::create_monitored_items_request r;
  r.subscription_id = sub;
  for (auto h : handles) r.items_to_create.push_back(monitor_value(ua::node_id(1, h), h, 0, 100));
  return r;
}

ua::extension_object items_created(std::vector<ua::status_code> results, std::uint32_t first_id) {
  ua::create_monitored_items_response r;
  for (auto sc : results) {
    ua::monitored_item_create_result x;
    x.status_code = sc;
    x.monitored_item_id = first_id++;
    x.revised_sampling_interval = 10;
    x.revised_queue_size = 100;
    r.results.push_back(x);
  }
  return ua::extension_object(std::move(r));
}

}  // namespace

TEST_CASE("subscription_book: keeps what was created with its handles, filters and queue sizes", "[client][recovery]") {
  subscription_book book;
  ua::create_subscription_request cs;
  cs.requested_publishing_interval = 50;
  cs.requested_max_keep_alive_count = 10;
  cs.publishing_enabled = true;
  book.record(ua::extension_object(cs), created_subscription(7));
  auto items = items_for(7, {11, 12, 13});
  items.items_to_create[1].requested_parameters.filter = data_change_filter(ua::data_change_trigger::status_value, 1, 2.5);
  book.record(ua::extension_object(items),
              items_created({ua::status::good, ua::status::good, ua::status::bad_node_id_unknown}, 100));
  REQUIRE(book.subscriptions().size() == 1);
  const auto& s = book.subscriptions()[0];
  CHECK(s.id == 7);
  CHECK(s.request.requested_publishing_interval == 50);
  REQUIRE(s.items.size() == 2);  // the refused item is not recreated
  CHECK(s.items[0].request.requested_parameters.client_handle == 11);
  CHECK(s.items[0].monitored_item_id == 100);
  CHECK(s.items[1].request.requested_parameters.client_handle == 12);
  CHECK(s.items[1].request.requested_parameters.queue_size == 100);
  CHECK(s.items[1].request.requested_parameters.filter == items.items_to_create[1].requested_parameters.filter);

  SECTION("a refused creation is not recorded") {
    ua::create_subscription_response bad;
    bad.response_header.service_result = ua::status::bad_too_many_subscriptions;
    book.record(ua::extension_object(cs), ua::extension_object(bad));
    CHECK(book.subscriptions().size() == 1);
  }
  SECTION("deleted items and subscriptions are forgotten") {
    ua::delete_monitored_items_request d;
    d.subscription_id = 7;
    d.monitored_item_ids.push_back(100);
    ua::delete_monitored_items_response dr;
    dr.results.push_back(ua::status::good);
    book.record(ua::extension_object(d), ua::extension_object(dr));
    REQUIRE(book.subscriptions()[0].items.size() == 1);
    CHECK(book.subscriptions()[0].items[0].request.requested_parameters.client_handle == 12);
    book.forget(ua::ua_array<std::uint32_t>(std::vector<std::uint32_t>{7}));
    CHECK(book.subscriptions().empty());
  }
  SECTION("modifications and monitoring modes are kept") {
    ua::modify_monitored_items_request m;
    m.subscription_id = 7;
    ua::monitored_item_modify_request mi;
    mi.monitored_item_id = 101;
    mi.requested_parameters.client_handle = 12;
    mi.requested_parameters.queue_size = 5;
    m.items_to_modify.push_back(mi);
    ua::modify_monitored_items_response mr;
    ua::monitored_item_modify_result res;
    res.revised_queue_size = 5;
    res.revised_sampling_interval = 20;
    mr.results.push_back(res);
    book.record(ua::extension_object(m), ua::extension_object(mr));
    CHECK(book.subscriptions()[0].items[1].request.requested_parameters.queue_size == 5);
    ua::set_monitoring_mode_request sm;
    sm.subscription_id = 7;
    sm.monitoring_mode = ua::monitoring_mode::disabled;
    sm.monitored_item_ids.push_back(100);
    ua::set_monitoring_mode_response smr;
    smr.results.push_back(ua::status::good);
    book.record(ua::extension_object(sm), ua::extension_object(smr));
    CHECK(book.subscriptions()[0].items[0].request.monitoring_mode == ua::monitoring_mode::disabled);
  }
  SECTION("recreated under a new id, items bound again by client handle") {
    book.rekey(7, 9);
    REQUIRE(book.find(9) != nullptr);
    CHECK(book.find(7) == nullptr);
    CHECK(book.find(9)->items[0].monitored_item_id == 0);
    book.bind_item(9, 12, 555);
    CHECK(book.find(9)->items[1].monitored_item_id == 555);
  }
}

TEST_CASE("subscription_engine: messages recovered after a reconnect arrive in order, once, acknowledged",
          "[client][recovery]") {
  subscription_engine e;
  std::vector<std::uint32_t> seen;
  std::vector<subscription_status> events;
  subscription_handlers h;
  h.on_data = [&](std::uint32_t, std::uint32_t seq, std::span<const ua::monitored_item_notification>) { seen.push_back(seq); };
  h.on_status = [&](const subscription_status& s) { events.push_back(s); };
  const auto now = std::chrono::steady_clock::now();
  e.add(1, 100, 10, std::move(h), now);
  auto message = [](std::uint32_t seq) {
    ua::notification_message m;
    m.sequence_number = seq;
    ua::data_change_notification dc;
    dc.monitored_items.push_back({});
    m.notification_data.push_back(ua::extension_object(std::move(dc)));
    return m;
  };
  ua::publish_response r;
  r.subscription_id = 1;
  r.notification_message = message(1);
  ua::publish_request p;
  e.fill_publish(p);
  e.on_publish_response(r, now);
  CHECK(e.next_expected(1) == 2);
  e.on_link_lost();
  CHECK(e.publish_outstanding() == 0);
  e.on_recovered(1, message(2), now);
  e.on_recovered(1, message(3), now);
  CHECK(e.next_expected(1) == 4);
  // The next Publish acknowledges 1 (its Publish was lost with the link), 2 and 3, and brings 4:
  // no gap, nothing republished twice.
  e.fill_publish(p);
  CHECK(p.subscription_acknowledgements.size() == 3);
  r.notification_message = message(4);
  e.on_publish_response(r, now);
  CHECK(seen == std::vector<std::uint32_t>{1, 2, 3, 4});
  std::uint32_t sub = 0, seq = 0;
  CHECK_FALSE(e.next_republish(sub, seq));
  ua::publish_request next;
  e.fill_publish(next);
  CHECK(next.subscription_acknowledgements.size() == 1);
  SECTION("recreated: a new id, the same handlers, numbers from the start") {
    e.rekey(1, 8, 100, 10, now);
    CHECK_FALSE(e.contains(1));
    CHECK(e.contains(8));
    CHECK(e.next_expected(8) == 0);
    e.fill_publish(next);
    r.subscription_id = 8;
    r.notification_message = message(1);
    e.on_publish_response(r, now);
    CHECK(seen.back() == 1);
    CHECK_FALSE(e.next_republish(sub, seq));
  }
}

namespace {

ua::notification_message data_message(std::uint32_t seq) {
  ua::notification_message m;
  m.sequence_number = seq;
  ua::data_change_notification dc;
  dc.monitored_items.push_back({});
  m.notification_data.push_back(ua::extension_object(std::move(dc)));
  return m;
}

struct in_order_fixture {
  subscription_engine e{[] {
    subscription_engine_config c;
    c.in_order = true;
    return c;
  }()};
  std::vector<std::uint32_t> seen;
  std::vector<subscription_status> events;
  ua::publish_request p;
  const std::chrono::steady_clock::time_point now = std::chrono::steady_clock::now();

  in_order_fixture() {
    subscription_handlers h;
    h.on_data = [this](std::uint32_t, std::uint32_t seq, std::span<const ua::monitored_item_notification>) { seen.push_back(seq); };
    h.on_status = [this](const subscription_status& s) { events.push_back(s); };
    e.add(1, 100, 10, std::move(h), now);
  }
  void publish(std::uint32_t seq, bool keep_alive = false) {
    e.fill_publish(p);
    ua::publish_response r;
    r.subscription_id = 1;
    r.notification_message = keep_alive ? ua::notification_message{} : data_message(seq);
    r.notification_message.sequence_number = seq;
    e.on_publish_response(r, now);
  }
  std::vector<std::uint32_t> asked() {
    std::vector<std::uint32_t> out;
    std::uint32_t sub = 0, seq = 0;
    while (e.next_republish(sub, seq)) out.push_back(seq);
    return out;
  }
};

}  // namespace

TEST_CASE("subscription_engine in order: messages after a gap wait for the republished ones", "[client][recovery]") {
  in_order_fixture f;
  f.publish(1);
  f.publish(4);  // 2 and 3 missing: asked for, 4 held
  CHECK(f.seen == std::vector<std::uint32_t>{1});
  CHECK(f.asked() == std::vector<std::uint32_t>{2, 3});
  f.publish(5);  // held too, nothing more asked
  CHECK(f.asked().empty());
  f.e.on_republished(1, data_message(3), f.now);  // out of order: held
  CHECK(f.seen == std::vector<std::uint32_t>{1});
  f.e.on_republished(1, data_message(2), f.now);
  CHECK(f.seen == std::vector<std::uint32_t>{1, 2, 3, 4, 5});
  CHECK(f.e.next_expected(1) == 6);
  f.e.on_republished(1, data_message(3), f.now);  // a repeat is dropped
  CHECK(f.seen.size() == 5);
  CHECK(f.events.empty());
}

TEST_CASE("subscription_engine in order: a number that cannot be republished is reported, the rest goes on",
          "[client][recovery]") {
  in_order_fixture f;
  f.publish(1);
  f.publish(3);
  CHECK(f.asked() == std::vector<std::uint32_t>{2});
  f.e.on_republish_failed(1, 2, ua::status::bad_message_not_available);
  CHECK(f.seen == std::vector<std::uint32_t>{1, 3});
  REQUIRE(f.events.size() == 1);
  CHECK(f.events[0].what == subscription_event::data_lost);
  CHECK(f.events[0].sequence_number == 2);
  // A failure for a number delivered meanwhile is no loss.
  f.e.on_republish_failed(1, 3, ua::status::bad_message_not_available);
  CHECK(f.events.size() == 1);
}

TEST_CASE("subscription_engine in order: a keep-alive ahead asks for what it skipped", "[client][recovery]") {
  in_order_fixture f;
  f.publish(1);
  f.publish(4, true);  // the next one will be 4: 2 and 3 were sent and missed
  CHECK(f.asked() == std::vector<std::uint32_t>{2, 3});
  f.publish(4);
  CHECK(f.seen == std::vector<std::uint32_t>{1});
  f.e.on_republished(1, data_message(2), f.now);
  f.e.on_republished(1, data_message(3), f.now);
  CHECK(f.seen == std::vector<std::uint32_t>{1, 2, 3, 4});
}

TEST_CASE("subscription_engine in order: after a lost link, a gap is asked for again", "[client][recovery]") {
  in_order_fixture f;
  f.publish(1);
  f.publish(3);
  CHECK(f.asked() == std::vector<std::uint32_t>{2});  // sent; the link goes before the answer
  f.e.on_link_lost();
  f.publish(4);
  CHECK(f.asked() == std::vector<std::uint32_t>{2, 3});  // 3 is held already: its repeat is dropped
  f.e.on_republished(1, data_message(2), f.now);
  CHECK(f.seen == std::vector<std::uint32_t>{1, 2, 3, 4});
}
