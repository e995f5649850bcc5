// The in-process runner: one Lua state on a scheduler thread. A run is stopped by the count hook at
// T + G (nothing can kill a thread), struck like an out-of-process runaway.
#include <caf/all.hpp>
#include <spdlog/spdlog.h>

#include "actors/shards/runner.hpp"
#include "actors/shards/wall_clock.hpp"
#include "engine/common/clock.hpp"

namespace uactor::actors {

namespace {

using pass_atom = caf::atom_constant<caf::atom("scrun")>;
using pass_due_atom = caf::atom_constant<caf::atom("scdue")>;

struct in_process_state {
  explicit in_process_state(runner_setup s)
      : setup(std::move(s)),
        set(setup.items, setup.input_slots, setup.policy, std::chrono::steady_clock::now()),
        eng(setup.limits) {}
  runner_setup setup;
  scripting::script_set set;
  scripting::engine eng;
  std::vector<scripting::eval_request> ready;
  std::vector<scripting::output_value> out;
  bool scheduled = false;
  std::optional<scripting::steady_time> timer;  // the pass_due_atom in flight, when
};

void pass(caf::event_based_actor* self, in_process_state& st) {
  const auto now = std::chrono::steady_clock::now();
  st.ready.clear();
  st.out.clear();
  st.set.take_ready(now, st.ready, st.out);
  const double wall = seconds_since_1970();
  auto& c = *st.setup.counters;
  std::string log;
  std::shared_ptr<shadow_runs> shadow;
  if (st.setup.shadow && !st.ready.empty()) {
    shadow = std::make_shared<shadow_runs>();
    shadow->now_seconds = wall;
    shadow->published.reserve(st.ready.size());
  }
  for (const auto& r : st.ready) {
    const auto t0 = std::chrono::steady_clock::now();
    const auto result =
        st.eng.evaluate(r.item, r.inputs, wall, r.active, t0 + st.setup.soft_deadline + st.setup.grace);
    c.eval_ns += static_cast<std::uint64_t>((std::chrono::steady_clock::now() - t0).count());
    ++c.evaluations;
    if (result.how != scripting::outcome::ok) ++c.errors;
    const bool was = st.set.quarantined(r.item);
    log.clear();
    st.set.completed(r.item, result, now, st.out, log);
    if (!was && st.set.quarantined(r.item)) ++c.quarantines;
    if (!log.empty()) spdlog::warn("scripts: {}", log);
    if (shadow) shadow->published.push_back(result);
  }
  if (shadow) {
    // Fire and forget: the shadow never holds this runner (docs/decisions/0043). Sent before the
    // outputs are published (an enqueue, no wait): whoever sees a published value knows its run is
    // in the shadow's mailbox already, ahead of anything that happens to the shadow after.
    shadow->runs = std::move(st.ready);
    st.ready = {};
    self->send(st.setup.shadow, shadow_runs_ptr(std::move(shadow)));
  }
  if (!st.out.empty()) st.setup.publish(st.out);
  if (const auto due = st.set.next_due(); due && (!st.timer || *due < *st.timer)) {
    st.timer = *due;
    self->delayed_send(self, std::max(*due - std::chrono::steady_clock::now(), scripting::steady_time::duration{0}),
                       pass_due_atom::value);
  }
}

caf::behavior in_process_runner(caf::event_based_actor* self, std::shared_ptr<in_process_state> st, caf::actor host) {
  self->monitor(host);
  self->set_down_handler([self](const caf::down_msg&) { self->quit(); });
  self->set_exception_handler([](caf::scheduled_actor*, std::exception_ptr& e) -> caf::error {
    try {
      std::rethrow_exception(e);
    } catch (const std::exception& x) {
      spdlog::error("scripts: the in-process runner stopped: {}", x.what());
    }
    return caf::exit_reason::unhandled_exception;
  });
  self->send(self, pass_atom::value);  // the first pass: calculations start, inputs may be there
  st->scheduled = true;
  return {
      [self, st](const input_changes_ptr& changes) {
        for (const auto& ch : *changes) st->set.input_changed(ch.slot, ch.value);
        // Coalesced: every change already in the mailbox is taken before the pass runs.
        if (!st->scheduled) {
          st->scheduled = true;
          self->send(self, pass_atom::value);
        }
      },
      [self, st](pass_atom) {
        st->scheduled = false;
        pass(self, *st);
      },
      [self, st](pass_due_atom) {
        st->timer.reset();
        pass(self, *st);
      },
  };
}

}  // namespace

caf::actor spawn_in_process_runner(caf::actor_system& sys, runner_setup setup, caf::actor host) {
  // Compiled here, on the caller's thread: the runtime checked the same sources already.
  auto st = std::make_shared<in_process_state>(std::move(setup));
  for (const auto& it : st->setup.items) {
    if (auto error = st->eng.load(it.spec); !error.empty()) spdlog::error("scripts: {}", error);
  }
  return sys.spawn(in_process_runner, std::move(st), std::move(host));
}

caf::actor spawn_shadowed_runner(caf::actor_system& sys, runner_setup published, runner_setup shadow, caf::actor host,
                                 caf::actor* shadow_actor) {
  shadow.compare = true;
  shadow.publish = [](std::span<const scripting::output_value>) {};
  auto sup = spawn_shard_supervisor(sys, std::move(shadow), host);
  published.shadow = sup;
  auto runner = spawn_in_process_runner(sys, std::move(published), host);
  caf::anon_send(sup, runner);  // the shadow ends with its published runner
  if (shadow_actor) *shadow_actor = sup;
  return runner;
}

std::chrono::milliseconds restart_delay(std::uint32_t failures) {
  if (failures <= 1) return std::chrono::milliseconds(0);
  std::chrono::milliseconds d(100);
  for (std::uint32_t i = 2; i < failures && d < std::chrono::milliseconds(5000); ++i) d *= 2;
  return std::min(d, std::chrono::milliseconds(5000));
}

}  // namespace uactor::actors
