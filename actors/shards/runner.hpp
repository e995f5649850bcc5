// The two script runners behind one door (docs/decisions/0020): in process (the default,
// an actor on the scheduler, never the multiplexer thread) and out of process (a supervisor actor
// and N `uactor worker` shard processes). Both take the same setup and the same messages: the
// inputs' changes from the session host's watch in, the outputs' values out through `publish`
// (the application's value door), so the published path never waits on a script.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <span>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/allowed_unsafe_message_type.hpp>

#include "engine/server/value_watch.hpp"
#include "scripting/script_set.hpp"

namespace uactor::actors {

// One worker shard's share of the counters (out of process): which shard is slow, which one kills.
struct shard_counters {
  std::atomic<std::uint64_t> evaluations{0};
  std::atomic<std::uint64_t> errors{0};
  std::atomic<std::uint64_t> timeouts{0};
  std::atomic<std::uint64_t> kills{0};
  std::atomic<std::uint64_t> queue_depth{0};
  std::atomic<std::uint64_t> eval_ns{0};
};

// What the runners count, read from any thread (the /metrics page, tests).
struct script_counters {
  std::atomic<std::uint64_t> evaluations{0};
  std::atomic<std::uint64_t> errors{0};        // script errors and limits
  std::atomic<std::uint64_t> timeouts{0};      // soft deadline passed (out of process)
  std::atomic<std::uint64_t> kills{0};         // workers killed for a runaway (hard deadline)
  std::atomic<std::uint64_t> quarantines{0};
  std::atomic<std::uint64_t> victims{0};       // runs lost with a worker and run again
  std::atomic<std::uint64_t> worker_starts{0};
  std::atomic<std::uint64_t> worker_deaths{0};
  std::atomic<std::uint64_t> queue_depth{0};   // runs taken and not yet sent to a worker
  std::atomic<std::uint64_t> eval_ns{0};       // summed run time (the worker's measure out of process)
  std::atomic<std::uint32_t> workers_up{0};
  // Shadow mode (a shard supervisor comparing, docs/decisions/0043): runs compared with the
  // published ones, mismatches, not compared for a shadow past its deadline, not run by the shadow
  // (the run lost with a worker, or beyond its queue).
  std::atomic<std::uint64_t> shadow_compared{0};
  std::atomic<std::uint64_t> shadow_mismatches{0};
  std::atomic<std::uint64_t> shadow_timeouts{0};
  std::atomic<std::uint64_t> shadow_unavailable{0};
  // Per worker shard, out of process; sized by spawn_shard_supervisor before the runner starts and
  // never after, so readers need no lock (in process: none).
  std::unique_ptr<shard_counters[]> shards;
  std::size_t shard_count = 0;
  // The worker processes' ids by shard (-1: down), for operators and tests.
  std::vector<int> worker_pids() const {
    std::lock_guard lock(mutex);
    return pids;
  }
  void set_pid(std::size_t worker, int pid) {
    std::lock_guard lock(mutex);
    if (pids.size() <= worker) pids.resize(worker + 1, -1);
    pids[worker] = pid;
  }
  mutable std::mutex mutex;
  std::vector<int> pids;
};

struct runner_setup {
  std::vector<scripting::set_item> items;
  std::size_t input_slots = 0;
  scripting::set_policy policy;
  scripting::engine_limits limits;
  std::chrono::milliseconds soft_deadline{100};  // T: past it a run's output is Bad_Timeout
  std::chrono::milliseconds grace{100};          // G: past T + G the run is stopped (the worker killed) and struck
  // The outputs' values, in order; called on the runner's thread.
  std::function<void(std::span<const scripting::output_value>)> publish;
  std::shared_ptr<script_counters> counters = std::make_shared<script_counters>();
  // In process: the shadow that every pass's runs and results are sent to (none: no shadow).
  caf::actor shadow;

  // Out of process only.
  std::uint32_t workers = 2;
  std::string worker_program;                    // the uactor executable (`uactor worker`)
  std::size_t worker_address_space = 512u << 20; // RLIMIT_AS of a worker
  std::chrono::milliseconds heartbeat{500};      // a worker idle this long says it is alive; silent 4x: killed
  std::chrono::milliseconds load_timeout{5000};  // compiling the set, from the worker's start
  // Out of process as a shadow: runs come from the published runner (shadow_runs), their results
  // are compared with the published ones and counted; nothing is published. Runs beyond
  // `shadow_queue` waiting for a worker are dropped (shadow_unavailable): a slow shadow holds no
  // more than that.
  bool compare = false;
  // The old idle path, for the bench's A/B (docs/decisions/0043 "The idle path"): every result's
  // outputs wait for a flush message to the supervisor itself, even when no other result can come.
  bool flush_by_message = false;
  std::size_t shadow_queue = 10'000;
};

// One pass of the published runner, for its shadow: what ran (the same inputs, alarm states and
// `now`) and what came of it.
struct shadow_runs {
  double now_seconds = 0;
  std::vector<scripting::eval_request> runs;
  std::vector<scripting::eval_result> published;  // one per run
};
using shadow_runs_ptr = std::shared_ptr<const shadow_runs>;

using input_changes_ptr = std::shared_ptr<const watched_changes>;

// Spawns the runner on the scheduler; it ends when `host` (the session host) does, or on an exit
// message. Input changes reach it as input_changes_ptr messages (the watch sink sends them).
caf::actor spawn_in_process_runner(caf::actor_system& sys, runner_setup setup, caf::actor host);
caf::actor spawn_shard_supervisor(caf::actor_system& sys, runner_setup setup, caf::actor host);
// Shadow mode: `published` runs in process and publishes; `shadow` (compare set, publish unused) is
// a shard supervisor sent every pass's runs. Returns the in-process runner (the one input changes
// go to); the shadow ends with it or with `host`. `shadow_actor` (optional): the shadow, for tests.
caf::actor spawn_shadowed_runner(caf::actor_system& sys, runner_setup published, runner_setup shadow, caf::actor host,
                                 caf::actor* shadow_actor = nullptr);

// The delay before restarting a worker after `failures` deaths in a row (pure): the first restart
// at once, then 100 ms doubling to 5 s.
std::chrono::milliseconds restart_delay(std::uint32_t failures);

// A warning that repeats (a runaway's worker killed again and again) said at most once per
// interval, with how many were held back since the last one said (docs/scripts.md "Sandbox and
// limits"). Pure: the caller passes the time.
class rate_limited_warning {
public:
  explicit rate_limited_warning(std::chrono::steady_clock::duration interval) : interval_(interval) {}
  // Whether to say this one now; `held_back` is then the number not said since the last one.
  bool due(std::chrono::steady_clock::time_point now, std::uint64_t& held_back) {
    if (said_ && now - last_ < interval_) {
      ++held_back_;
      return false;
    }
    said_ = true;
    last_ = now;
    held_back = held_back_;
    held_back_ = 0;
    return true;
  }

private:
  std::chrono::steady_clock::duration interval_;
  std::chrono::steady_clock::time_point last_{};
  bool said_ = false;
  std::uint64_t held_back_ = 0;
};

}  // namespace uactor::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(uactor::actors::input_changes_ptr)
CAF_ALLOW_UNSAFE_MESSAGE_TYPE(uactor::actors::shadow_runs_ptr)
