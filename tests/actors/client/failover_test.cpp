// The redundant client (include/uactor/redundant_client.hpp, docs/decisions/0041) against two
// `uactor run` processes declared a redundant pair ([redundancy], UACTOR_BIN), each writing 10
// variables every 10 ms: in cold, warm and hot mode the server in use is killed (kill -9), the
// client switches, the event says to which server and why, and values resume from the other; the
// killed one is restarted and the next kill goes back. A stopping server (SIGTERM) drops its
// ServiceLevel to 0 first: the client switches for that reason, before the connection goes.
// Hidden tags; ctest runs them as failover.* (tests/CMakeLists.txt). The switch times (kill to the
// first value of the other server) are printed for docs/performance.md, never asserted.
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <map>
#include <optional>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include <unistd.h>

#include <catch2/catch.hpp>

#include "tests/support/fault_proxy.hpp"
#include "tests/support/child_process.hpp"
#include "uactor/redundant_client.hpp"

// Everything in a namespace of its own, so that this file can share a unity batch with neighbours
// that use the same helper names (docs/decisions/0050).
namespace client_failover_test {

using namespace uactor;
using test::uactor_bin;
using namespace std::chrono_literals;
using test::server_process;
using steady = std::chrono::steady_clock;

namespace {

constexpr std::uint32_t items = 10;


// A plant file per server: its own ApplicationUri, both in the set's ServerUriArray. Removed with
// the object (the server has read it by then).
struct plant_file {
  std::string path;
  plant_file(const std::string& name, const std::string& mode)
      : path("/tmp/uactor-failover-" + std::to_string(::getpid()) + "-" + name + ".toml") {
    std::ofstream out(path);
    out << "[server]\nhost_name = \"127.0.0.1\"\napplication_uri = \"urn:failover:" << name << "\"\ndemo = true\n"
        << "[redundancy]\nsupport = \"" << mode << "\"\nserver_uris = [\"urn:failover:a\", \"urn:failover:b\"]\n"
        << "shutdown_delay_ms = 1500\n";
  }
  ~plant_file() { ::unlink(path.c_str()); }
  plant_file(const plant_file&) = delete;
  plant_file& operator=(const plant_file&) = delete;
};

std::vector<std::string> run_args(const plant_file& file) {
  return {"run", "--config", file.path, "--port", "{port}", "--writer-interval", "10", "--load-variables", std::to_string(items)};
}

struct recorder {
  std::mutex m;
  std::vector<steady::time_point> arrivals;  // one per data message
  std::uint64_t changes = 0;
  std::map<std::uint32_t, steady::time_point> last_seen;  // by client handle
  std::vector<connection_event> events;
  std::vector<steady::time_point> event_at;
  std::vector<subscription_status> status;

  subscription_handlers handlers() {
    subscription_handlers h;
    h.on_data = [this](std::uint32_t, std::uint32_t, std::span<const ua::monitored_item_notification> ch) {
      std::lock_guard lock(m);
      const auto now = steady::now();
      arrivals.push_back(now);
      changes += ch.size();
      for (const auto& c : ch) last_seen[c.client_handle] = now;
    };
    h.on_status = [this](const subscription_status& s) {
      std::lock_guard lock(m);
      status.push_back(s);
    };
    return h;
  }
  connection_event_handler on_event() {
    return [this](const connection_event& e) {
      std::lock_guard lock(m);
      events.push_back(e);
      event_at.push_back(steady::now());
    };
  }
  std::size_t switches() {
    std::lock_guard lock(m);
    return static_cast<std::size_t>(
        std::count_if(events.begin(), events.end(), [](const auto& e) { return e.what == connection_event_kind::switched; }));
  }
  connection_event last() {
    std::lock_guard lock(m);
    return events.empty() ? connection_event{} : events.back();
  }
  std::uint64_t seen() {
    std::lock_guard lock(m);
    return changes;
  }
  // The first data message after `t`.
  std::optional<steady::time_point> first_after(steady::time_point t) {
    std::lock_guard lock(m);
    for (auto a : arrivals)
      if (a > t) return a;
    return std::nullopt;
  }
  // Every item (client handles 0..items-1, as the application made them) delivered after `t`.
  bool all_items_after(steady::time_point t) {
    std::lock_guard lock(m);
    for (std::uint32_t h = 0; h < items; ++h)
      if (auto it = last_seen.find(h); it == last_seen.end() || it->second <= t) return false;
    return last_seen.size() == items;
  }
  template <class Pred>
  bool wait(Pred pred, std::chrono::milliseconds timeout) {
    const auto deadline = steady::now() + timeout;
    while (steady::now() < deadline) {
      if (pred()) return true;
      std::this_thread::sleep_for(5ms);
    }
    return pred();
  }
  bool flowing(std::uint64_t more = 100, std::chrono::milliseconds timeout = 5000ms) {
    const auto at = seen();
    return wait([&] { return seen() >= at + more; }, timeout);
  }
  std::string dump() {
    std::lock_guard lock(m);
    std::string out;
    for (const auto& e : events)
      out += " [kind=" + std::to_string(static_cast<int>(e.what)) + " endpoint=" + std::to_string(e.endpoint) +
             " reason=" + std::to_string(static_cast<int>(e.reason)) + " " + e.status.to_string() + "]";
    return out + " changes=" + std::to_string(changes);
  }
};

void print_switch(const char* what, std::vector<double> ms) {
  if (ms.empty()) return;
  std::sort(ms.begin(), ms.end());
  std::string all;
  for (double x : ms) all += " " + std::to_string(static_cast<int>(x));
  std::printf("failover %s: n=%zu p50=%.0f ms max=%.0f ms (kill -9 to the first value from the other server); ms:%s\n", what,
              ms.size(), ms[ms.size() / 2], ms.back(), all.c_str());
}

void subscribe(redundant_client& c, recorder& r) {
  subscription_settings s;
  s.publishing_interval = 50ms;
  s.max_keep_alive_count = 5;
  s.lifetime_count = 400;
  auto sub = c.create_subscription_sync(s, r.handlers());
  REQUIRE(sub);
  ua::create_monitored_items_request req;
  req.subscription_id = sub->subscription_id;
  req.timestamps_to_return = ua::timestamps_to_return::both;
  for (std::uint32_t i = 0; i < items; ++i)
    req.items_to_create.push_back(monitor_value(ua::node_id::string(1, "Load.V" + std::to_string(i)), i, 0, 100));
  auto created = c.create_monitored_items_sync(std::move(req));
  REQUIRE(created);
  for (const auto& res : created->results) {
    INFO(res.status_code.to_string());
    REQUIRE(res.status_code.is_good());
  }
}

// Kills the server in use `rounds` times (a, b, a, ...), restarting each killed one.
void kill_and_switch(redundancy_support mode, int rounds) {
  REQUIRE_FALSE(uactor_bin().empty());
  const std::string mode_name(to_string(mode));
  // The files outlive the servers: a restart reads its file again.
  const plant_file file_a("a", mode_name), file_b("b", mode_name);
  server_process a(uactor_bin(), run_args(file_a));
  server_process b(uactor_bin(), run_args(file_b));
  a.wait_for_output("listening on");
  b.wait_for_output("listening on");
  REQUIRE(a.start());
  REQUIRE(b.start());
  server_process* servers[2] = {&a, &b};
  recorder r;
  redundant_client_options o;
  o.endpoint_urls = {a.url(), b.url()};
  o.mode = mode;
  o.client.request_timeout = 3000ms;
  o.client.connect_timeout = 3000ms;
  o.retry_interval = 200ms;
  o.on_event = r.on_event();
  auto c = redundant_client::connect(o);
  REQUIRE(c);
  REQUIRE(r.switches() == 1);
  CHECK(r.last().reason == failover_reason::initial);
  CHECK(r.last().endpoint == 0);  // both at 255: the first of the list
  subscribe(*c, r);
  REQUIRE(r.flowing());
  std::vector<double> switch_ms;
  for (int round = 0; round < rounds; ++round) {
    const std::size_t from = c->active_endpoint();
    REQUIRE(from < 2);
    const std::size_t to = 1 - from;
    if (mode != redundancy_support::cold) {
      // The other one is connected and watched (after its restart too) before the kill.
      INFO("round " << round);
      REQUIRE(r.wait([&] { return c->service_levels()[to] == 255; }, 10'000ms));
    }
    if (mode == redundancy_support::hot) {
      // Hot (b): the backup reports too (its messages dropped, not shown) before it is needed.
      const auto dropped = c->dropped_backup_messages();
      CHECK(r.wait([&] { return c->dropped_backup_messages() > dropped; }, 5000ms));
    }
    const auto before = r.switches();
    const auto killed = steady::now();
    servers[from]->kill9();
    INFO("round " << round << r.dump());
    REQUIRE(r.wait([&] { return r.switches() > before; }, 10'000ms));
    const auto e = r.last();
    CHECK(e.what == connection_event_kind::switched);
    CHECK(e.endpoint == to);
    CHECK(e.previous == from);
    CHECK(e.endpoint_url == servers[to]->url());
    CHECK(e.reason == failover_reason::connection_lost);
    CHECK(c->active_endpoint() == to);
    REQUIRE(r.flowing());  // values resume, from the other server (the killed one is gone)
    // Every item, under the client handle the application gave it.
    CHECK(r.wait([&] { return r.all_items_after(killed); }, 5000ms));
    if (auto first = r.first_after(killed)) switch_ms.push_back(std::chrono::duration<double, std::milli>(*first - killed).count());
    REQUIRE(servers[from]->start());  // back, as the backup now
  }
  print_switch(mode_name.c_str(), switch_ms);
  // Warm backups are Disabled (SetMonitoringMode) and send no data; hot ones report all along.
  std::printf("failover %s: %llu messages of servers not in use dropped\n", mode_name.c_str(),
              static_cast<unsigned long long>(c->dropped_backup_messages()));
  if (mode == redundancy_support::hot) CHECK(c->dropped_backup_messages() > 0);
  else CHECK(c->dropped_backup_messages() == 0);
  // Requests go to the server in use.
  ua::read_request rr;
  ua::read_value_id id;
  id.node_id = ua::node_id(0, 2267);
  id.attribute_id = 13;
  rr.nodes_to_read.push_back(id);
  auto level = c->read_sync(rr);
  REQUIRE(level);
  CHECK(*level->results[0].value.get_if<std::uint8_t>() == 255);
  CHECK(c->close().is_good());
  {
    std::lock_guard lock(r.m);
    CHECK(std::count_if(r.status.begin(), r.status.end(), [](const auto& s) { return s.what == subscription_event::closed; }) == 1);
  }
}

}  // namespace

TEST_CASE("failover: cold - the server in use killed - the other connected and subscribed, values resume",
          "[.failover-live]") {
  kill_and_switch(redundancy_support::cold, 3);
}

TEST_CASE("failover: warm - the server in use killed - the backup's items enabled, values resume", "[.failover-live]") {
  kill_and_switch(redundancy_support::warm, 4);
}

TEST_CASE("failover: hot - the server in use killed - the backup's data reaches the application", "[.failover-live]") {
  kill_and_switch(redundancy_support::hot, 4);
}

namespace {

// SIGTERM to the server in use: ServiceLevel 0 (maintenance) while its sessions still work
// (shutdown_delay_ms 1500), so the client switches for that reason, not for the lost connection.
void stop_and_switch(redundancy_support mode) {
  REQUIRE_FALSE(uactor_bin().empty());
  const std::string mode_name(to_string(mode));
  // The files outlive the servers: a restart reads its file again.
  const plant_file file_a("a", mode_name), file_b("b", mode_name);
  server_process a(uactor_bin(), run_args(file_a));
  server_process b(uactor_bin(), run_args(file_b));
  a.wait_for_output("listening on");
  b.wait_for_output("listening on");
  REQUIRE(a.start());
  REQUIRE(b.start());
  recorder r;
  redundant_client_options o;
  o.endpoint_urls = {a.url(), b.url()};
  o.mode = mode;
  o.retry_interval = 200ms;
  o.on_event = r.on_event();
  auto c = redundant_client::connect(o);
  REQUIRE(c);
  REQUIRE(c->active_endpoint() == 0);
  subscribe(*c, r);
  REQUIRE(r.flowing());
  if (mode != redundancy_support::cold) REQUIRE(r.wait([&] { return c->service_levels()[1] == 255; }, 10'000ms));
  const auto before = r.switches();
  const auto stopped = steady::now();
  a.terminate();
  INFO(r.dump());
  REQUIRE(r.wait([&] { return r.switches() > before; }, 10'000ms));
  const auto e = r.last();
  {
    std::lock_guard lock(r.m);
    std::printf("failover on SIGTERM (%s): switched %.0f ms after the signal\n", mode_name.c_str(),
                std::chrono::duration<double, std::milli>(r.event_at.back() - stopped).count());
  }
  CHECK(e.endpoint == 1);
  CHECK(e.previous == 0);
  CHECK(e.reason == failover_reason::service_level);
  REQUIRE(r.flowing());
  CHECK(r.all_items_after(stopped));
  CHECK(c->active_endpoint() == 1);
  CHECK(c->close().is_good());
}

}  // namespace

TEST_CASE("failover: on stop - warm - a stopping server (SIGTERM) drops its ServiceLevel and the client leaves it before the connection goes",
          "[.failover-live]") {
  stop_and_switch(redundancy_support::warm);
}

TEST_CASE("failover: on stop - cold - the client connects the other server when the one in use drops its ServiceLevel",
          "[.failover-live]") {
  stop_and_switch(redundancy_support::cold);
}

TEST_CASE("failover: on stop - hot - the client shows the other server's data when the one in use drops its ServiceLevel",
          "[.failover-live]") {
  stop_and_switch(redundancy_support::hot);
}

TEST_CASE("failover: warm stall - the link to the server in use goes silent (no RST) - its watch's silence switches",
          "[.failover-live]") {
  REQUIRE_FALSE(uactor_bin().empty());
  const plant_file file_a("a", "warm"), file_b("b", "warm");
  server_process a(uactor_bin(), run_args(file_a));
  server_process b(uactor_bin(), run_args(file_b));
  a.wait_for_output("listening on");
  b.wait_for_output("listening on");
  REQUIRE(a.start());
  REQUIRE(b.start());
  test::fault_proxy proxy(a.port());
  recorder r;
  redundant_client_options o;
  o.endpoint_urls = {proxy.url(), b.url()};
  o.mode = redundancy_support::warm;
  o.retry_interval = 200ms;
  o.client.request_timeout = 2000ms;
  o.on_event = r.on_event();
  auto c = redundant_client::connect(o);
  REQUIRE(c);
  REQUIRE(c->active_endpoint() == 0);
  subscribe(*c, r);
  REQUIRE(r.flowing());
  REQUIRE(r.wait([&] { return c->service_levels()[1] == 255; }, 10'000ms));
  const auto before = r.switches();
  const auto stalled = steady::now();
  proxy.stall();  // nothing forwarded, nothing closed: only silence tells
  INFO(r.dump());
  REQUIRE(r.wait([&] { return r.switches() > before; }, 10'000ms));
  const auto e = r.last();
  CHECK(e.endpoint == 1);
  CHECK(e.previous == 0);
  CHECK(e.reason == failover_reason::connection_lost);
  REQUIRE(r.flowing());
  if (auto first = r.first_after(stalled))
    std::printf("failover warm, stalled link: first value from the other server %.0f ms after the stall\n",
                std::chrono::duration<double, std::milli>(*first - stalled).count());
  proxy.resume();
  CHECK(c->close().is_good());
}

}  // namespace client_failover_test
