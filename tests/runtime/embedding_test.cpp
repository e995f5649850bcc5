// The embedding API (include/uactor/) end to end: a runtime with a server on port 0, the
// application's nodes, values and callbacks, and our client over real sockets as the peer.
#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <mutex>
#include <chrono>
#include <thread>

#include <catch2/catch.hpp>

#include "uactor/ua/attribute_ids.hpp"
#include "uactor/ua/node_ids.hpp"
#include "uactor/ua/status_codes.hpp"
#include "uactor/runtime.hpp"

using namespace uactor;
using namespace std::chrono_literals;
namespace ids = uactor::ua::ids;

namespace {

struct fixture {
  runtime rt;
  server* srv = nullptr;
  std::uint16_t ns = 0;
  std::optional<client> peer;

  fixture() {
    auto plan = default_server_plan();
    plan.listen_address = "127.0.0.1";
    plan.port = 0;
    plan.security = {"none"};
    auto s = rt.start_server(plan);
    REQUIRE(s.has_value());
    srv = *s;
    ns = srv->register_namespace("urn:test:plant");
    REQUIRE(ns == 2);
    REQUIRE(srv->register_namespace("urn:test:plant") == ns);  // idempotent
    REQUIRE(srv->apply(folder(id("Plant"), ns0::objects_folder, "Plant")) == ua::status::good);
  }

  node_id id(std::string_view s) const { return node_id::string(ns, s); }

  variable_node variable(std::string_view s, std::uint8_t access_level = access::read) const {
    variable_node v;
    v.id = id(s);
    v.parent = id("Plant");
    v.browse_name = qualified_name{ns, ua::ua_string(s)};
    v.data_type = node_id(0, ids::double_);
    v.access_level = access_level;
    v.value.set_value(0.0);
    return v;
  }

  client& connect() {
    client_options o;
    o.endpoint_url = "opc.tcp://127.0.0.1:" + std::to_string(srv->port());
    o.request_timeout = 10s;
    auto c = rt.connect(o);
    REQUIRE(c.has_value());
    peer.emplace(std::move(*c));
    return *peer;
  }

  ua::data_value read(const node_id& node) {
    ua::read_request r;
    r.nodes_to_read.resize(1);
    r.nodes_to_read[0].node_id = node;
    r.nodes_to_read[0].attribute_id = static_cast<std::uint32_t>(ua::attribute_id::value);
    auto resp = peer->read_sync(r);
    REQUIRE(resp.has_value());
    REQUIRE(resp->results.size() == 1);
    return resp->results[0];
  }

  ua::status_code write(const node_id& node, double v) {
    ua::write_request w;
    w.nodes_to_write.resize(1);
    w.nodes_to_write[0].node_id = node;
    w.nodes_to_write[0].attribute_id = static_cast<std::uint32_t>(ua::attribute_id::value);
    w.nodes_to_write[0].value.set_value(v);
    auto resp = peer->write_sync(w);
    REQUIRE(resp.has_value());
    return resp->results.at(0);
  }

  ua::call_method_result call(const node_id& object, const node_id& method, std::vector<variant> inputs) {
    ua::call_request c;
    c.methods_to_call.resize(1);
    c.methods_to_call[0].object_id = object;
    c.methods_to_call[0].method_id = method;
    c.methods_to_call[0].input_arguments = ua::ua_array<variant>(std::move(inputs));
    auto resp = peer->call_sync(c);
    REQUIRE(resp.has_value());
    return resp->results.at(0);
  }
};

double as_double(const ua::data_value& dv) {
  const auto* d = dv.value.get_if<double>();
  return d ? *d : -1;
}

}  // namespace

TEST_CASE("embedded server: a client's Write goes to the application, which accepts or refuses it", "[runtime]") {
  fixture f;
  REQUIRE(f.srv->apply(f.variable("SP", access::read_write)) == ua::status::good);
  thread_executor device;
  std::atomic<int> asked{0};
  REQUIRE(f.srv->on_write(f.id("SP"),
                          [&](const write_call& w, write_reply reply) {
                            ++asked;
                            const double v = *w.value.value.get_if<double>();
                            reply(v >= 0 && v <= 100 ? ua::status::good : ua::status::bad_out_of_range);
                          },
                          {device.get(), 2s}) == ua::status::good);
  f.connect();
  CHECK(f.write(f.id("SP"), 42) == ua::status::good);
  CHECK(as_double(f.read(f.id("SP"))) == 42);
  CHECK(f.write(f.id("SP"), 420) == ua::status::bad_out_of_range);
  CHECK(as_double(f.read(f.id("SP"))) == 42);  // refused: not stored
  // The server's own checks come first: a String is a type mismatch, the application is not asked.
  ua::write_request w;
  w.nodes_to_write.resize(1);
  w.nodes_to_write[0].node_id = f.id("SP");
  w.nodes_to_write[0].attribute_id = static_cast<std::uint32_t>(ua::attribute_id::value);
  w.nodes_to_write[0].value.set_value(ua::ua_string("x"));
  CHECK(f.peer->write_sync(w)->results.at(0) == ua::status::bad_type_mismatch);
  CHECK(asked == 2);
}

TEST_CASE("embedded server: no answer in time is Bad_Timeout, a throwing handler Bad_InternalError", "[runtime]") {
  fixture f;
  REQUIRE(f.srv->apply(f.variable("Silent", access::read_write)) == ua::status::good);
  REQUIRE(f.srv->apply(f.variable("Throws", access::read_write)) == ua::status::good);
  REQUIRE(f.srv->on_write(f.id("Silent"), [](const write_call&, write_reply) {}, {inline_executor(), 200ms}) ==
          ua::status::good);
  REQUIRE(f.srv->on_write(f.id("Throws"), [](const write_call&, write_reply) { throw std::runtime_error("boom"); }) ==
          ua::status::good);
  f.connect();
  const auto started = std::chrono::steady_clock::now();
  CHECK(f.write(f.id("Silent"), 1) == ua::status::bad_timeout);
  CHECK(std::chrono::steady_clock::now() - started >= 200ms);
  CHECK(f.write(f.id("Throws"), 1) == ua::status::bad_internal_error);
  // A hook on a node that is not a variable, or does not exist.
  CHECK(f.srv->on_write(f.id("Plant"), [](const write_call&, write_reply) {}) == ua::status::bad_node_class_invalid);
  CHECK(f.srv->on_read(f.id("Nope"), [](const read_call&, read_reply) {}) == ua::status::bad_node_id_unknown);
}

TEST_CASE("embedded server: a read-through waits for the device while other Reads go on", "[runtime]") {
  fixture f;
  REQUIRE(f.srv->apply(f.variable("Slow")) == ua::status::good);
  REQUIRE(f.srv->apply(f.variable("Fast")) == ua::status::good);
  // The device answers only once the test has seen 20 other Reads answered (or after 10 s): a
  // server that waited for the device would never answer them, and the test would fail.
  std::mutex mutex;
  std::condition_variable others_done;
  bool go = false;
  thread_executor device;
  REQUIRE(f.srv->on_read(f.id("Slow"),
                         [&](const read_call&, read_reply reply) {
                           {
                             std::unique_lock lock(mutex);
                             others_done.wait_for(lock, 10s, [&] { return go; });
                           }
                           data_value v;
                           v.set_value(21.5);
                           reply(v);
                         },
                         {device.get(), 15s}) == ua::status::good);
  auto& c = f.connect();
  std::atomic<bool> slow_done{false};
  ua::data_value slow;
  ua::read_request r;
  r.nodes_to_read.resize(1);
  r.nodes_to_read[0].node_id = f.id("Slow");
  r.nodes_to_read[0].attribute_id = static_cast<std::uint32_t>(ua::attribute_id::value);
  c.read(r, [&](ua::expected<ua::read_response> resp) {
    if (resp) slow = resp->results.at(0);
    slow_done = true;
  });
  for (int i = 0; i < 20; ++i) CHECK(as_double(f.read(f.id("Fast"))) == 0);
  CHECK_FALSE(slow_done);  // the 20 were answered while the slow one waited
  {
    std::lock_guard lock(mutex);
    go = true;
  }
  others_done.notify_all();
  for (int i = 0; i < 1000 && !slow_done; ++i) std::this_thread::sleep_for(10ms);
  REQUIRE(slow_done);
  CHECK(as_double(slow) == 21.5);
  CHECK(as_double(f.read(f.id("Slow"))) == 21.5);  // asked again; the answer is also stored
}

TEST_CASE("embedded server: a method answered later, with its outputs checked", "[runtime]") {
  fixture f;
  object_node pump;
  pump.id = f.id("Pump");
  pump.parent = f.id("Plant");
  pump.browse_name = qualified_name{f.ns, ua::ua_string("Pump")};
  REQUIRE(f.srv->apply(pump) == ua::status::good);
  method_node start;
  start.id = f.id("Pump.Start");
  start.parent = f.id("Pump");
  start.browse_name = qualified_name{f.ns, ua::ua_string("Start")};
  start.inputs = {method_argument("speed", node_id(0, ids::double_))};
  start.outputs = {method_argument("started", node_id(0, ids::boolean))};
  REQUIRE(f.srv->apply(start) == ua::status::good);
  thread_executor device;
  REQUIRE(f.srv->on_call(f.id("Pump.Start"),
                         [](const method_call& c, call_reply reply) {
                           const double speed = *c.inputs.at(0).get_if<double>();
                           if (speed > 3000) return reply(ua::status::bad_out_of_range);
                           if (speed < 0) return reply(ua::status::good);  // a bug: no output
                           reply(ua::status::good, {variant(true)});
                         },
                         {device.get(), 2s}) == ua::status::good);
  f.connect();
  auto ok = f.call(f.id("Pump"), f.id("Pump.Start"), {variant(1500.0)});
  CHECK(ok.status_code == ua::status::good);
  REQUIRE(ok.output_arguments.size() == 1);
  CHECK(*ok.output_arguments[0].get_if<bool>());
  CHECK(f.call(f.id("Pump"), f.id("Pump.Start"), {variant(5000.0)}).status_code == ua::status::bad_out_of_range);
  CHECK(f.call(f.id("Pump"), f.id("Pump.Start"), {variant(-1.0)}).status_code == ua::status::bad_internal_error);
  // The server's checks first: a String input never reaches the application.
  CHECK(f.call(f.id("Pump"), f.id("Pump.Start"), {variant(ua::ua_string("x"))}).status_code ==
        ua::status::bad_invalid_argument);
}

TEST_CASE("embedded server: value batches from several threads, applied in each thread's order", "[runtime]") {
  fixture f;
  constexpr int threads = 4, tags_per_thread = 50, rounds = 200;
  std::vector<node_change> nodes;
  for (int t = 0; t < threads; ++t)
    for (int i = 0; i < tags_per_thread; ++i)
      nodes.push_back(f.variable("T" + std::to_string(t) + "." + std::to_string(i)));
  for (const auto& sc : f.srv->apply(nodes)) REQUIRE(sc == ua::status::good);
  std::vector<std::thread> pushers;
  std::atomic<int> refused{0};
  for (int t = 0; t < threads; ++t)
    pushers.emplace_back([&, t] {
      std::vector<node_id> ids;
      for (int i = 0; i < tags_per_thread; ++i) ids.push_back(f.id("T" + std::to_string(t) + "." + std::to_string(i)));
      std::vector<value_handle> handles;
      for (auto& h : f.srv->resolve(ids)) handles.push_back(*h);
      std::vector<value_update> batch(tags_per_thread);
      for (int round = 1; round <= rounds; ++round) {
        for (int i = 0; i < tags_per_thread; ++i) batch[i] = value_update{handles[i], variant(double(round)), {}, {}};
        while (f.srv->write_values(batch) == ua::status::bad_resource_unavailable) {
          ++refused;
          std::this_thread::yield();
        }
      }
    });
  // Meanwhile other threads add and remove nodes of their own.
  std::vector<std::thread> builders;
  for (int t = 0; t < 2; ++t)
    builders.emplace_back([&, t] {
      for (int i = 0; i < 50; ++i) {
        const auto name = "B" + std::to_string(t) + "." + std::to_string(i);
        REQUIRE(f.srv->apply(f.variable(name)) == ua::status::good);
        REQUIRE(f.srv->apply(node_removal{f.id(name)}) == ua::status::good);
      }
    });
  for (auto& p : pushers) p.join();
  for (auto& b : builders) b.join();
  f.connect();
  // Every tag holds its thread's last round: batches of one thread were applied in order.
  ua::read_request r;
  for (int t = 0; t < threads; ++t)
    for (int i = 0; i < tags_per_thread; ++i) {
      auto& item = r.nodes_to_read.emplace_back();
      item.node_id = f.id("T" + std::to_string(t) + "." + std::to_string(i));
      item.attribute_id = static_cast<std::uint32_t>(ua::attribute_id::value);
    }
  auto resp = f.peer->read_sync(r);
  REQUIRE(resp.has_value());
  for (const auto& dv : resp->results) CHECK(as_double(dv) == rounds);
  CHECK(as_double(f.read(f.id("B0.49"))) == -1);  // removed
  CHECK(f.read(f.id("B0.49")).status == ua::status::bad_node_id_unknown);
  // A handle of a removed node is dropped, not applied elsewhere.
  REQUIRE(f.srv->apply(f.variable("Doomed")) == ua::status::good);
  const auto doomed = f.srv->resolve(f.id("Doomed"));
  REQUIRE(doomed.has_value());
  REQUIRE(f.srv->apply(node_removal{f.id("Doomed")}) == ua::status::good);
  const value_update late{*doomed, variant(1.0), {}, {}};
  CHECK(f.srv->write_values(std::span(&late, 1)) == ua::status::good);
  CHECK(f.srv->resolve(f.id("Doomed")).error() == ua::status::bad_node_id_unknown);
  CHECK(f.srv->write_values({}) == ua::status::bad_nothing_to_do);
}

TEST_CASE("embedded server: calls after stop say so", "[runtime]") {
  fixture f;
  f.srv->stop();
  CHECK(f.srv->apply(f.variable("X")) == ua::status::bad_server_halted);
  const value_update v{{0}, variant(1.0), {}, {}};
  CHECK(f.srv->write_values(std::span(&v, 1)) == ua::status::bad_server_halted);
}

TEST_CASE("embedded server: not open at start, connects are refused until open(), then the nodes are there",
          "[runtime]") {
  runtime rt;
  auto plan = default_server_plan();
  plan.listen_address = "127.0.0.1";
  plan.port = 0;
  plan.security = {"none"};
  plan.open_at_start = false;
  auto s = rt.start_server(plan);
  REQUIRE(s.has_value());
  server& srv = **s;
  REQUIRE(srv.port() != 0);  // bound: the port is known before it accepts
  client_options o;
  o.endpoint_url = "opc.tcp://127.0.0.1:" + std::to_string(srv.port());
  o.connect_timeout = 2s;
  const auto refused = rt.connect(o);
  REQUIRE_FALSE(refused.has_value());
  CHECK(refused.error() == ua::status::bad_connection_rejected);

  const auto ns = srv.register_namespace("urn:test:plant");
  variable_node v;
  v.id = node_id::string(ns, "Ready");
  v.parent = ns0::objects_folder;
  v.browse_name = qualified_name{ns, ua::ua_string("Ready")};
  v.data_type = node_id(0, ids::double_);
  v.value.set_value(4.5);
  REQUIRE(srv.apply(v) == ua::status::good);
  REQUIRE(srv.open() == ua::status::good);
  CHECK(srv.open() == ua::status::good);  // idempotent

  auto c = rt.connect(o);
  REQUIRE(c.has_value());
  ua::read_request r;
  r.nodes_to_read.resize(1);
  r.nodes_to_read[0].node_id = v.id;
  r.nodes_to_read[0].attribute_id = static_cast<std::uint32_t>(ua::attribute_id::value);
  const auto resp = c->read_sync(r);
  REQUIRE(resp.has_value());
  REQUIRE(resp->results.size() == 1);
  CHECK(*resp->results[0].value.get_if<double>() == 4.5);
  c->close();
  srv.stop();
  CHECK(srv.open() == ua::status::bad_server_halted);
}

TEST_CASE("embedded server: every value a device thread pushes reaches a subscription, in order", "[runtime]") {
  fixture f;
  constexpr std::uint32_t tags = 100, rounds = 30;
  std::vector<node_change> nodes;
  std::vector<node_id> ids;
  for (std::uint32_t i = 0; i < tags; ++i) {
    nodes.push_back(f.variable("S" + std::to_string(i)));
    ids.push_back(f.id("S" + std::to_string(i)));
  }
  for (const auto& sc : f.srv->apply(nodes)) REQUIRE(sc == ua::status::good);
  auto& c = f.connect();
  std::mutex mutex;
  std::vector<std::vector<double>> seen(tags);
  subscription_settings settings;
  settings.publishing_interval = std::chrono::milliseconds(20);
  auto sub = c.create_subscription_sync(
      settings, {[&](std::uint32_t, std::uint32_t, std::span<const ua::monitored_item_notification> changes) {
                   std::lock_guard lock(mutex);
                   for (const auto& n : changes) seen.at(n.client_handle).push_back(as_double(n.value));
                 },
                 {}});
  REQUIRE(sub.has_value());
  ua::create_monitored_items_request items;
  items.subscription_id = sub->subscription_id;
  for (std::uint32_t i = 0; i < tags; ++i) {
    auto m = monitor_value(ids[i], i);
    m.requested_parameters.queue_size = rounds + 1;  // the device is faster than publishing: keep them all
    m.requested_parameters.sampling_interval = 0;
    items.items_to_create.push_back(m);
  }
  auto created = c.create_monitored_items_sync(items);
  REQUIRE(created.has_value());
  for (const auto& r : created->results) REQUIRE(r.status_code == ua::status::good);
  // The initial values (0) first.
  for (int i = 0; i < 200; ++i) {
    {
      std::lock_guard lock(mutex);
      if (std::all_of(seen.begin(), seen.end(), [](const auto& v) { return !v.empty(); })) break;
    }
    std::this_thread::sleep_for(10ms);
  }
  std::thread device([&] {
    std::vector<value_update> batch(tags);
    const auto handles = f.srv->resolve(ids);
    for (std::uint32_t round = 1; round <= rounds; ++round) {
      for (std::uint32_t i = 0; i < tags; ++i) batch[i] = value_update{*handles[i], variant(double(round)), {}, {}};
      REQUIRE(f.srv->write_values(batch) == ua::status::good);
    }
  });
  device.join();
  for (int i = 0; i < 500; ++i) {
    {
      std::lock_guard lock(mutex);
      if (std::all_of(seen.begin(), seen.end(), [](const auto& v) { return v.size() > rounds; })) break;
    }
    std::this_thread::sleep_for(10ms);
  }
  std::lock_guard lock(mutex);
  for (std::uint32_t i = 0; i < tags; ++i) {
    REQUIRE(seen[i].size() == rounds + 1);  // the initial value and every round, none lost or repeated
    for (std::uint32_t r = 0; r <= rounds; ++r) CHECK(seen[i][r] == double(r));
  }
}

TEST_CASE("embedded server: set_service_level reaches a ServiceLevel subscriber, drain() drops it to 0 before the stop",
          "[runtime]") {
  runtime rt;
  auto plan = default_server_plan();
  plan.listen_address = "127.0.0.1";
  plan.port = 0;
  plan.security = {"none"};
  plan.redundancy.support = redundancy_support::hot;
  plan.redundancy.server_uris = {"urn:a", "urn:b"};
  plan.redundancy.service_level = 230;
  plan.redundancy.shutdown_delay = 1000ms;
  auto s = rt.start_server(plan);
  REQUIRE(s.has_value());
  server& srv = **s;
  client_options o;
  o.endpoint_url = "opc.tcp://127.0.0.1:" + std::to_string(srv.port());
  auto c = rt.connect(o);
  REQUIRE(c.has_value());
  std::mutex mutex;
  std::vector<int> seen;
  subscription_settings settings;
  settings.publishing_interval = 20ms;
  auto sub = c->create_subscription_sync(
      settings, {[&](std::uint32_t, std::uint32_t, std::span<const ua::monitored_item_notification> changes) {
                   std::lock_guard lock(mutex);
                   for (const auto& n : changes)
                     if (const auto* b = n.value.value.get_if<std::uint8_t>()) seen.push_back(*b);
                 },
                 {}});
  REQUIRE(sub.has_value());
  ua::create_monitored_items_request items;
  items.subscription_id = sub->subscription_id;
  items.items_to_create.push_back(monitor_value(node_id(0, ids::server_service_level), 0, 0, 10));
  auto created = c->create_monitored_items_sync(items);
  REQUIRE(created.has_value());
  REQUIRE(created->results.at(0).status_code == ua::status::good);
  auto saw = [&](int level) {
    for (int i = 0; i < 500; ++i) {
      {
        std::lock_guard lock(mutex);
        if (std::find(seen.begin(), seen.end(), level) != seen.end()) return true;
      }
      std::this_thread::sleep_for(10ms);
    }
    return false;
  };
  CHECK(saw(230));  // plan.redundancy.service_level
  REQUIRE(srv.set_service_level(150) == ua::status::good);
  CHECK(saw(150));
  // drain(): 0 (maintenance), then the shutdown delay while the session still works: the
  // subscriber hears of it before drain() returns, i.e. before any session closes.
  srv.drain();
  {
    std::lock_guard lock(mutex);
    INFO("seen " << seen.size() << " values");
    CHECK(std::find(seen.begin(), seen.end(), 0) != seen.end());
  }
  const auto still = c->read_sync(ua::read_request{});  // the session still answers: Bad_NothingToDo
  REQUIRE_FALSE(still.has_value());
  CHECK(still.error() == ua::status::bad_nothing_to_do);
  srv.stop();
  CHECK(srv.set_service_level(200) == ua::status::bad_server_halted);
}
