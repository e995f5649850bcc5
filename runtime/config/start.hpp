// Starts what a checked plant file describes (docs/configuration.md): an actor system, one server
// with a listener per endpoint and the file's namespaces and nodes, one writer actor per
// [[writers]] entry pushing its batches through uactor::server::write_values. The runner owns all
// of it; stop() (or the destructor) ends the writers, the server, then the system.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/config/config.hpp"
#include "uactor/server.hpp"

namespace uactor::config {

// spdlog's default logger as [logging] says: level, text or JSON lines, a rotating file or stderr.
void apply_logging(const logging_spec& logging);

class plant_runner {
public:
  plant_runner();
  ~plant_runner();
  plant_runner(const plant_runner&) = delete;
  plant_runner& operator=(const plant_runner&) = delete;

  // Starts the server (every endpoint of the file), then the writers. False with the reason in
  // `error` (what was started is stopped again).
  bool start(const plant& p, std::string& error);
  // The running server; null before start() and after stop().
  uactor::server* server() const noexcept;
  // Ticks of the writers so far (any thread).
  std::uint64_t writer_cycles() const noexcept;
  // How late the writers' ticks ran, summed: from each tick's due time (the previous tick's start
  // plus the interval) to its start; and how many ticks were measured (any thread).
  std::uint64_t writer_wait_ns() const noexcept;
  std::uint64_t writer_waits() const noexcept;
  void stop();

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

}  // namespace uactor::config
