// A shard worker process: `PROGRAM worker --fd 3 ...` started with posix_spawn over a Unix socket
// pair (its end as fd 3, every other descriptor closed), killed with SIGKILL, reaped. Plain POSIX.
#pragma once

#include <sys/types.h>

#include <cstddef>
#include <cstdint>
#include <string>

#include "scripting/item.hpp"

namespace uactor::actors {

struct worker_process {
  pid_t pid = -1;
  int fd = -1;  // the host's end of the socket pair
};

struct worker_launch {
  std::string program;  // empty: this program (/proc/self/exe)
  scripting::engine_limits limits;
  std::size_t address_space = 512u << 20;
  std::uint32_t heartbeat_ms = 500;
};

// The started process, or pid -1 with `error` saying why.
worker_process start_worker(const worker_launch& launch, std::string& error);
// SIGKILL (a process that is gone already is fine).
void kill_worker(const worker_process& w);
// Waits for it to end; its wait status.
int reap_worker(worker_process& w);

}  // namespace uactor::actors
