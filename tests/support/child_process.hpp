// Stopping a process a test started (a broker, a database): a signal, a bounded wait for it to
// end, then SIGKILL. Reaps it either way.
#pragma once

#include <signal.h>
#include <sys/types.h>
#include <sys/wait.h>

#include <chrono>
#include <cstdlib>
#include <string>
#include <thread>

namespace uactor::test {

// The `uactor` executable a test starts: ctest names it in UACTOR_BIN; empty when run without.
inline std::string uactor_bin() {
  const char* bin = std::getenv("UACTOR_BIN");
  return bin ? bin : "";
}

inline void stop_child(pid_t pid, int signal, std::chrono::seconds grace) {
  if (pid <= 0) return;
  ::kill(pid, signal);
  const auto until = std::chrono::steady_clock::now() + grace;
  int status = 0;
  while (::waitpid(pid, &status, WNOHANG) == 0) {
    if (std::chrono::steady_clock::now() > until) {
      ::kill(pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      return;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
}

}  // namespace uactor::test
