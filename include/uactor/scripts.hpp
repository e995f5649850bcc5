// Scripted values of a server (docs/scripts.md): virtual tags, calculations and alarm predicates in
// Lua 5.4, evaluated in process or in worker processes under deadlines. Plain data: the application
// (or the config file's [[virtual_tags]], [[calculations]], [[alarms]]) fills it, server::add_scripts
// takes it. No CAF types.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "uactor/nodes.hpp"

namespace uactor {

// A node a script reads, under the name the script knows it by (a Lua identifier).
struct script_input {
  std::string name;
  node_id node;
};

enum class script_kind : std::uint8_t {
  virtual_tag,  // an expression of its inputs, evaluated again when one changes (coalesced)
  calculation,  // a chunk run every `period`; its globals are its state between runs
  alarm,        // a predicate of its inputs; its state (with the delays, hysteresis) is a Boolean output
};

struct script_definition {
  script_kind kind = script_kind::virtual_tag;
  std::string name;               // in logs and errors; empty: "<kind>s[i] (<output>)"
  node_id output;                 // an existing Variable; the result is converted to its DataType
  std::vector<script_input> inputs;
  std::string source;             // an expression (`p1 - p2`) or a chunk with `return`
  std::chrono::milliseconds period{1000};     // calculation
  // calculation: at the minutes of a cron-like schedule in UTC instead of every period, e.g.
  // "0 * * * *" (each hour), "*/15 6-18 * * 1-5", "@daily" (docs/scripts.md "Schedules")
  std::string schedule;
  std::chrono::milliseconds on_delay{0};      // alarm: true this long before active
  std::chrono::milliseconds off_delay{0};     // alarm: false this long before inactive
  double hysteresis = 0;                      // alarm with a numeric predicate x: active x > 0, inactive x < -hysteresis
};

struct script_limits {
  std::size_t memory_bytes = 64u << 20;          // per Lua state (the runner's, or each worker's)
  std::uint64_t max_instructions = 100'000'000;  // per run (0: none)
  std::chrono::milliseconds soft_deadline{100};  // T: a run still going is Bad_Timeout
  std::chrono::milliseconds grace{100};          // G: at T + G it is stopped (its worker killed) and struck
  std::uint32_t strikes = 3;                     // runs stopped by a limit before the item is quarantined
  std::size_t worker_address_space = 512u << 20; // RLIMIT_AS of a worker process
};

enum class script_runner : std::uint8_t {
  in_process,      // an actor on the scheduler (the default)
  out_of_process,  // uactor-worker shard processes watched by a supervisor actor
  // Both at once (docs/decisions/0043): in process publishes; every run is also made out of process
  // (the shadow, `workers` shards) with the same inputs, and the two results compared, item by
  // item. The published path never waits on the shadow.
  shadow,
};

struct script_plan {
  script_runner runner = script_runner::in_process;
  std::uint32_t workers = 2;       // out of process: shard processes
  // Out of process: uactor-worker (or uactor, which has a `worker` mode); empty: uactor-worker
  // beside this program, else this program.
  std::string worker_program;
  // Shadow mode: runs waiting for a shadow worker at most; beyond, a run is not run by the shadow
  // (counted in shadow_unavailable). A slow or stopped shadow holds no more than this.
  std::uint32_t shadow_queue = 10'000;
  std::vector<script_definition> scripts;
  script_limits limits;
};

// What add_scripts found: every error (a syntax error names the script and Lua's message, an
// unknown node, an output that is no Variable); nothing runs unless there are none.
struct script_report {
  std::vector<std::string> errors;
  bool ok() const noexcept { return errors.empty(); }
};

// One worker shard's counters (out of process).
struct script_shard_metrics {
  std::uint64_t evaluations = 0;
  std::uint64_t errors = 0;
  std::uint64_t timeouts = 0;
  std::uint64_t kills = 0;
  std::uint64_t queue_depth = 0;
  std::uint64_t eval_ns = 0;
  int pid = -1;                    // -1 while down
};

// What the script runners of a server counted (server::script_metrics()).
struct script_metrics {
  std::uint64_t evaluations = 0;
  std::uint64_t errors = 0;        // script errors and runs stopped by a limit
  std::uint64_t timeouts = 0;      // runs past the soft deadline
  std::uint64_t kills = 0;         // workers killed for a run past the hard deadline
  std::uint64_t quarantines = 0;
  std::uint64_t victims = 0;       // runs lost with a worker and run again
  std::uint64_t worker_starts = 0;
  std::uint64_t worker_deaths = 0;
  std::uint64_t queue_depth = 0;   // runs waiting for a worker now
  std::uint64_t eval_ns = 0;       // summed run time
  std::uint32_t workers_up = 0;
  std::vector<int> worker_pids;    // by shard; -1 while down
  // Shadow mode (script_runner::shadow; the counters above sum both runners, the shadow's shards
  // among `shards`): runs compared, those whose results differed (value or status; numbers bit for
  // bit, any NaN equal to any NaN), and those not compared because the shadow timed out (past the
  // soft deadline) or did not run them (lost with a worker, or beyond its queue: script_plan::shadow_queue).
  std::uint64_t shadow_compared = 0;
  std::uint64_t shadow_mismatches = 0;
  std::uint64_t shadow_timeouts = 0;
  std::uint64_t shadow_unavailable = 0;
  // Out of process, one per worker shard, numbered across the server's script plans in the order
  // they were added (in /metrics as label shard="0", "1", ...).
  std::vector<script_shard_metrics> shards;
};

}  // namespace uactor
