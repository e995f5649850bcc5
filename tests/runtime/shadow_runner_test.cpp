// Shadow mode at the runners (actors::spawn_shadowed_runner, docs/decisions/0043): the in-process
// runner publishes, a shard supervisor with uactor-worker shards (UACTOR_WORKER_BIN) runs the same
// runs and compares. Fed input changes as the session host's watch feeds them; the published
// values seen at the publish callback. Waits are for states (bounded), never timings. Run by
// ctest's scripts.out_of_process (hidden tag).
#include <signal.h>

#include <condition_variable>
#include <cstdlib>
#include <mutex>
#include <thread>

#include <catch2/catch.hpp>
#include <caf/all.hpp>

#include "actors/server/server_actors.hpp"
#include "actors/common/tune_io.hpp"
#include "actors/shards/runner.hpp"
#include "uactor/ua/status_codes.hpp"

// Everything in a namespace of its own, so that this file can share a unity batch with neighbours
// that use the same helper names (docs/decisions/0050).
namespace runtime_shadow_runner_test {

using namespace uactor;
using namespace std::chrono_literals;

namespace {

std::string worker_bin() {
  const char* bin = std::getenv("UACTOR_WORKER_BIN");
  return bin ? bin : "";
}

// What the published runner published, by item: every value in order.
struct published {
  std::mutex m;
  std::condition_variable cv;
  std::vector<std::vector<scripting::output_value>> by_item;
  void add(std::span<const scripting::output_value> out) {
    {
      std::lock_guard lock(m);
      for (const auto& o : out) {
        if (by_item.size() <= o.item) by_item.resize(o.item + 1);
        by_item[o.item].push_back(o);
      }
    }
    cv.notify_all();
  }
  // Waits (bounded: 10 s) for item's last published value to be `v`, Good.
  bool until(std::uint32_t item, double v) {
    std::unique_lock lock(m);
    return cv.wait_for(lock, 10s, [&] {
      if (by_item.size() <= item || by_item[item].empty()) return false;
      const auto& last = by_item[item].back();
      const auto* d = last.value.get_if<double>();
      return last.status.is_good() && d && *d == v;
    });
  }
};

bool until(const std::function<bool()>& ok) {
  for (int i = 0; i < 5000 && !ok(); ++i) std::this_thread::sleep_for(2ms);
  return ok();
}

scripting::set_item tag(std::uint32_t slot, std::string source) {
  scripting::set_item it;
  it.spec.kind = scripting::item_kind::virtual_tag;
  it.spec.name = "tag" + std::to_string(slot);
  it.spec.source = std::move(source);
  it.spec.input_names = {"x"};
  it.inputs = {slot};
  it.output_type = ua::builtin_type::double_;
  return it;
}

actors::input_changes_ptr change(std::uint32_t slot, double value) {
  auto c = std::make_shared<actors::watched_changes>();
  ua::data_value v;
  v.value = value;
  v.has_value = true;
  c->push_back({slot, std::move(v)});
  return c;
}

// The actor the runners monitor (the session host in a server). A class, not a lambda: CAF 0.17
// spawns a lambda without arguments through a null argument tuple (UBSan: reference binding to a
// null pointer in init_fun_factory).
class idle_host : public caf::event_based_actor {
public:
  using caf::event_based_actor::event_based_actor;
  caf::behavior make_behavior() override { return {[](int) {}}; }
};

struct shadowed {
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> sys;
  caf::actor host;
  caf::actor runner;
  caf::actor shadow;
  std::shared_ptr<published> out = std::make_shared<published>();
  std::shared_ptr<actors::script_counters> counters;         // the published runner's
  std::shared_ptr<actors::script_counters> shadow_counters;  // the shadow's

  // `adjust` changes the shadow's setup only (its limits: a deterministic difference).
  explicit shadowed(std::vector<scripting::set_item> items,
                    const std::function<void(actors::runner_setup&)>& adjust = [](actors::runner_setup&) {}) {
    cfg.set("scheduler.max-threads", 2);
    actors::tune_io(cfg);
    sys = std::make_unique<caf::actor_system>(cfg);
    host = sys->spawn<idle_host>();
    actors::runner_setup setup;
    setup.input_slots = items.size();
    setup.items = std::move(items);
    setup.soft_deadline = 10s;  // nothing here is late, even on a loaded machine
    setup.grace = 10s;
    setup.workers = 1;
    setup.worker_program = worker_bin();
    auto shadow_setup = setup;
    shadow_setup.counters = std::make_shared<actors::script_counters>();
    adjust(shadow_setup);
    setup.publish = [o = out](std::span<const scripting::output_value> v) { o->add(v); };
    counters = setup.counters;
    shadow_counters = shadow_setup.counters;
    runner = actors::spawn_shadowed_runner(*sys, std::move(setup), std::move(shadow_setup), host, &shadow);
    REQUIRE(until([&] { return shadow_counters->workers_up == 1; }));
  }
  ~shadowed() {
    caf::anon_send_exit(runner, caf::exit_reason::user_shutdown);
    caf::anon_send_exit(host, caf::exit_reason::user_shutdown);
    sys->await_all_actors_done();
  }
  void set(std::uint32_t slot, double v) { caf::anon_send(runner, change(slot, v)); }
  int shadow_pid() { return shadow_counters->worker_pids().at(0); }
};

}  // namespace

TEST_CASE("shadow: both runners agree: every run compared, no mismatch, the values published in process",
          "[.scripts-oop]") {
  REQUIRE_FALSE(worker_bin().empty());
  shadowed s({tag(0, "x * 2 + 1"), tag(1, "x / 3"), tag(2, "x ~= x and 0 or math.sqrt(x)")});
  for (int k = 1; k <= 20; ++k) {
    s.set(0, k);
    s.set(1, k);
    s.set(2, k == 20 ? -1.0 : k);  // sqrt(-1): a NaN on both sides, compared equal
  }
  CHECK(s.out->until(0, 41));
  CHECK(s.out->until(1, 20.0 / 3));
  // Every published run is compared once the shadow caught up: none lost, none late.
  REQUIRE(until([&] { return s.shadow_counters->shadow_compared == s.counters->evaluations; }));
  CHECK(s.counters->evaluations >= 3);
  CHECK(s.shadow_counters->shadow_mismatches == 0);
  CHECK(s.shadow_counters->shadow_timeouts == 0);
  CHECK(s.shadow_counters->shadow_unavailable == 0);
  CHECK(s.shadow_counters->evaluations == s.counters->evaluations);
  // The published runner never sees the shadow's counters, nor the reverse.
  CHECK(s.counters->shadow_compared == 0);
  CHECK(s.counters->worker_starts == 0);
}

TEST_CASE("shadow: a run that ends otherwise out of process is a mismatch and the published value is the in-process one",
          "[.scripts-oop]") {
  REQUIRE_FALSE(worker_bin().empty());
  // A deterministic difference: the shadow's instruction budget stops the loop of tag 0, which
  // the in-process runner (no budget) finishes. Tag 1 agrees.
  shadowed s({tag(0, "(function() local n = 0 for i = 1, 200000 do n = n + 1 end return n end)() + x"),
              tag(1, "x - 1")},
             [](actors::runner_setup& shadow) { shadow.limits.max_instructions = 10'000; });
  for (int k = 1; k <= 3; ++k) {
    s.set(0, k);
    REQUIRE(s.out->until(0, 200000 + k));  // one run per change: each compared
  }
  s.set(1, 5);
  CHECK(s.out->until(1, 4));
  REQUIRE(until([&] { return s.shadow_counters->shadow_compared == s.counters->evaluations; }));
  CHECK(s.shadow_counters->shadow_mismatches == 3);
  CHECK(s.shadow_counters->shadow_compared == 4);
  CHECK(s.shadow_counters->errors == 3);  // the shadow's own runs: stopped by its budget
  CHECK(s.counters->errors == 0);
  // A shadow's strikes quarantine nothing published.
  CHECK(s.counters->quarantines == 0);
  s.set(0, 10);
  CHECK(s.out->until(0, 200010));
}

TEST_CASE("shadow: the published path never waits on a stopped shadow, and the shadow catches up when it goes on",
          "[.scripts-oop]") {
  REQUIRE_FALSE(worker_bin().empty());
  shadowed s({tag(0, "x * 10")});
  s.set(0, 1);
  REQUIRE(s.out->until(0, 10));
  REQUIRE(until([&] { return s.shadow_counters->shadow_compared == 1; }));
  const int pid = s.shadow_pid();
  REQUIRE(::kill(pid, SIGSTOP) == 0);  // the gate: the shadow cannot answer while it is stopped
  for (int k = 2; k <= 6; ++k) {
    s.set(0, k);
    REQUIRE(s.out->until(0, 10.0 * k));
  }
  // Five runs published while the shadow held its first of them: nothing compared meanwhile.
  CHECK(s.shadow_counters->shadow_compared == 1);
  CHECK(s.counters->evaluations == 6);
  REQUIRE(::kill(pid, SIGCONT) == 0);
  REQUIRE(until([&] { return s.shadow_counters->shadow_compared == 6; }));
  CHECK(s.shadow_counters->shadow_mismatches == 0);
  CHECK(s.shadow_counters->worker_deaths == 0);
}

TEST_CASE("shadow: the shadow's worker killed mid-run changes nothing published and the shadow recovers",
          "[.scripts-oop]") {
  REQUIRE_FALSE(worker_bin().empty());
  shadowed s({tag(0, "(function() local n = 0 for i = 1, 3e5 do n = n + 1 end return x end)()"), tag(1, "x + 1")});
  s.set(0, 1);
  s.set(1, 1);
  REQUIRE(s.out->until(0, 1));
  REQUIRE(s.out->until(1, 2));
  REQUIRE(until([&] { return s.shadow_counters->shadow_compared == 2; }));
  const int pid = s.shadow_pid();
  // The gate: stopped, the worker holds the run it is sent (it cannot answer before the kill).
  REQUIRE(::kill(pid, SIGSTOP) == 0);
  s.set(0, 2);
  REQUIRE(s.out->until(0, 2));  // published in process, whatever the shadow does
  REQUIRE(::kill(pid, SIGKILL) == 0);
  REQUIRE(until([&] { return s.shadow_counters->worker_deaths == 1; }));
  // The run it held is not compared and is no mismatch, but counted (with the death, before any
  // other run could find the shadow down); published values go on as before.
  CHECK(s.shadow_counters->shadow_unavailable == 1);
  CHECK(s.shadow_counters->shadow_compared == 2);
  s.set(1, 7);
  CHECK(s.out->until(1, 8));
  REQUIRE(until([&] { return s.shadow_counters->workers_up == 1 && s.shadow_pid() != pid; }));
  // Recovered: new runs are compared again, and agree.
  const auto compared = s.shadow_counters->shadow_compared.load();
  s.set(1, 9);
  CHECK(s.out->until(1, 10));
  REQUIRE(until([&] {
    return s.shadow_counters->shadow_compared + s.shadow_counters->shadow_unavailable == s.counters->evaluations;
  }));
  CHECK(s.shadow_counters->shadow_compared > compared);
  CHECK(s.shadow_counters->shadow_mismatches == 0);
  CHECK(s.shadow_counters->shadow_unavailable >= 1);
  CHECK(s.counters->errors == 0);
  CHECK(s.counters->worker_deaths == 0);
}

}  // namespace runtime_shadow_runner_test
