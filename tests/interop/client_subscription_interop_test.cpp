// Our client's subscriptions against another stack: a node-opcua server (tests/interop/node_server.js,
// started with --writer-interval 50). Hidden from the normal run: client_subscription_interop_test.sh
// starts the server and runs "[interop-subscription]" with UACTOR_INTEROP_ENDPOINT set.
#include <catch2/catch.hpp>

#include <condition_variable>
#include <cstdlib>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "uactor/client.hpp"

// Everything in a namespace of its own, so that this file can share a unity batch with neighbours
// that use the same helper names (docs/decisions/0050).
namespace interop_client_subscription_interop_test {

using namespace uactor;
namespace status = ua::status;
using std::chrono::milliseconds;

namespace {

std::string endpoint() {
  const char* e = std::getenv("UACTOR_INTEROP_ENDPOINT");
  if (!e || !*e) FAIL("UACTOR_INTEROP_ENDPOINT is not set: run tests/interop/client_subscription_interop_test.sh");
  return e;
}

ua::node_id demo(std::string_view s) { return ua::node_id::string(1, s); }

client connect(bool acknowledge = true) {
  client_options o;
  o.endpoint_url = endpoint();
  o.acknowledge_notifications = acknowledge;
  o.request_timeout = milliseconds(5000);
  auto c = client::connect(o);
  REQUIRE(c);
  return std::move(*c);
}

// What the handlers saw, across the CAF thread and the test's.
struct seen {
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<ua::data_value> values;
  std::vector<std::uint32_t> handles;    // the client handle of each value (fast handler only)
  std::vector<std::uint32_t> sequences;  // the message of each value (fast handler only)
  std::vector<subscription_status> statuses;

  void add(const ua::data_value& v, std::uint32_t handle = 0, std::uint32_t seq = 0) {
    std::lock_guard lock(mutex);
    values.push_back(v);
    handles.push_back(handle);
    sequences.push_back(seq);
    cv.notify_all();
  }
  // Waits (bounded) until a status `what` has come; true when it has.
  bool wait_status(subscription_event what, milliseconds timeout = milliseconds(10'000)) {
    std::unique_lock lock(mutex);
    return cv.wait_for(lock, timeout, [&] {
      for (const auto& st : statuses)
        if (st.what == what) return true;
      return false;
    });
  }
  // Waits (bounded) until `n` values have arrived; returns a copy of them.
  std::vector<ua::data_value> wait_for(std::size_t n, milliseconds timeout = milliseconds(10'000)) {
    std::unique_lock lock(mutex);
    cv.wait_for(lock, timeout, [&] { return values.size() >= n; });
    return values;
  }
  std::vector<ua::data_value> settle(milliseconds quiet) {
    // Until no value has come for `quiet`.
    std::unique_lock lock(mutex);
    for (;;) {
      const std::size_t last = values.size();
      if (!cv.wait_for(lock, quiet, [&] { return values.size() != last; })) break;
    }
    return values;
  }
};

subscription_handlers fast_into(seen& s) {
  subscription_handlers h;
  h.on_data = [&s](std::uint32_t, std::uint32_t seq, std::span<const ua::monitored_item_notification> changes) {
    for (const auto& c : changes) s.add(c.value, c.client_handle, seq);
  };
  h.on_status = [&s](const subscription_status& st) {
    std::lock_guard lock(s.mutex);
    s.statuses.push_back(st);
    s.cv.notify_all();
  };
  return h;
}

void write_value(client& c, const ua::node_id& node, ua::variant v) {
  ua::write_request w;
  ua::write_value wv;
  wv.node_id = node;
  wv.attribute_id = 13;
  wv.value.set_value(std::move(v));
  w.nodes_to_write.push_back(std::move(wv));
  auto r = c.write_sync(std::move(w));
  REQUIRE(r);
  REQUIRE(r->results.size() == 1);
  REQUIRE(r->results[0] == status::good);
}

std::uint32_t subscribe(client& c, subscription_handlers h, milliseconds interval = milliseconds(50)) {
  subscription_settings s;
  s.publishing_interval = interval;
  auto r = c.create_subscription_sync(s, std::move(h));
  REQUIRE(r);
  REQUIRE(r->subscription_id != 0);
  return r->subscription_id;
}

// Returns the server's MonitoredItemId.
std::uint32_t monitor(client& c, std::uint32_t sub, ua::monitored_item_create_request item) {
  ua::create_monitored_items_request req;
  req.subscription_id = sub;
  req.timestamps_to_return = ua::timestamps_to_return::both;
  req.items_to_create.push_back(std::move(item));
  auto r = c.create_monitored_items_sync(std::move(req));
  REQUIRE(r);
  REQUIRE(r->results.size() == 1);
  REQUIRE(r->results[0].status_code == status::good);
  return r->results[0].monitored_item_id;
}

ua::status_code set_mode(client& c, std::uint32_t sub, std::uint32_t item, ua::monitoring_mode mode) {
  ua::set_monitoring_mode_request r;
  r.subscription_id = sub;
  r.monitoring_mode = mode;
  r.monitored_item_ids = {item};
  auto resp = c.set_monitoring_mode_sync(r);
  REQUIRE(resp);
  REQUIRE(resp->results.size() == 1);
  return resp->results[0];
}

template <class T>
T value_at(const std::vector<ua::data_value>& values, std::size_t i) {
  REQUIRE(i < values.size());
  const auto* v = values[i].value.get_if<T>();
  REQUIRE(v);
  return *v;
}

}  // namespace

TEST_CASE("client subscription interop: Demo.Dynamic.Counter arrives in order, none missing", "[.][interop-subscription]") {
  seen s;  // outlives the client, whose handlers write into it
  auto c = connect();
  const auto sub = subscribe(c, fast_into(s));
  monitor(c, sub, monitor_value(demo("Demo.Dynamic.Counter"), 1, 0, 100, true));
  const auto values = s.wait_for(30);
  REQUIRE(values.size() >= 30);
  for (std::size_t i = 1; i < values.size(); ++i) {
    INFO(i);
    const auto* a = values[i - 1].value.get_if<std::uint32_t>();
    const auto* b = values[i].value.get_if<std::uint32_t>();
    REQUIRE(a);
    REQUIRE(b);
    CHECK(*b == *a + 1);
  }
  {
    std::lock_guard lock(s.mutex);
    CHECK(s.statuses.empty());
  }
  CHECK(c.close() == status::good);
}

TEST_CASE("client subscription interop: every value written arrives, in order, at the item's own handler",
          "[.][interop-subscription]") {
  seen s;  // outlives the client, whose handlers write into it
  auto c = connect();
  const auto node = demo("Demo.Static.Scalar.Int32");
  write_value(c, node, std::int32_t{-1});
  const auto sub = subscribe(c, subscription_handlers{});
  ua::create_monitored_items_request req;
  req.subscription_id = sub;
  req.timestamps_to_return = ua::timestamps_to_return::both;
  req.items_to_create.push_back(monitor_value(node, 0, 0, 100, true));
  std::vector<item_handler> handlers;
  handlers.emplace_back([&s](const ua::monitored_item_notification& n) { s.add(n.value); });
  auto created = c.create_monitored_items_sync(std::move(req), std::move(handlers));
  REQUIRE(created);
  REQUIRE(created->results.size() == 1);
  REQUIRE(created->results[0].status_code == status::good);
  REQUIRE(s.wait_for(1).size() == 1);  // the initial value
  for (std::int32_t v = 1; v <= 25; ++v) write_value(c, node, v);
  const auto values = s.wait_for(26);
  REQUIRE(values.size() == 26);
  CHECK(*values[0].value.get_if<std::int32_t>() == -1);
  for (std::int32_t v = 1; v <= 25; ++v) CHECK(*values[static_cast<std::size_t>(v)].value.get_if<std::int32_t>() == v);
  CHECK(c.close() == status::good);
}

TEST_CASE("client subscription interop: an absolute deadband drops the small changes", "[.][interop-subscription]") {
  seen s;  // outlives the client, whose handlers write into it
  auto c = connect();
  const auto node = demo("Demo.Static.Scalar.Double");
  write_value(c, node, 0.0);
  const auto sub = subscribe(c, fast_into(s));
  auto item = monitor_value(node, 7, 0, 100, true);
  item.requested_parameters.filter = data_change_filter(ua::data_change_trigger::status_value, 1, 1.0);  // absolute 1.0
  monitor(c, sub, item);
  REQUIRE(s.wait_for(1).size() == 1);
  for (const double v : {0.5, 0.9, 2.0, 2.5, 3.5, 3.0}) write_value(c, node, v);
  write_value(c, node, 10.0);  // the marker: everything before it has been sampled
  const auto values = s.wait_for(4);
  REQUIRE(values.size() == 4);
  CHECK(*values[0].value.get_if<double>() == 0.0);
  CHECK(*values[1].value.get_if<double>() == 2.0);
  CHECK(*values[2].value.get_if<double>() == 3.5);
  CHECK(*values[3].value.get_if<double>() == 10.0);
  CHECK(c.close() == status::good);
}

TEST_CASE("client subscription interop: a queue of 3 under a burst sets the overflow bit", "[.][interop-subscription]") {
  seen s;  // outlives the client, whose handlers write into it
  auto c = connect();
  const auto node = demo("Demo.Static.Scalar.Int16");
  write_value(c, node, std::int16_t{0});
  const auto sub = subscribe(c, fast_into(s), milliseconds(1000));
  monitor(c, sub, monitor_value(node, 9, 0, 3, true));
  REQUIRE(s.wait_for(1).size() == 1);
  // The twelve writes all in flight at once (one after the other, each waiting for its answer,
  // they spread over several cycles on a loaded machine): in order on the channel, so the last
  // written is 12.
  struct answers {
    std::mutex m;
    std::condition_variable cv;
    std::vector<ua::status_code> results;
  };
  auto a = std::make_shared<answers>();  // shared: a callback may outlive a failed REQUIRE
  for (std::int16_t v = 1; v <= 12; ++v) {
    ua::write_request w;
    ua::write_value wv;
    wv.node_id = node;
    wv.attribute_id = 13;
    wv.value.set_value(ua::variant(v));
    w.nodes_to_write.push_back(std::move(wv));
    c.write(std::move(w), [a](ua::expected<ua::write_response> r) {
      std::lock_guard lock(a->m);
      a->results.push_back(r && r->results.size() == 1 ? r->results[0] : ua::status_code(status::bad_unexpected_error));
      a->cv.notify_all();
    });
  }
  {
    std::unique_lock lock(a->m);
    REQUIRE(a->cv.wait_for(lock, milliseconds(10'000), [&] { return a->results.size() == 12; }));
    for (const auto& r : a->results) CHECK(r == status::good);
  }
  // At most two publishing cycles took the burst: one held 4 or more changes for 3 places.
  auto values = s.wait_for(4, milliseconds(5000));
  values = s.settle(milliseconds(2500));
  REQUIRE(values.size() >= 4);
  CHECK(values.size() < 13);
  // Part 4 §7.39.2 (StatusCode InfoBits): InfoType DataValue (0x400) and Overflow (0x80).
  bool overflow = false;
  for (const auto& v : values)
    if (v.has_status && (v.status.value() & 0x480u) == 0x480u) overflow = true;
  CHECK(overflow);
  // Discard oldest: the newest value is the last written.
  CHECK(*values.back().value.get_if<std::int16_t>() == 12);
  CHECK(c.close() == status::good);
}

TEST_CASE("client subscription interop: modify, disable publishing, delete", "[.][interop-subscription]") {
  seen s;  // outlives the client, whose handlers write into it
  auto c = connect();
  const auto sub = subscribe(c, fast_into(s));
  monitor(c, sub, monitor_value(demo("Demo.Dynamic.Counter"), 1, 0, 10, true));
  REQUIRE(s.wait_for(3).size() >= 3);
  ua::modify_subscription_request m;
  m.subscription_id = sub;
  m.requested_publishing_interval = 100;
  m.requested_max_keep_alive_count = 5;
  m.requested_lifetime_count = 30;
  auto mr = c.modify_subscription_sync(m);
  REQUIRE(mr);
  CHECK(mr->revised_publishing_interval == Approx(100));
  ua::set_publishing_mode_request p;
  p.publishing_enabled = false;
  p.subscription_ids = {sub};
  auto pr = c.set_publishing_mode_sync(p);
  REQUIRE(pr);
  REQUIRE(pr->results.size() == 1);
  CHECK(pr->results[0] == status::good);
  const auto before = s.settle(milliseconds(400)).size();
  CHECK(s.settle(milliseconds(600)).size() == before);  // nothing while disabled
  ua::delete_subscriptions_request d;
  d.subscription_ids = {sub};
  auto dr = c.delete_subscriptions_sync(d);
  REQUIRE(dr);
  REQUIRE(dr->results.size() == 1);
  CHECK(dr->results[0] == status::good);
  {
    std::lock_guard lock(s.mutex);
    for (const auto& st : s.statuses) UNSCOPED_INFO("status " << int(st.what) << " " << st.status.to_string());
    CHECK(s.statuses.empty());  // no silence, no loss, no close reported
  }
  CHECK(c.close() == status::good);
}

TEST_CASE("client subscription interop: SetMonitoringMode Disabled stops the data, Reporting brings it back",
          "[.][interop-subscription]") {
  seen s;  // outlives the client, whose handlers write into it
  auto c = connect();
  const auto sub = subscribe(c, fast_into(s));
  const auto item = monitor(c, sub, monitor_value(demo("Demo.Dynamic.Counter"), 1, 0, 10, true));
  REQUIRE(s.wait_for(3).size() >= 3);
  // Part 4 §5.13.4: Disabled: no sampling, no reporting, while the counter goes on every 50 ms.
  CHECK(set_mode(c, sub, item, ua::monitoring_mode::disabled) == status::good);
  const auto before = s.settle(milliseconds(300));
  CHECK(s.settle(milliseconds(700)).size() == before.size());
  const auto last = value_at<std::uint32_t>(before, before.size() - 1);
  CHECK(set_mode(c, sub, item, ua::monitoring_mode::reporting) == status::good);
  const auto after = s.wait_for(before.size() + 3);
  REQUIRE(after.size() >= before.size() + 3);
  // Sampling starts again from the counter as it is now: past where it stood, consecutive from there.
  CHECK(value_at<std::uint32_t>(after, before.size()) > last + 5);  // 700 ms at 50 ms per step
  for (std::size_t i = before.size() + 1; i < after.size(); ++i)
    CHECK(value_at<std::uint32_t>(after, i) == value_at<std::uint32_t>(after, i - 1) + 1);
  // An item that does not exist gets its own status, not the whole request's.
  CHECK(set_mode(c, sub, item + 1000, ua::monitoring_mode::disabled) == status::bad_monitored_item_id_invalid);
  {
    std::lock_guard lock(s.mutex);
    CHECK(s.statuses.empty());
  }
  CHECK(c.close() == status::good);
}

TEST_CASE("client subscription interop: SetTriggering: a Sampling item reports only when its trigger does",
          "[.][interop-subscription]") {
  seen s;  // outlives the client, whose handlers write into it
  auto c = connect();
  const auto trigger_node = demo("Demo.Static.Scalar.Int32");
  write_value(c, trigger_node, std::int32_t{-7});
  const auto sub = subscribe(c, fast_into(s));
  const auto trigger = monitor(c, sub, monitor_value(trigger_node, 1, 0, 10, true));
  auto linked_item = monitor_value(demo("Demo.Dynamic.Counter"), 2, 0, 1, true);
  linked_item.monitoring_mode = ua::monitoring_mode::sampling;
  const auto linked = monitor(c, sub, linked_item);
  REQUIRE(s.wait_for(1).size() == 1);  // the trigger's initial value
  // Part 4 §5.13.1.6: a Sampling item alone reports nothing, and adding the link reports nothing.
  ua::set_triggering_request t;
  t.subscription_id = sub;
  t.triggering_item_id = trigger;
  t.links_to_add = {linked};
  auto tr = c.set_triggering_sync(t);
  REQUIRE(tr);
  REQUIRE(tr->add_results.size() == 1);
  CHECK(tr->add_results[0] == status::good);
  CHECK(tr->remove_results.empty());
  auto values = s.settle(milliseconds(500));
  REQUIRE(values.size() == 1);
  CHECK(value_at<std::int32_t>(values, 0) == -7);

  // Each change of the trigger brings the linked item's latest sample, and only then.
  std::vector<std::uint32_t> samples;
  for (const std::int32_t v : {11, 12}) {
    write_value(c, trigger_node, v);
    values = s.wait_for(values.size() + 2);
    values = s.settle(milliseconds(500));
    std::lock_guard lock(s.mutex);
    REQUIRE(s.handles.size() == values.size());
    std::size_t triggers = 0;
    for (std::size_t i = values.size() - 2; i < values.size(); ++i) {
      if (s.handles[i] == 1) {
        ++triggers;
        CHECK(*values[i].value.get_if<std::int32_t>() == v);
      } else {
        CHECK(s.handles[i] == 2);
        REQUIRE(values[i].value.get_if<std::uint32_t>());
        samples.push_back(*values[i].value.get_if<std::uint32_t>());
      }
    }
    CHECK(triggers == 1);
  }
  REQUIRE(samples.size() == 2);
  CHECK(samples[1] > samples[0] + 5);  // the counter went on between the two triggers (>= 500 ms)

  // Removing a link that is not there: its own Bad_MonitoredItemIdInvalid.
  ua::set_triggering_request rm;
  rm.subscription_id = sub;
  rm.triggering_item_id = trigger;
  rm.links_to_remove = {linked, linked + 1000};
  auto rr = c.set_triggering_sync(rm);
  REQUIRE(rr);
  REQUIRE(rr->remove_results.size() == 2);
  CHECK(rr->remove_results[0] == status::good);
  CHECK(rr->remove_results[1] == status::bad_monitored_item_id_invalid);
  // Unlinked: the trigger reports alone.
  const auto n = values.size();
  write_value(c, trigger_node, std::int32_t{13});
  values = s.wait_for(n + 1);
  values = s.settle(milliseconds(500));
  REQUIRE(values.size() == n + 1);
  CHECK(value_at<std::int32_t>(values, n) == 13);
  CHECK(c.close() == status::good);
}

TEST_CASE("client subscription interop: ModifyMonitoredItems adds a deadband to a live item", "[.][interop-subscription]") {
  seen s;  // outlives the client, whose handlers write into it
  auto c = connect();
  const auto node = demo("Demo.Static.Scalar.Double");
  write_value(c, node, 0.0);
  const auto sub = subscribe(c, fast_into(s));
  const auto item = monitor(c, sub, monitor_value(node, 7, 0, 10, true));
  REQUIRE(s.wait_for(1).size() == 1);
  write_value(c, node, 0.25);  // no filter yet: reported
  REQUIRE(s.wait_for(2).size() == 2);
  ua::modify_monitored_items_request m;
  m.subscription_id = sub;
  m.timestamps_to_return = ua::timestamps_to_return::both;
  ua::monitored_item_modify_request mi;
  mi.monitored_item_id = item;
  mi.requested_parameters.client_handle = 8;  // Part 4 §5.13.3: the new handle is used from now on
  mi.requested_parameters.sampling_interval = 0;
  mi.requested_parameters.queue_size = 5;
  mi.requested_parameters.discard_oldest = true;
  mi.requested_parameters.filter = data_change_filter(ua::data_change_trigger::status_value, 1, 1.0);  // absolute 1.0
  m.items_to_modify.push_back(mi);
  mi.monitored_item_id = item + 1000;
  m.items_to_modify.push_back(mi);
  auto mr = c.modify_monitored_items_sync(m);
  REQUIRE(mr);
  REQUIRE(mr->results.size() == 2);
  CHECK(mr->results[0].status_code == status::good);
  CHECK(mr->results[0].revised_queue_size == 5);
  CHECK(mr->results[1].status_code == status::bad_monitored_item_id_invalid);
  // Against the last reported 0.25: 1.0 and 1.2 are within the deadband, 1.5 and 3.0 not.
  for (const double v : {1.0, 1.2, 1.5, 2.0, 3.0}) write_value(c, node, v);
  const auto values = s.wait_for(4);
  s.settle(milliseconds(300));
  std::lock_guard lock(s.mutex);
  REQUIRE(s.values.size() == 4);
  CHECK(*s.values[2].value.get_if<double>() == 1.5);
  CHECK(*s.values[3].value.get_if<double>() == 3.0);
  CHECK(s.handles[1] == 7);
  CHECK(s.handles[2] == 8);
  CHECK(s.handles[3] == 8);
  (void)values;
}

TEST_CASE("client subscription interop: explicit Republish of a retained message, an unknown one is not available",
          "[.][interop-subscription]") {
  seen s;  // outlives the client, whose handlers write into it
  auto c = connect(/*acknowledge=*/false);  // nothing acknowledged: every message stays retained
  const auto node = demo("Demo.Static.Scalar.Int32");
  write_value(c, node, std::int32_t{4242});
  const auto sub = subscribe(c, fast_into(s));
  monitor(c, sub, monitor_value(node, 5, 0, 10, true));
  REQUIRE(s.wait_for(1).size() == 1);
  std::uint32_t seq = 0;
  {
    std::lock_guard lock(s.mutex);
    seq = s.sequences[0];
  }
  REQUIRE(seq != 0);
  ua::republish_request r;
  r.subscription_id = sub;
  r.retransmit_sequence_number = seq;
  auto rp = c.republish_sync(r);
  REQUIRE(rp);
  CHECK(rp->notification_message.sequence_number == seq);
  REQUIRE(rp->notification_message.notification_data.size() == 1);
  const auto* dc = rp->notification_message.notification_data[0].get_if<ua::data_change_notification>();
  REQUIRE(dc);
  REQUIRE(dc->monitored_items.size() == 1);
  CHECK(dc->monitored_items[0].client_handle == 5);
  CHECK(*dc->monitored_items[0].value.value.get_if<std::int32_t>() == 4242);
  // Part 4 §5.14.6: a number the server never sent.
  r.retransmit_sequence_number = seq + 100'000;
  auto missing = c.republish_sync(r);
  REQUIRE_FALSE(missing);
  CHECK(missing.error() == status::bad_message_not_available);
  // The handlers saw the message once (Republish hands it to the caller only).
  CHECK(s.settle(milliseconds(200)).size() == 1);
  CHECK(c.close() == status::good);
}

TEST_CASE("client subscription interop: TransferSubscriptions moves a subscription from one client to another",
          "[.][interop-subscription]") {
  seen a, b;  // outlive the clients, whose handlers write into them
  auto first = connect();
  auto second = connect();
  const auto node = demo("Demo.Static.Scalar.Int32");
  write_value(first, node, std::int32_t{500});
  subscription_settings settings;
  settings.publishing_interval = milliseconds(50);
  auto created = first.create_subscription_sync(settings, fast_into(a));
  REQUIRE(created);
  const auto sub = created->subscription_id;
  monitor(first, sub, monitor_value(node, 42, 0, 10, true));
  REQUIRE(a.wait_for(1).size() == 1);
  write_value(first, node, std::int32_t{501});
  REQUIRE(a.wait_for(2).size() == 2);

  // Handlers that do not match the ids: refused here, nothing sent.
  ua::transfer_subscriptions_request req;
  req.subscription_ids = {sub};
  req.send_initial_values = true;
  auto refused = second.transfer_subscriptions_sync(req, {});
  REQUIRE_FALSE(refused);
  CHECK(refused.error() == status::bad_invalid_argument);

  // Part 4 §5.14.7, both sessions anonymous.
  std::vector<subscription_transfer> targets(1);
  targets[0].handlers = fast_into(b);
  targets[0].revised_publishing_interval_ms = created->revised_publishing_interval;
  targets[0].revised_max_keep_alive_count = created->revised_max_keep_alive_count;
  auto moved = second.transfer_subscriptions_sync(req, std::move(targets));
  REQUIRE(moved);
  REQUIRE(moved->results.size() == 1);
  CHECK(moved->results[0].status_code == status::good);
  // sendInitialValues: the current value first, under the ClientHandle the first session gave.
  auto values = b.wait_for(1);
  REQUIRE(values.size() == 1);
  CHECK(value_at<std::int32_t>(values, 0) == 501);
  write_value(second, node, std::int32_t{502});
  values = b.wait_for(2);
  REQUIRE(values.size() == 2);
  CHECK(value_at<std::int32_t>(values, 1) == 502);
  {
    std::lock_guard lock(b.mutex);
    CHECK(b.handles == std::vector<std::uint32_t>{42, 42});
  }
  // The first session is told Good_SubscriptionTransferred (it keeps Publish requests at the
  // server), then the subscription is closed there, and it gets nothing more.
  REQUIRE(a.wait_status(subscription_event::closed));
  {
    std::lock_guard lock(a.mutex);
    REQUIRE(a.statuses.size() == 2);
    CHECK(a.statuses[0].what == subscription_event::status_change);
    CHECK(a.statuses[0].status == status::good_subscription_transferred);
    CHECK(a.statuses[1].what == subscription_event::closed);
    CHECK(a.statuses[1].status == status::good_subscription_transferred);
    CHECK(a.values.size() == 2);
  }
  // A subscription that does not exist: its own result, and nothing adopted.
  ua::transfer_subscriptions_request unknown;
  unknown.subscription_ids = {sub + 1000};
  std::vector<subscription_transfer> nobody(1);
  nobody[0].handlers = fast_into(b);
  auto none = second.transfer_subscriptions_sync(unknown, std::move(nobody));
  REQUIRE(none);
  REQUIRE(none->results.size() == 1);
  CHECK(none->results[0].status_code == status::bad_subscription_id_invalid);
  // The refused id adopted nothing; the transferred subscription goes on at the second session.
  write_value(second, node, std::int32_t{503});
  values = b.wait_for(3);
  REQUIRE(values.size() == 3);
  CHECK(value_at<std::int32_t>(values, 2) == 503);
  CHECK(a.settle(milliseconds(200)).size() == 2);
  {
    std::lock_guard lock(b.mutex);
    CHECK(b.statuses.empty());
  }
  CHECK(second.close() == status::good);
  CHECK(first.close() == status::good);
}

}  // namespace interop_client_subscription_interop_test
