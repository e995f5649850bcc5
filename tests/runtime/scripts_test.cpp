// Scripts through the embedding API (server::add_scripts, docs/scripts.md): a real server on port 0,
// inputs written as value batches, outputs read by our client. In process here; the out-of-process
// runner's cases need the uactor program (UACTOR_BIN) and run under ctest's scripts.out_of_process.
#include <sys/socket.h>
#include <unistd.h>

#include <csignal>
#include <cstdlib>
#include <functional>
#include <map>
#include <thread>

#include <catch2/catch.hpp>

#include "actors/shards/runner.hpp"
#include "uactor/ua/attribute_ids.hpp"
#include "uactor/ua/node_ids.hpp"
#include "uactor/ua/status_codes.hpp"
#include "scripting/frames.hpp"
#include "scripting/worker.hpp"
#include "uactor/runtime.hpp"
#include "tests/support/child_process.hpp"

using namespace uactor;
using test::uactor_bin;
using namespace std::chrono_literals;
namespace ids = uactor::ua::ids;

namespace {

struct plant {
  runtime rt;
  server* srv = nullptr;
  std::uint16_t ns = 0;
  std::optional<client> peer;
  std::map<std::string, value_handle> handles;

  plant() {
    auto plan = default_server_plan();
    plan.listen_address = "127.0.0.1";
    plan.port = 0;
    plan.security = {"none"};
    srv = *rt.start_server(plan);
    ns = srv->register_namespace("urn:test:scripts");
    REQUIRE(srv->apply(folder(id("Plant"), ns0::objects_folder, "Plant")) == ua::status::good);
    for (const char* name : {"P1", "P2", "P3", "Flow", "Ratio", "Other", "Total", "Bomb", "Slow", "Busy"}) add(name, ids::double_);
    for (const char* name : {"High", "Low"}) add(name, ids::boolean);
    client_options o;
    o.endpoint_url = "opc.tcp://127.0.0.1:" + std::to_string(srv->port());
    o.request_timeout = 10s;
    auto c = rt.connect(o);
    REQUIRE(c.has_value());
    peer.emplace(std::move(*c));
  }

  node_id id(std::string_view s) const { return node_id::string(ns, s); }

  void add(const std::string& name, std::uint32_t type) {
    variable_node v;
    v.id = id(name);
    v.parent = id("Plant");
    v.browse_name = qualified_name{ns, ua::ua_string(name)};
    v.data_type = node_id(0, type);
    v.access_level = access::read_write;
    if (type == ids::boolean) v.value.set_value(false);
    REQUIRE(srv->apply(v) == ua::status::good);
    handles[name] = *srv->resolve(id(name));
  }

  void set(std::initializer_list<std::pair<const char*, double>> values) {
    std::vector<value_update> batch;
    for (const auto& [name, v] : values) batch.push_back({handles.at(name), variant(v), {}, {}});
    REQUIRE(srv->write_values(batch) == ua::status::good);
  }

  ua::data_value read(const std::string& name) {
    ua::read_request r;
    r.nodes_to_read.resize(1);
    r.nodes_to_read[0].node_id = id(name);
    r.nodes_to_read[0].attribute_id = static_cast<std::uint32_t>(ua::attribute_id::value);
    auto resp = peer->read_sync(r);
    REQUIRE(resp.has_value());
    return resp->results.at(0);
  }

  // Reads until `ok` holds (bounded: 10 s), returns whether it did. A wait for a state, not a timing.
  bool until(const std::string& name, const std::function<bool(const ua::data_value&)>& ok) {
    for (int i = 0; i < 5000; ++i) {
      if (ok(read(name))) return true;
      std::this_thread::sleep_for(2ms);
    }
    const auto last = read(name);
    const auto* d = last.value.get_if<double>();
    UNSCOPED_INFO(name << " last: " << last.status.to_string() << " " << (d ? std::to_string(*d) : std::string("(no Double)")));
    return false;
  }
  bool until_value(const std::string& name, double v) {
    return until(name, [v](const ua::data_value& d) {
      const auto* x = d.value.get_if<double>();
      return d.status.is_good() && x && *x == v;
    });
  }
  bool until_bool(const std::string& name, bool v) {
    return until(name, [v](const ua::data_value& d) {
      const auto* x = d.value.get_if<bool>();
      return d.status.is_good() && x && *x == v;
    });
  }
  bool until_status(const std::string& name, ua::status_code sc) {
    return until(name, [sc](const ua::data_value& d) { return d.status == sc; });
  }

  script_definition tag(const char* output, std::string source, std::vector<std::pair<const char*, const char*>> in,
                        script_kind kind = script_kind::virtual_tag) {
    script_definition d;
    d.kind = kind;
    d.output = id(output);
    d.source = std::move(source);
    for (const auto& [n, node] : in) d.inputs.push_back({n, id(node)});
    return d;
  }
};


std::string worker_bin() {
  const char* bin = std::getenv("UACTOR_WORKER_BIN");
  return bin ? bin : "";
}

// Suppression by a plant expression (Part 9 §5.8.2 SuppressedState; issue 33): a Lua alarm
// predicate computes "the pump is stopped" into a Boolean, and a limit alarm names that Boolean as
// its `suppressed_by`. The predicate runs wherever `plan` says (in process or in worker shards).
void check_predicate_suppresses_alarm(plant& p, script_plan plan) {
  plan.scripts.push_back(p.tag("Low", "speed < 1", {{"speed", "P1"}}, script_kind::alarm));
  const auto report = p.srv->add_scripts(plan);
  for (const auto& e : report.errors) UNSCOPED_INFO(e);
  REQUIRE(report.ok());
  limit_alarm a;
  a.id = p.id("P3.HighAlarm");
  a.input = p.id("P3");
  a.name = "P3High";
  a.high = 10;
  a.suppressed_by = p.id("Low");
  REQUIRE(p.srv->add_limit_alarm(a) == ua::status::good);
  p.set({{"P1", 50}, {"P3", 20}});  // running, above its limit: active and not suppressed
  CHECK(p.until_bool("P3.HighAlarm.ActiveState.Id", true));
  CHECK(p.until_bool("P3.HighAlarm.SuppressedState.Id", false));
  p.set({{"P1", 0}});  // stopped: the predicate turns true and suppresses the active alarm
  CHECK(p.until_bool("Low", true));
  CHECK(p.until_bool("P3.HighAlarm.SuppressedState.Id", true));
  CHECK(p.until_bool("P3.HighAlarm.SuppressedOrShelved", true));
  CHECK(p.until_bool("P3.HighAlarm.ActiveState.Id", true));  // flagged, still active
  p.set({{"P1", 40}});  // running again
  CHECK(p.until_bool("P3.HighAlarm.SuppressedState.Id", false));
  CHECK(p.until_bool("P3.HighAlarm.SuppressedOrShelved", false));
}

}  // namespace

TEST_CASE("scripts in process: virtual tags and an alarm and a calculation follow their inputs", "[scripts]") {
  plant p;
  script_plan plan;
  plan.scripts.push_back(p.tag("Flow", "p1 - p2", {{"p1", "P1"}, {"p2", "P2"}}));
  plan.scripts.push_back(p.tag("High", "p1 > 80", {{"p1", "P1"}}, script_kind::alarm));
  auto calc = p.tag("Total", "n = (n or 0) + 1\nreturn n", {});
  calc.kind = script_kind::calculation;
  calc.period = 10ms;
  plan.scripts.push_back(calc);
  const auto report = p.srv->add_scripts(plan);
  for (const auto& e : report.errors) UNSCOPED_INFO(e);
  REQUIRE(report.ok());
  // Inputs without values yet (a Double starts null here): the output says so.
  CHECK(p.until_status("Flow", ua::status::bad_waiting_for_initial_data));
  for (int k = 0; k < 20; ++k) p.set({{"P1", 100.0 + k}, {"P2", double(k)}});
  CHECK(p.until_value("Flow", 100));
  CHECK(p.until_bool("High", true));
  p.set({{"P1", 50}});
  CHECK(p.until_value("Flow", 31));
  CHECK(p.until_bool("High", false));
  CHECK(p.until(("Total"), [](const ua::data_value& d) { return d.value.get_if<double>() && *d.value.get_if<double>() >= 3; }));
  CHECK(p.srv->scripts_metrics().evaluations > 3);
}

TEST_CASE("scripts in process: an alarm predicate suppresses a limit alarm through its suppressed_by", "[scripts]") {
  plant p;
  check_predicate_suppresses_alarm(p, {});
}

TEST_CASE("scripts: a syntax error and an unknown node and a bad output type refuse the plan and start nothing", "[scripts]") {
  plant p;
  script_plan plan;
  plan.scripts.push_back(p.tag("Flow", "p1 +* 2", {{"p1", "P1"}}));
  plan.scripts.push_back(p.tag("Ratio", "p1", {{"p1", "Nowhere"}}));
  plan.scripts.push_back(p.tag("Flow", "p1 > 1", {{"p1", "P1"}}, script_kind::alarm));
  plan.scripts.push_back(p.tag("Other", "1", {{"end", "P1"}}));
  const auto report = p.srv->add_scripts(plan);
  REQUIRE(report.errors.size() == 2);  // what needs no server first: the syntax error, the keyword
  CHECK(report.errors[0].find("virtual_tags[0] (ns=2;s=Flow): syntax error:") == 0);
  CHECK(report.errors[1].find("'end' is not a Lua identifier") != std::string::npos);
  plan.scripts.erase(plan.scripts.begin());
  plan.scripts.pop_back();
  const auto second = p.srv->add_scripts(plan);
  REQUIRE(second.errors.size() == 2);
  CHECK(second.errors[0].find("the input p1 (ns=2;s=Nowhere) does not exist") != std::string::npos);
  CHECK(second.errors[1].find("an alarm must be a Boolean") != std::string::npos);
  CHECK(p.srv->scripts_metrics().evaluations == 0);
}

TEST_CASE("scripts in process: an error and a memory bomb and a runaway are contained and the others go on", "[scripts]") {
  plant p;
  script_plan plan;
  plan.limits.memory_bytes = 8u << 20;
  plan.limits.soft_deadline = 20ms;
  plan.limits.grace = 20ms;
  plan.limits.max_instructions = 0;  // the deadline alone stops the runaway
  plan.limits.strikes = 2;
  plan.scripts.push_back(p.tag("Ratio", "p1 / nothing.there", {{"p1", "P1"}}));
  plan.scripts.push_back(p.tag("Bomb", "#string.rep('x', 1 << 30) + p1", {{"p1", "P1"}}));
  plan.scripts.push_back(p.tag("Slow", "(function() while p1 > 0 do end end)() or 1", {{"p1", "P1"}}));
  plan.scripts.push_back(p.tag("Flow", "p1 * 2", {{"p1", "P1"}}));
  REQUIRE(p.srv->add_scripts(plan).ok());
  p.set({{"P1", 1}});
  CHECK(p.until_status("Ratio", ua::status::bad_internal_error));
  CHECK(p.until_status("Bomb", ua::status::bad_internal_error));
  CHECK(p.until_status("Slow", ua::status::bad_timeout));  // stopped by the count hook at T + G: struck once
  CHECK(p.until_value("Flow", 2));
  p.set({{"P1", 2}});
  CHECK(p.until_status("Slow", ua::status::bad_out_of_service));  // the second strike quarantines
  CHECK(p.until_status("Bomb", ua::status::bad_out_of_service));  // the memory limit strikes too
  CHECK(p.until_status("Ratio", ua::status::bad_internal_error));  // a script error never does
  CHECK(p.until_value("Flow", 4));
  const auto m = p.srv->scripts_metrics();
  CHECK(m.quarantines == 2);
  CHECK(m.errors >= 4);
}

// The worker end alone, over a socket pair, on a thread: hostile and truncated frames.
TEST_CASE("scripts: a schedule only on a calculation, and one that names a minute, and a scheduled calculation waits for it",
          "[scripts]") {
  plant p;
  script_plan plan;
  auto bad = p.tag("Flow", "p1", {{"p1", "P1"}});
  bad.schedule = "@hourly";
  plan.scripts.push_back(bad);
  auto never = p.tag("Total", "return 1", {});
  never.kind = script_kind::calculation;
  never.schedule = "0 0 31 4 *";  // April has 30 days
  plan.scripts.push_back(never);
  const auto report = p.srv->add_scripts(plan);
  REQUIRE(report.errors.size() == 2);
  CHECK(report.errors[0] == "virtual_tags[0] (ns=2;s=Flow): only a calculation has a schedule");
  CHECK(report.errors[1] == "calculations[0] (ns=2;s=Total): the schedule '0 0 31 4 *': names no minute that exists "
                            "(such as the 30th of February)");

  // Accepted; not run at once (its first minute comes at the latest in a year): the output waits.
  script_plan ok;
  auto yearly = p.tag("Total", "return 1", {});
  yearly.kind = script_kind::calculation;
  yearly.schedule = "@yearly";
  ok.scripts.push_back(yearly);
  REQUIRE(p.srv->add_scripts(ok).ok());
  std::this_thread::sleep_for(100ms);  // no evaluation may come; nothing to wait for
  CHECK(p.srv->scripts_metrics().evaluations == 0);
}

TEST_CASE("worker: an oversized header or an unknown frame ends it with 2 and a closed host with 0", "[scripts]") {
  const auto run = [](std::vector<std::byte> bytes, bool close_after) {
    int sv[2];
    REQUIRE(::socketpair(AF_UNIX, SOCK_STREAM, 0, sv) == 0);
    scripting::worker_options o;
    o.address_space_limit = 0;  // not in the test process
    o.heartbeat = 60s;
    int rc = -1;
    std::thread t([&] { rc = scripting::run_worker(sv[1], o); });
    REQUIRE(::write(sv[0], bytes.data(), bytes.size()) == static_cast<ssize_t>(bytes.size()));
    if (close_after) ::shutdown(sv[0], SHUT_WR);
    t.join();
    ::close(sv[0]);
    ::close(sv[1]);
    return rc;
  };
  CHECK(run({std::byte{0xFF}, std::byte{0xFF}, std::byte{0xFF}, std::byte{0x7F}}, false) == 2);
  CHECK(run({std::byte{1}, std::byte{0}, std::byte{0}, std::byte{0}, std::byte{0x42}}, false) == 2);
  std::vector<std::byte> truncated;
  scripting::encode(scripting::heartbeat_frame{1}, truncated);
  truncated[4] = std::byte(scripting::frame_type::run_batch);  // a batch body that is too short
  CHECK(run(truncated, false) == 2);
  CHECK(run({std::byte{9}, std::byte{0}}, true) == 0);  // cut mid-header: the host went away
}

// ---------------------------------------------------------------------------------------------
// Out of process: uactor-worker shards (UACTOR_WORKER_BIN; `uactor worker`, UACTOR_BIN, in the
// first case), run by ctest's scripts.out_of_process.

namespace {

script_plan out_of_process(std::uint32_t workers, std::string program = worker_bin()) {
  script_plan plan;
  plan.runner = script_runner::out_of_process;
  plan.workers = workers;
  plan.worker_program = std::move(program);
  return plan;
}

bool until(const std::function<bool()>& ok) {
  for (int i = 0; i < 5000 && !ok(); ++i) std::this_thread::sleep_for(2ms);
  return ok();
}

}  // namespace

TEST_CASE("scripts out of process: the same values as in process", "[.scripts-oop]") {
  REQUIRE_FALSE(uactor_bin().empty());
  REQUIRE_FALSE(worker_bin().empty());
  // uactor-worker, and uactor's own worker mode: the same loop (scripting::worker_main).
  const auto program = GENERATE(worker_bin(), uactor_bin());
  INFO(program);
  plant p;
  auto plan = out_of_process(2, program);
  plan.scripts.push_back(p.tag("Flow", "p1 - p2", {{"p1", "P1"}, {"p2", "P2"}}));
  plan.scripts.push_back(p.tag("High", "p1 > 80", {{"p1", "P1"}}, script_kind::alarm));
  plan.scripts.push_back(p.tag("Ratio", "p1 / p2", {{"p1", "P1"}, {"p2", "P2"}}));
  plan.scripts.push_back(p.tag("Other", "nil + 1", {{"p1", "P1"}}));
  // Slow, and under its deadline: 500,000 Lua steps (milliseconds), a soft deadline of 5 s that a
  // descheduled worker on a loaded machine does not reach either: its value, no timeout, no strike.
  plan.scripts.push_back(p.tag("Busy", "(function() local x = 0 for i = 1, 500000 do x = x + 1 end return x end)() + p1 * 0",
                               {{"p1", "P1"}}));
  plan.limits.soft_deadline = 5s;
  REQUIRE(p.srv->add_scripts(plan).ok());
  REQUIRE(until([&] { return p.srv->scripts_metrics().workers_up == 2; }));
  for (int k = 0; k < 20; ++k) p.set({{"P1", 100.0 + k}, {"P2", double(k + 1)}});
  CHECK(p.until_value("Busy", 500000));
  CHECK(p.until_value("Flow", 99));
  CHECK(p.until_value("Ratio", 119.0 / 20.0));
  CHECK(p.until_bool("High", true));
  CHECK(p.until_status("Other", ua::status::bad_internal_error));
  p.set({{"P1", 10}});
  CHECK(p.until_bool("High", false));
  CHECK(p.until_value("Flow", -10));
  const auto m = p.srv->scripts_metrics();
  CHECK(m.kills == 0);
  CHECK(m.timeouts == 0);
  CHECK(m.worker_deaths == 0);
  // Per shard: both served, and together they are the totals.
  REQUIRE(m.shards.size() == 2);
  CHECK(m.shards[0].evaluations + m.shards[1].evaluations == m.evaluations);
  CHECK(m.shards[0].errors + m.shards[1].errors == m.errors);
  CHECK(m.shards[0].eval_ns + m.shards[1].eval_ns == m.eval_ns);
  for (std::size_t w = 0; w < 2; ++w) {
    CHECK(m.shards[w].evaluations > 0);
    CHECK(m.shards[w].pid == m.worker_pids[w]);
  }
}

TEST_CASE("scripts out of process: an alarm predicate in a worker shard suppresses a limit alarm", "[.scripts-oop]") {
  REQUIRE_FALSE(worker_bin().empty());
  plant p;
  check_predicate_suppresses_alarm(p, out_of_process(1));
}

TEST_CASE("scripts out of process: a runaway's worker is killed and the culprit struck and quarantined and "
          "its victims run elsewhere, the shard restored", "[.scripts-oop]") {
  REQUIRE_FALSE(worker_bin().empty());
  plant p;
  auto plan = out_of_process(2);
  plan.limits.soft_deadline = 300ms;
  plan.limits.grace = 300ms;
  plan.limits.max_instructions = 0;  // only the kill stops it
  plan.limits.strikes = 2;
  // Item 0 (home shard 0) runs away while p3 > 0; item 2 (home shard 0 too) is queued behind it.
  plan.scripts.push_back(p.tag("Slow", "(function() while p3 > 0 do end end)() or p3", {{"p3", "P3"}}));
  plan.scripts.push_back(p.tag("Other", "p1 + 1", {{"p1", "P1"}}));
  plan.scripts.push_back(p.tag("Flow", "p3 * 10", {{"p3", "P3"}}));
  REQUIRE(p.srv->add_scripts(plan).ok());
  REQUIRE(until([&] { return p.srv->scripts_metrics().workers_up == 2; }));
  p.set({{"P3", 0}, {"P1", 0}});
  CHECK(p.until_value("Flow", 0));
  CHECK(p.until_value("Other", 1));
  const auto pids = p.srv->scripts_metrics().worker_pids;
  p.set({{"P3", 1}});
  // The published path never waits: while the runaway holds shard 0 (no kill yet), shard 1's item
  // publishes.
  p.set({{"P1", 5}});
  CHECK(p.until_value("Other", 6));
  CHECK(p.srv->scripts_metrics().kills == 0);
  CHECK(p.until_status("Slow", ua::status::bad_timeout));
  // Its victim (Flow, queued behind it) runs on shard 1 or on the restarted shard 0, unstruck.
  CHECK(p.until_value("Flow", 10));
  REQUIRE(until([&] { return p.srv->scripts_metrics().kills >= 1; }));
  REQUIRE(until([&] { return p.srv->scripts_metrics().workers_up == 2; }));
  CHECK(p.srv->scripts_metrics().worker_pids[0] != pids[0]);
  // A second runaway run: the second strike quarantines it.
  p.set({{"P3", 2}});
  CHECK(p.until_status("Slow", ua::status::bad_out_of_service));
  CHECK(p.until_value("Flow", 20));
  REQUIRE(until([&] { return p.srv->scripts_metrics().workers_up == 2; }));
  p.set({{"P3", 3}, {"P1", 7}});
  CHECK(p.until_value("Flow", 30));
  CHECK(p.until_value("Other", 8));
  const auto m = p.srv->scripts_metrics();
  CHECK(m.kills == 2);
  CHECK(m.quarantines == 1);
  CHECK(m.victims >= 1);
  // Both kills were of the culprit's home shard.
  REQUIRE(m.shards.size() == 2);
  CHECK(m.shards[0].kills == 2);
  CHECK(m.shards[1].kills == 0);
  CHECK(m.shards[0].timeouts >= 2);
}

TEST_CASE("scripts out of process: a memory bomb hits the worker's limit and the worker lives on", "[.scripts-oop]") {
  REQUIRE_FALSE(worker_bin().empty());
  plant p;
  auto plan = out_of_process(1);
  plan.limits.memory_bytes = 16u << 20;
  // One allocation past the limit: refused by the state's allocator at once (a loop of small ones,
  // engine_test's bomb, can take the emergency collector long enough to meet the deadline instead).
  plan.scripts.push_back(p.tag("Bomb", "#string.rep('x', 1 << 30) + p1", {{"p1", "P1"}}));
  plan.scripts.push_back(p.tag("Flow", "p1 * 3", {{"p1", "P1"}}));
  REQUIRE(p.srv->add_scripts(plan).ok());
  p.set({{"P1", 2}});
  CHECK(p.until_status("Bomb", ua::status::bad_internal_error));
  CHECK(p.until_value("Flow", 6));
  p.set({{"P1", 3}});
  CHECK(p.until_value("Flow", 9));
  CHECK(p.srv->scripts_metrics().worker_deaths == 0);
}

TEST_CASE("scripts out of process: a worker killed from outside mid-batch blames nobody and the shard comes back and "
          "an active alarm stays active", "[.scripts-oop]") {
  REQUIRE_FALSE(worker_bin().empty());
  plant p;
  auto plan = out_of_process(1);
  plan.limits.soft_deadline = 10s;  // the busy script is never late
  plan.limits.grace = 10s;
  plan.limits.strikes = 1;          // a strike would quarantine at once: none may come
  // A run that takes a while (a bounded loop), so that the kill lands mid-batch.
  plan.scripts.push_back(p.tag("Slow", "(function() local s = 0 for i = 1, 3e7 do s = s + i end return p1 end)()",
                               {{"p1", "P1"}}));
  plan.scripts.push_back(p.tag("High", "p1 > 80", {{"p1", "P1"}}, script_kind::alarm));
  plan.scripts.push_back(p.tag("Flow", "p1 * 2", {{"p1", "P1"}}));
  REQUIRE(p.srv->add_scripts(plan).ok());
  p.set({{"P1", 90}});
  CHECK(p.until_bool("High", true));
  CHECK(p.until_value("Slow", 90));
  const int pid = p.srv->scripts_metrics().worker_pids.at(0);
  REQUIRE(pid > 0);
  p.set({{"P1", 95}});
  std::this_thread::sleep_for(20ms);  // not a timing assertion: only makes a mid-batch kill likely
  REQUIRE(::kill(pid, SIGKILL) == 0);
  REQUIRE(until([&] { return p.srv->scripts_metrics().worker_deaths == 1; }));
  // Nobody was struck: nothing is quarantined; every output comes back right.
  CHECK(p.until_value("Slow", 95));
  CHECK(p.until_value("Flow", 190));
  CHECK(p.until_bool("High", true));
  const auto m = p.srv->scripts_metrics();
  CHECK(m.quarantines == 0);
  CHECK(m.workers_up == 1);
  CHECK(m.worker_pids.at(0) != pid);
}

TEST_CASE("scripts out of process: a hung worker (SIGSTOP) misses its heartbeats and is replaced", "[.scripts-oop]") {
  REQUIRE_FALSE(worker_bin().empty());
  plant p;
  auto plan = out_of_process(1);
  plan.scripts.push_back(p.tag("Flow", "p1 * 2", {{"p1", "P1"}}));
  REQUIRE(p.srv->add_scripts(plan).ok());
  p.set({{"P1", 1}});
  CHECK(p.until_value("Flow", 2));
  const int pid = p.srv->scripts_metrics().worker_pids.at(0);
  REQUIRE(::kill(pid, SIGSTOP) == 0);
  // Idle and silent for 4 heartbeats (2 s): killed, restarted.
  REQUIRE(until([&] {
    const auto m = p.srv->scripts_metrics();
    return m.worker_deaths == 1 && m.workers_up == 1 && m.worker_pids.at(0) != pid;
  }));
  p.set({{"P1", 4}});
  CHECK(p.until_value("Flow", 8));
  CHECK(p.srv->scripts_metrics().quarantines == 0);
}

TEST_CASE("scripts: a repeated kill warning is said once per interval, with the count held back", "[scripts]") {
  actors::rate_limited_warning w(std::chrono::seconds(10));
  const std::chrono::steady_clock::time_point t0{};
  std::uint64_t held = 99;
  REQUIRE(w.due(t0 + 1s, held));  // the first is said at once
  CHECK(held == 0);
  for (int i = 1; i <= 5; ++i) CHECK_FALSE(w.due(t0 + 1s + i * 1s, held));
  REQUIRE(w.due(t0 + 11s, held));  // the interval has passed: said, with the five held back
  CHECK(held == 5);
  CHECK_FALSE(w.due(t0 + 12s, held));
  REQUIRE(w.due(t0 + 60s, held));
  CHECK(held == 1);
}

// ---------------------------------------------------------------------------------------------
// Shadow mode through the embedding API (docs/decisions/0043; the runners' cases, with a gate and a
// kill -9, in shadow_runner_test.cpp).

TEST_CASE("scripts in shadow mode: both runners agree, every run compared, and the published values follow the inputs",
          "[.scripts-oop]") {
  REQUIRE_FALSE(worker_bin().empty());
  plant p;
  auto plan = out_of_process(2);
  plan.runner = script_runner::shadow;
  plan.scripts.push_back(p.tag("Flow", "p1 - p2", {{"p1", "P1"}, {"p2", "P2"}}));
  plan.scripts.push_back(p.tag("High", "p1 > 80", {{"p1", "P1"}}, script_kind::alarm));
  plan.scripts.push_back(p.tag("Other", "nil + 1", {{"p1", "P1"}}));  // an error on both sides: the same outcome
  REQUIRE(p.srv->add_scripts(plan).ok());
  REQUIRE(until([&] { return p.srv->scripts_metrics().workers_up == 2; }));
  for (int k = 0; k < 20; ++k) p.set({{"P1", 100.0 + k}, {"P2", double(k)}});
  CHECK(p.until_value("Flow", 100));
  CHECK(p.until_bool("High", true));
  CHECK(p.until_status("Other", ua::status::bad_internal_error));
  p.set({{"P1", 10}});
  CHECK(p.until_value("Flow", -9));
  CHECK(p.until_bool("High", false));
  // The counters sum both runners: every published run was run and compared by the shadow too.
  REQUIRE(until([&] {
    const auto m = p.srv->scripts_metrics();
    return m.shadow_compared > 0 && 2 * m.shadow_compared == m.evaluations;
  }));
  const auto m = p.srv->scripts_metrics();
  CHECK(m.shadow_mismatches == 0);
  CHECK(m.shadow_timeouts == 0);
  CHECK(m.shadow_unavailable == 0);
  CHECK(m.shards.size() == 2);  // the shadow's
}

TEST_CASE("scripts in shadow mode: a script that differs per process is a mismatch on every run and publishes "
          "the in-process value", "[.scripts-oop]") {
  REQUIRE_FALSE(worker_bin().empty());
  plant p;
  auto plan = out_of_process(1);
  plan.runner = script_runner::shadow;
  // Each Lua state seeds math.random itself (time and its own address): the two runners draw
  // differently (equal by chance once in 2^40 runs).
  plan.scripts.push_back(p.tag("Ratio", "math.random(0, 1 << 40) + p1 * 0", {{"p1", "P1"}}));
  plan.scripts.push_back(p.tag("Flow", "p1 * 2", {{"p1", "P1"}}));
  REQUIRE(p.srv->add_scripts(plan).ok());
  REQUIRE(until([&] { return p.srv->scripts_metrics().workers_up == 1; }));
  for (int k = 1; k <= 3; ++k) {
    p.set({{"P1", double(k)}});
    CHECK(p.until_value("Flow", 2.0 * k));
  }
  REQUIRE(until([&] {
    const auto m = p.srv->scripts_metrics();
    return m.shadow_compared > 0 && 2 * m.shadow_compared == m.evaluations;
  }));
  const auto m = p.srv->scripts_metrics();
  // Ratio's runs mismatch, Flow's agree: half of what was compared.
  CHECK(m.shadow_mismatches * 2 == m.shadow_compared);
  CHECK(m.shadow_mismatches >= 1);
  // Published: the in-process draw, Good (the shadow's is only compared).
  const auto ratio = p.read("Ratio");
  CHECK(ratio.status.is_good());
  CHECK(ratio.value.get_if<double>() != nullptr);
}
