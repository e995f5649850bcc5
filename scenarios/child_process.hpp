// A child process whose stdout the harness reads line by line: the server under load (`uactor
// run`) or the floor's echo server (`uactor-load --serve-floor`). The child's stderr goes to a
// log file, so that its log does not mix with the harness's output. The object owns the process:
// the destructor stops it (SIGTERM, then SIGKILL).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <csignal>
#include <condition_variable>
#include <deque>
#include <memory>
#include <mutex>
#include <optional>
#include <string>
#include <string_view>
#include <thread>
#include <vector>

namespace uactor::scenarios {

class child_process {
public:
  // Starts argv[0] (a path) with the arguments; stderr appended to `stderr_path`. nullptr and
  // `error` set when it cannot be started.
  static std::unique_ptr<child_process> start(const std::vector<std::string>& argv, const std::string& stderr_path,
                                              std::string& error);
  ~child_process();
  child_process(const child_process&) = delete;
  child_process& operator=(const child_process&) = delete;

  pid_t pid() const noexcept { return pid_; }

  // The rest of the next stdout line that starts with `prefix` (earlier lines are dropped), or
  // nullopt when the child closed its stdout or the time ran out.
  std::optional<std::string> wait_line(std::string_view prefix, std::chrono::milliseconds timeout);
  bool signal(int sig) noexcept;
  // `first` (SIGTERM), waits up to `grace`, then SIGKILL. The exit status as the shell shows it
  // (128+N for a signal). Idempotent.
  int stop(std::chrono::milliseconds grace = std::chrono::seconds(10), int first = SIGTERM);

private:
  child_process() = default;
  void read_lines(int fd);

  pid_t pid_ = -1;
  int status_ = -1;
  std::thread reader_;
  std::mutex mutex_;
  std::condition_variable changed_;
  std::deque<std::string> lines_;
  bool closed_ = false;
};

// The directory of the running executable, with a trailing slash ("" when unknown).
std::string own_directory();

}  // namespace uactor::scenarios
