// The client's subscription engine as plain state (actors/client_subscription.hpp): encoded
// PublishResponses in, callbacks, acknowledgements and Republish requests out, a clock passed in.
#include <catch2/catch.hpp>

#include <vector>

#include "engine/client/subscription.hpp"
#include "protocol/codec.hpp"
#include "protocol/message.hpp"
#include "tests/support/alloc_counter.hpp"

// Everything in a namespace of its own, so that this file can share a unity batch with neighbours
// that use the same helper names (docs/decisions/0050).
namespace client_subscription_test {

using namespace uactor;
using actors::subscription_engine;
namespace status = ua::status;
using std::chrono::milliseconds;

namespace {

using clock_point = std::chrono::steady_clock::time_point;
const clock_point t0{std::chrono::seconds(1000)};

// A PublishResponse as a server sends it: `changes` data changes (client handles 1..changes),
// or a keep-alive when changes == 0.
ua::publish_response publish(std::uint32_t sub, std::uint32_t seq, std::size_t changes, std::int32_t base = 0) {
  ua::publish_response r;
  r.subscription_id = sub;
  r.notification_message.sequence_number = seq;
  r.notification_message.publish_time = ua::date_time::from_unix_ms(1'767'225'600'000);
  if (changes) {
    ua::data_change_notification dc;
    for (std::size_t i = 0; i < changes; ++i) {
      ua::monitored_item_notification n;
      n.client_handle = static_cast<std::uint32_t>(i + 1);
      n.value.set_value(std::int32_t(base + static_cast<std::int32_t>(i)));
      n.value.source_timestamp = ua::date_time::from_unix_ms(1'767'225'600'000 + base);
      n.value.has_source_timestamp = true;
      dc.monitored_items.push_back(n);
    }
    r.notification_message.notification_data.push_back(ua::extension_object(std::move(dc)));
    r.available_sequence_numbers = {seq};
  }
  return r;
}

ua::publish_response status_change(std::uint32_t sub, std::uint32_t seq, ua::status_code sc) {
  ua::publish_response r;
  r.subscription_id = sub;
  r.notification_message.sequence_number = seq;
  ua::status_change_notification n;
  n.status = sc;
  r.notification_message.notification_data.push_back(ua::extension_object(std::move(n)));
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

struct recorder {
  std::vector<std::uint32_t> sequences;           // of each data callback
  std::vector<std::int32_t> values;               // every change, in order
  std::vector<subscription_status> statuses;

  subscription_handlers fast() {
    subscription_handlers h;
    h.on_data = [this](std::uint32_t, std::uint32_t seq, std::span<const ua::monitored_item_notification> changes) {
      sequences.push_back(seq);
      for (const auto& c : changes) values.push_back(*c.value.value.get_if<std::int32_t>());
    };
    h.on_status = [this](const subscription_status& s) { statuses.push_back(s); };
    return h;
  }
};

std::vector<ua::subscription_acknowledgement> acks_of(subscription_engine& e) {
  ua::publish_request req;
  e.fill_publish(req);
  return {req.subscription_acknowledgements.begin(), req.subscription_acknowledgements.end()};
}

}  // namespace

TEST_CASE("client_subscription: data changes reach the fast handler in order and every message is acknowledged once",
          "[client_subscription]") {
  subscription_engine e;
  recorder rec;
  e.add(7, 100, 10, rec.fast(), t0);
  ua::byte_buffer buf;
  ua::extension_object msg;
  for (std::uint32_t seq = 1; seq <= 3; ++seq) e.on_publish_response(through_wire(publish(7, seq, 2, int(seq) * 10), buf, msg), t0);
  CHECK(rec.sequences == std::vector<std::uint32_t>{1, 2, 3});
  CHECK(rec.values == std::vector<std::int32_t>{10, 11, 20, 21, 30, 31});
  const auto acks = acks_of(e);
  REQUIRE(acks.size() == 3);
  for (std::uint32_t i = 0; i < 3; ++i) CHECK(acks[i] == ua::subscription_acknowledgement{7, i + 1});
  CHECK(acks_of(e).empty());  // sent once
  CHECK(rec.statuses.empty());
}

TEST_CASE("client_subscription: keep-alives are not acknowledged and, carrying the next number, are no gap",
          "[client_subscription]") {
  subscription_engine e;
  recorder rec;
  e.add(1, 100, 10, rec.fast(), t0);
  e.on_publish_response(publish(1, 1, 0), t0);  // keep-alive first: the next message is 1
  e.on_publish_response(publish(1, 1, 1), t0);
  e.on_publish_response(publish(1, 2, 0), t0);  // keep-alive: next is 2
  e.on_publish_response(publish(1, 2, 1), t0);
  std::uint32_t sub = 0, seq = 0;
  CHECK_FALSE(e.next_republish(sub, seq));
  CHECK(acks_of(e).size() == 2);
  CHECK(e.stats().keep_alives == 2);
  CHECK(rec.statuses.empty());
}

TEST_CASE("client_subscription: a gap in sequence numbers is filled by Republish, and what cannot be is reported lost",
          "[client_subscription]") {
  subscription_engine e;
  recorder rec;
  e.add(3, 100, 10, rec.fast(), t0);
  e.on_publish_response(publish(3, 1, 1, 100), t0);
  e.on_publish_response(publish(3, 2, 1, 200), t0);
  e.on_publish_response(publish(3, 5, 1, 500), t0);  // 3 and 4 missing
  std::vector<std::uint32_t> asked;
  std::uint32_t sub = 0, seq = 0;
  while (e.next_republish(sub, seq)) {
    CHECK(sub == 3);
    asked.push_back(seq);
  }
  CHECK(asked == std::vector<std::uint32_t>{3, 4});
  // 3 comes back; 4 is gone from the server's retransmission queue.
  e.on_republished(3, publish(3, 3, 1, 300).notification_message, t0);
  e.on_republish_failed(3, 4, status::bad_message_not_available);
  CHECK(rec.values == std::vector<std::int32_t>{100, 200, 500, 300});
  REQUIRE(rec.statuses.size() == 1);
  CHECK(rec.statuses[0].what == subscription_event::data_lost);
  CHECK(rec.statuses[0].status == status::bad_message_not_available);
  CHECK(rec.statuses[0].sequence_number == 4);
  // The republished message is acknowledged too (it is in the server's retransmission queue).
  const auto acks = acks_of(e);
  CHECK(acks.size() == 4);
  CHECK(acks.back() == ua::subscription_acknowledgement{3, 3});
  CHECK(e.stats().republished == 1);
  CHECK(e.stats().lost == 1);
}

TEST_CASE("client_subscription: a keep-alive ahead of the next number reveals a gap", "[client_subscription]") {
  subscription_engine e;
  recorder rec;
  e.add(3, 100, 10, rec.fast(), t0);
  e.on_publish_response(publish(3, 1, 1), t0);
  e.on_publish_response(publish(3, 4, 0), t0);  // next is 4: 2 and 3 were sent and never arrived
  std::vector<std::uint32_t> asked;
  std::uint32_t sub = 0, seq = 0;
  while (e.next_republish(sub, seq)) asked.push_back(seq);
  CHECK(asked == std::vector<std::uint32_t>{2, 3});
}

TEST_CASE("client_subscription: sequence numbers wrap from 4294967295 to 1 without a gap", "[client_subscription]") {
  subscription_engine e;
  recorder rec;
  e.add(3, 100, 10, rec.fast(), t0);
  e.on_publish_response(publish(3, 0xFFFFFFFEu, 1), t0);
  e.on_publish_response(publish(3, 0xFFFFFFFFu, 1), t0);
  e.on_publish_response(publish(3, 1, 1), t0);
  e.on_publish_response(publish(3, 3, 1), t0);  // 2 missing, across the wrap
  std::vector<std::uint32_t> asked;
  std::uint32_t sub = 0, seq = 0;
  while (e.next_republish(sub, seq)) asked.push_back(seq);
  CHECK(asked == std::vector<std::uint32_t>{2});
}

TEST_CASE("client_subscription: a gap longer than the bound is reported lost beyond it, not asked for",
          "[client_subscription]") {
  actors::subscription_engine_config c;
  c.max_republish_per_gap = 2;
  subscription_engine e(c);
  recorder rec;
  e.add(3, 100, 10, rec.fast(), t0);
  e.on_publish_response(publish(3, 1, 1), t0);
  e.on_publish_response(publish(3, 7, 1), t0);  // 2..6 missing
  std::vector<std::uint32_t> asked;
  std::uint32_t sub = 0, seq = 0;
  while (e.next_republish(sub, seq)) asked.push_back(seq);
  CHECK(asked == std::vector<std::uint32_t>{2, 3});
  REQUIRE(rec.statuses.size() == 3);
  for (std::size_t i = 0; i < 3; ++i) {
    CHECK(rec.statuses[i].what == subscription_event::data_lost);
    CHECK(rec.statuses[i].sequence_number == 4 + i);
  }
}

TEST_CASE("client_subscription: silent after the keep-alive period plus a margin, once, and recovered when heard from",
          "[client_subscription]") {
  subscription_engine e;  // margin: max(500 ms, half the keep-alive period)
  recorder rec;
  e.add(9, 100, 10, rec.fast(), t0);  // keep-alive period 1 s: silent after 1.5 s
  e.check(t0 + milliseconds(1400));
  CHECK(rec.statuses.empty());
  e.on_publish_response(publish(9, 1, 0), t0 + milliseconds(1000));  // a keep-alive
  e.check(t0 + milliseconds(2400));
  CHECK(rec.statuses.empty());
  e.check(t0 + milliseconds(2600));
  REQUIRE(rec.statuses.size() == 1);
  CHECK(rec.statuses[0].what == subscription_event::silent);
  CHECK(rec.statuses[0].subscription_id == 9);
  e.check(t0 + milliseconds(5000));
  CHECK(rec.statuses.size() == 1);  // reported once
  e.on_publish_response(publish(9, 1, 1), t0 + milliseconds(5100));
  REQUIRE(rec.statuses.size() == 2);
  CHECK(rec.statuses[1].what == subscription_event::recovered);
  CHECK(rec.values.size() == 1);
  // A revised (longer) interval moves the deadline.
  e.revise(9, 1000, 10);  // 10 s + 5 s
  e.check(t0 + milliseconds(5100 + 14'000));
  CHECK(rec.statuses.size() == 2);
  e.check(t0 + milliseconds(5100 + 15'100));
  CHECK(rec.statuses.size() == 3);
}

TEST_CASE("client_subscription: Publish requests: two per subscription, capped, fewer after Bad_TooManyPublishRequests",
          "[client_subscription]") {
  actors::subscription_engine_config c;
  c.max_publish_requests = 3;
  subscription_engine e(c);
  CHECK(e.publish_wanted() == 0);  // no subscription: no Publish
  recorder rec;
  e.add(1, 100, 10, rec.fast(), t0);
  CHECK(e.publish_wanted() == 2);
  e.add(2, 100, 10, rec.fast(), t0);
  e.add(3, 100, 10, rec.fast(), t0);
  CHECK(e.publish_wanted() == 3);  // the cap
  ua::publish_request req;
  for (int i = 0; i < 3; ++i) e.fill_publish(req);
  CHECK(e.publish_wanted() == 0);
  e.on_publish_response(publish(1, 1, 0), t0);
  CHECK(e.publish_wanted() == 1);
  e.fill_publish(req);
  // The server holds fewer: as many as it holds now.
  e.on_publish_failed(status::bad_too_many_publish_requests, t0);
  CHECK(e.publish_limit() == 2);
  CHECK(e.publish_wanted() == 0);
  // Timeouts (the server held it, or ours fired) are no error: the request is replaced.
  e.on_publish_failed(status::bad_timeout, t0);
  CHECK(e.publish_wanted() == 1);
  CHECK(rec.statuses.empty());
  // The TimeoutHint outlasts the keep-alive period (1 s + 0.5 s, three times).
  CHECK(e.publish_timeout(milliseconds(1000)) == milliseconds(4500));
  CHECK(e.publish_timeout(milliseconds(10'000)) == milliseconds(10'000));

  // Refused with none outstanding: the next one waits for the next check(), no loop against such a server.
  subscription_engine lone;
  lone.add(1, 100, 10, rec.fast(), t0);
  lone.fill_publish(req);
  lone.fill_publish(req);
  lone.on_publish_failed(status::bad_too_many_publish_requests, t0);
  lone.on_publish_failed(status::bad_too_many_publish_requests, t0);
  CHECK(lone.publish_limit() == 1);
  CHECK(lone.publish_wanted() == 0);
  lone.check(t0);
  CHECK(lone.publish_wanted() == 1);
}

TEST_CASE("client_subscription: Bad_NoSubscription and an expired lifetime close subscriptions with a status",
          "[client_subscription]") {
  subscription_engine e;
  recorder a, b;
  e.add(1, 100, 10, a.fast(), t0);
  e.add(2, 100, 10, b.fast(), t0);
  e.on_publish_response(status_change(1, 1, status::bad_timeout), t0);  // Part 4 §7.25.4
  REQUIRE(a.statuses.size() == 2);
  CHECK(a.statuses[0].what == subscription_event::status_change);
  CHECK(a.statuses[1].what == subscription_event::closed);
  CHECK(a.statuses[1].status == status::bad_timeout);
  CHECK_FALSE(e.contains(1));
  CHECK(e.contains(2));
  e.on_publish_failed(status::bad_no_subscription, t0);
  REQUIRE(b.statuses.size() == 1);
  CHECK(b.statuses[0].what == subscription_event::closed);
  CHECK(b.statuses[0].status == status::bad_no_subscription);
  CHECK(e.empty());
  CHECK(e.publish_wanted() == 0);
}

TEST_CASE("client_subscription: a session error on Publish closes every subscription, unknown ids are ignored",
          "[client_subscription]") {
  subscription_engine e;
  recorder a;
  e.add(1, 100, 10, a.fast(), t0);
  e.on_publish_response(publish(99, 1, 3), t0);  // not ours (deleted a moment ago)
  CHECK(a.values.empty());
  CHECK(acks_of(e).empty());
  CHECK(e.stats().unknown_subscription == 1);
  e.on_publish_failed(status::bad_session_id_invalid, t0);
  REQUIRE(a.statuses.size() == 1);
  CHECK(a.statuses[0].what == subscription_event::closed);
  CHECK(a.statuses[0].status == status::bad_session_id_invalid);
}

TEST_CASE("client_subscription: per-item handlers get their own item's changes, removed items get nothing",
          "[client_subscription]") {
  subscription_engine e;
  e.add(4, 100, 10, subscription_handlers{}, t0);
  std::vector<std::int32_t> one, two;
  e.add_item_handler(4, 1, [&](const ua::monitored_item_notification& n) { one.push_back(*n.value.value.get_if<std::int32_t>()); });
  e.add_item_handler(4, 2, [&](const ua::monitored_item_notification& n) { two.push_back(*n.value.value.get_if<std::int32_t>()); });
  e.bind_item(4, 1, 1001);
  e.bind_item(4, 2, 1002);
  e.on_publish_response(publish(4, 1, 3, 10), t0);  // handles 1, 2, 3 (3 has no handler)
  CHECK(one == std::vector<std::int32_t>{10});
  CHECK(two == std::vector<std::int32_t>{11});
  e.remove_item(4, 1002);
  e.on_publish_response(publish(4, 2, 3, 20), t0);
  CHECK(one == std::vector<std::int32_t>{10, 20});
  CHECK(two == std::vector<std::int32_t>{11});
}

TEST_CASE("client_subscription: decoding and dispatching a PublishResponse allocates nothing in steady state",
          "[client_subscription]") {
  if (!test::counts_allocations) {
    WARN("skipped: allocations are not counted in a sanitizer build");
    return;
  }
  constexpr std::size_t n = 100;
  std::vector<ua::byte_buffer> wire;
  for (std::uint32_t seq = 1; seq <= 50; ++seq) {
    ua::byte_buffer b;
    ua::encoder enc(b);
    ua::encode_message(enc, publish(5, seq, n, static_cast<std::int32_t>(seq)));
    wire.push_back(std::move(b));
  }
  for (const bool per_item : {false, true}) {
    INFO((per_item ? "per item" : "fast"));
    subscription_engine e;
    std::int64_t sum = 0;
    if (per_item) {
      e.add(5, 100, 10, subscription_handlers{}, t0);
      for (std::uint32_t h = 1; h <= n; ++h)
        e.add_item_handler(5, h, [&sum](const ua::monitored_item_notification& c) { sum += *c.value.value.get_if<std::int32_t>(); });
    } else {
      subscription_handlers hs;
      hs.on_data = [&sum](std::uint32_t, std::uint32_t, std::span<const ua::monitored_item_notification> changes) {
        for (const auto& c : changes) sum += *c.value.value.get_if<std::int32_t>();
      };
      e.add(5, 100, 10, std::move(hs), t0);
    }
    ua::extension_object msg;
    ua::publish_request req;
    // Warm-up: the message, the acknowledgement arrays and the request get their shape.
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
    CHECK(e.stats().data_changes == wire.size() * n);
    CHECK(sum > 0);
  }
}

TEST_CASE("client_subscription: a transferred subscription of unknown timing delivers under the old client handles "
          "and is never reported silent",
          "[client_subscription]") {
  subscription_engine e;
  recorder rec;
  // Part 4 §5.14.7: adopted with what the TransferSubscriptions response tells, no timing.
  e.add(41, 0, 0, rec.fast(), t0);
  CHECK(e.publish_wanted() == 2);  // publishing starts for it
  e.check(t0 + std::chrono::hours(1));
  CHECK(rec.statuses.empty());
  // The server's numbering goes on from the old session (sendInitialValues: the current values first).
  e.on_publish_response(publish(41, 17, 2, 5), t0);
  e.on_publish_response(publish(41, 18, 1, 9), t0);
  CHECK(rec.sequences == std::vector<std::uint32_t>{17, 18});
  CHECK(rec.values == std::vector<std::int32_t>{5, 6, 9});
  std::uint32_t sub = 0, seq = 0;
  CHECK_FALSE(e.next_republish(sub, seq));  // starting at 17 is no gap
  const auto acks = acks_of(e);
  REQUIRE(acks.size() == 2);
  CHECK(acks[0] == ua::subscription_acknowledgement{41, 17});
  // The publish timeout is not derived from an unknown period.
  CHECK(e.publish_timeout(milliseconds(10'000)) == milliseconds(10'000));
  // A modify_subscription's revised timing arms the watch: 100 ms x 10 + 0.5 s.
  e.revise(41, 100, 10);
  e.check(t0 + milliseconds(1400));
  CHECK(rec.statuses.empty());
  e.check(t0 + milliseconds(1600));
  REQUIRE(rec.statuses.size() == 1);
  CHECK(rec.statuses[0].what == subscription_event::silent);
}

TEST_CASE("client_subscription: Good_SubscriptionTransferred is reported, then the subscription is closed with it",
          "[client_subscription]") {
  subscription_engine e;
  recorder moved, stays;
  e.add(1, 100, 10, moved.fast(), t0);
  e.add(2, 100, 10, stays.fast(), t0);
  e.on_publish_response(publish(1, 1, 1), t0);
  e.on_publish_response(status_change(1, 2, status::good_subscription_transferred), t0);  // Part 4 §5.14.7
  REQUIRE(moved.statuses.size() == 2);
  CHECK(moved.statuses[0].what == subscription_event::status_change);
  CHECK(moved.statuses[0].status == status::good_subscription_transferred);
  CHECK(moved.statuses[1].what == subscription_event::closed);
  CHECK(moved.statuses[1].status == status::good_subscription_transferred);
  CHECK_FALSE(e.contains(1));
  CHECK(e.contains(2));
  // Late messages of the moved subscription reach nobody; the other one is untouched.
  e.on_publish_response(publish(1, 3, 1), t0);
  CHECK(moved.values.size() == 1);
  CHECK(e.stats().unknown_subscription == 1);
  e.check(t0 + std::chrono::seconds(10));
  CHECK(stays.statuses.size() == 1);  // only its own silence
  CHECK(stays.statuses[0].what == subscription_event::silent);
  // The last subscription transferred away: no more Publish requests are wanted.
  e.on_publish_response(status_change(2, 1, status::good_subscription_transferred), t0);
  CHECK(e.empty());
  CHECK(e.publish_wanted() == 0);
}

TEST_CASE("client_subscription: with acknowledge off nothing is acknowledged, and gaps are still filled",
          "[client_subscription]") {
  actors::subscription_engine_config c;
  c.acknowledge = false;
  subscription_engine e(c);
  recorder rec;
  e.add(3, 100, 10, rec.fast(), t0);
  e.on_publish_response(publish(3, 1, 1), t0);
  e.on_publish_response(publish(3, 3, 1), t0);
  CHECK(acks_of(e).empty());
  std::uint32_t sub = 0, seq = 0;
  REQUIRE(e.next_republish(sub, seq));
  CHECK(seq == 2);
  e.on_republished(3, publish(3, 2, 1).notification_message, t0);
  CHECK(acks_of(e).empty());
  CHECK(rec.sequences == std::vector<std::uint32_t>{1, 3, 2});
}

}  // namespace client_subscription_test
