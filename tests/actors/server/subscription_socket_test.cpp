// Subscriptions end to end through the actors and real sockets: the in-process server
// (tests/support/server_fixture: listener, connection brokers, session host) and uactor::client.
// Publish requests queued at the host come back on the connection that sent them
// (docs/decisions/0010: deferred responses pushed to the channel's connection).
#include <catch2/catch.hpp>

#include <condition_variable>
#include <mutex>
#include <vector>

#include "uactor/client.hpp"
#include "tests/support/server_fixture.hpp"

using namespace uactor;
namespace status = ua::status;
using std::chrono::milliseconds;

namespace {

struct seen {
  std::mutex mutex;
  std::condition_variable cv;
  std::vector<std::int32_t> values;

  std::vector<std::int32_t> wait_for(std::size_t n, milliseconds timeout = milliseconds(10'000)) {
    std::unique_lock lock(mutex);
    cv.wait_for(lock, timeout, [&] { return values.size() >= n; });
    return values;
  }
};

subscription_handlers into(seen& s) {
  subscription_handlers h;
  h.on_data = [&s](std::uint32_t, std::uint32_t, std::span<const ua::monitored_item_notification> changes) {
    std::lock_guard lock(s.mutex);
    for (const auto& c : changes)
      if (const auto* v = c.value.value.get_if<std::int32_t>()) s.values.push_back(*v);
    s.cv.notify_all();
  };
  return h;
}

client connect(const test::server_fixture& f) {
  client_options o;
  o.endpoint_url = "opc.tcp://127.0.0.1:" + std::to_string(f.port());
  o.request_timeout = milliseconds(5000);
  auto c = client::connect(o);
  REQUIRE(c);
  return std::move(*c);
}

const ua::node_id int32_node = ua::node_id::string(1, "Demo.Static.Scalar.Int32");

void write_value(client& c, std::int32_t v) {
  ua::write_request w;
  ua::write_value wv;
  wv.node_id = int32_node;
  wv.attribute_id = 13;
  wv.value.set_value(v);
  w.nodes_to_write.push_back(std::move(wv));
  auto r = c.write_sync(std::move(w));
  REQUIRE(r);
  REQUIRE(r->results.at(0) == status::good);
}

std::uint32_t subscribe_int32(client& c, seen& s) {
  subscription_settings settings;
  settings.publishing_interval = milliseconds(20);
  auto created = c.create_subscription_sync(settings, into(s));
  REQUIRE(created);
  ua::create_monitored_items_request req;
  req.subscription_id = created->subscription_id;
  req.timestamps_to_return = ua::timestamps_to_return::both;
  req.items_to_create.push_back(monitor_value(int32_node, 1, 0, 1000, true));
  auto items = c.create_monitored_items_sync(std::move(req));
  REQUIRE(items);
  REQUIRE(items->results.at(0).status_code == status::good);
  return created->subscription_id;
}

}  // namespace

TEST_CASE("subscription over sockets: every value written arrives in order at two subscribed clients",
          "[subscription]") {
  test::server_fixture f;
  seen a_seen, b_seen;  // outlive the clients, whose handlers write into them
  auto a = connect(f);
  auto b = connect(f);
  write_value(a, 0);
  subscribe_int32(a, a_seen);
  subscribe_int32(b, b_seen);
  REQUIRE(a_seen.wait_for(1).size() == 1);  // the initial value
  REQUIRE(b_seen.wait_for(1).size() == 1);
  for (std::int32_t i = 1; i <= 100; ++i) write_value(i % 2 ? a : b, i);
  std::vector<std::int32_t> want(101);
  for (std::int32_t i = 0; i <= 100; ++i) want[i] = i;
  CHECK(a_seen.wait_for(101) == want);
  CHECK(b_seen.wait_for(101) == want);
  CHECK(a.close() == status::good);
  CHECK(b.close() == status::good);
}

TEST_CASE("subscription over sockets: a client that goes with Publish requests queued leaves the server healthy",
          "[subscription]") {
  test::server_fixture f;
  const auto baseline = f.running_actors();
  {
    seen s;
    auto c = connect(f);
    subscribe_int32(c, s);
    REQUIRE(s.wait_for(1).size() == 1);
    // The client's destructor drops the connection with its Publish requests queued at the host.
  }
  REQUIRE(f.wait_running_at_most(baseline) == baseline);
  seen s;
  auto c = connect(f);
  subscribe_int32(c, s);
  write_value(c, 77);
  const auto values = s.wait_for(2);
  REQUIRE(values.size() >= 2);
  CHECK(values.back() == 77);
  CHECK(c.close() == status::good);
}
