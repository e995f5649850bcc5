// Our client's subscriptions against another stack: a node-opcua server (tests/interop/node_server.js,
// started with --writer-interval 50). Hidden from the normal run: client_subscription_interop_test.sh
// starts the server and runs "[interop-subscription]" with UACTOR_INTEROP_ENDPOINT set.
#include <catch2/catch.hpp>

#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <string>
#include <vector>

#include "actors/client.hpp"

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

client connect() {
  client_options o;
  o.endpoint_url = endpoint();
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
  std::vector<subscription_status> statuses;

  void add(const ua::data_value& v) {
    std::lock_guard lock(mutex);
    values.push_back(v);
    cv.notify_all();
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
  h.on_data = [&s](std::uint32_t, std::uint32_t, std::span<const ua::monitored_item_notification> changes) {
    for (const auto& c : changes) s.add(c.value);
  };
  h.on_status = [&s](const subscription_status& st) {
    std::lock_guard lock(s.mutex);
    s.statuses.push_back(st);
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

void monitor(client& c, std::uint32_t sub, ua::monitored_item_create_request item) {
  ua::create_monitored_items_request req;
  req.subscription_id = sub;
  req.timestamps_to_return = ua::timestamps_to_return::both;
  req.items_to_create.push_back(std::move(item));
  auto r = c.create_monitored_items_sync(std::move(req));
  REQUIRE(r);
  REQUIRE(r->results.size() == 1);
  REQUIRE(r->results[0].status_code == status::good);
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
  for (std::int16_t v = 1; v <= 12; ++v) write_value(c, node, v);
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
