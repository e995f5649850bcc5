// The worker end of the protocol (frames.hpp): what `uactor worker` runs in a shard process. One
// thread: it reads frames from its socket, compiles what it is given, runs each batch in order and
// streams a result per run; idle, it sends a heartbeat. Its memory is bounded twice: the engine's
// allocator and RLIMIT_AS on the whole process. The supervisor kills it for a runaway; it never
// stops a run by itself for time (the count hook is only an instruction budget here).
#pragma once

#include <chrono>
#include <cstddef>

#include "scripting/item.hpp"

namespace uactor::scripting {

struct worker_options {
  engine_limits limits;
  std::size_t address_space_limit = 512u << 20;  // RLIMIT_AS (0: unchanged)
  std::chrono::milliseconds heartbeat{500};
  std::size_t max_frame = 4u << 20;
};

// Serves the host on `fd` until it closes. 0: the host closed; 2: a frame the worker refused
// (the reason on stderr); 3: a write failed.
int run_worker(int fd, const worker_options& options);

// The worker's command line as the shard supervisor writes it (actors/shards/worker_process.cpp):
// `[worker] --fd N --memory B --instructions N --address-space B --heartbeat-ms MS`, then
// run_worker; 2 for a bad argument. What `uactor worker` and `uactor-worker` run.
int worker_main(int argc, char** argv);

}  // namespace uactor::scripting
