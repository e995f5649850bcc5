// Fault injection for network tests: the TCP proxy (scenarios/fault_proxy.hpp, shared with
// `uactor load --faults`) under the tests' names, and a server process that can be killed with
// SIGKILL and restarted on the same port. server_process owns its child and ends it in its destructor.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include "scenarios/fault_proxy.hpp"

namespace uactor::test {

using scenarios::cut_kind;
using scenarios::cut_side;
using scenarios::fault_proxy;

// A server program run as a child process (stdout and stderr to a file in /tmp), listening on a
// port fixed at construction, so that a restart comes back where the clients look for it.
// `args` may contain "{port}", replaced by the port.
class server_process {
public:
  server_process(std::string program, std::vector<std::string> args, std::uint16_t port = 0);
  ~server_process();  // SIGKILL if still running
  server_process(const server_process&) = delete;
  server_process& operator=(const server_process&) = delete;

  // Starts the child and waits until 127.0.0.1:port accepts a connection (and, when set, until its
  // output holds ready_text): false when it does not within `timeout` (the child is then killed)
  // or the program cannot be run.
  bool start(std::chrono::milliseconds timeout = std::chrono::milliseconds(15'000));
  // What the program prints once it serves everything (`uactor run` and node_server.js: "listening on").
  void wait_for_output(std::string ready_text) { ready_text_ = std::move(ready_text); }
  // SIGKILL and reap: the server gets no chance to close anything.
  void kill9();
  // SIGTERM, without waiting: the server stops as it does for an operator (kill9 or the destructor
  // reaps it later).
  void terminate();
  bool running() const noexcept { return pid_ > 0; }
  std::uint16_t port() const noexcept { return port_; }
  std::string url() const;
  const std::string& log_file() const noexcept { return log_; }

private:
  bool output_ready() const;
  std::string program_;
  std::vector<std::string> args_;
  std::uint16_t port_;
  std::string log_;
  std::string ready_text_;
  int pid_ = -1;
};

// A port on 127.0.0.1 that was free a moment ago (bound to port 0 and released).
std::uint16_t free_port();
// 127.0.0.1:port accepts a TCP connection within `timeout`.
bool port_accepts(std::uint16_t port, std::chrono::milliseconds timeout);

}  // namespace uactor::test
