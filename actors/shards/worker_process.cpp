#include "actors/shards/worker_process.hpp"

#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <csignal>
#include <cstring>
#include <vector>

extern char** environ;

namespace uactor::actors {

worker_process start_worker(const worker_launch& launch, std::string& error) {
  worker_process w;
  int sv[2];
  if (::socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0) {
    error = std::string("socketpair: ") + std::strerror(errno);
    return w;
  }
  // The program asked for; else uactor-worker beside this executable (the build and the install
  // put them together): a small binary of the script engine alone, a few MB of RSS where this
  // executable's own `worker` mode (uactor has one) maps everything the server links.
  std::string program = launch.program;
  if (program.empty()) {
    char buf[4096];
    const ssize_t n = ::readlink("/proc/self/exe", buf, sizeof buf - 1);
    if (n > 0) program.assign(buf, static_cast<std::size_t>(n));
    const std::string beside = program.substr(0, program.rfind('/') + 1) + "uactor-worker";
    if (::access(beside.c_str(), X_OK) == 0) program = beside;
  }
  std::vector<std::string> args{program,
                                "worker",
                                "--fd",
                                "3",
                                "--memory",
                                std::to_string(launch.limits.memory_bytes),
                                "--instructions",
                                std::to_string(launch.limits.max_instructions),
                                "--address-space",
                                std::to_string(launch.address_space),
                                "--heartbeat-ms",
                                std::to_string(launch.heartbeat_ms)};
  std::vector<char*> argv;
  for (auto& a : args) argv.push_back(a.data());
  argv.push_back(nullptr);
  posix_spawn_file_actions_t fa;
  posix_spawn_file_actions_init(&fa);
  posix_spawn_file_actions_adddup2(&fa, sv[1], 3);  // dup2 clears close-on-exec on fd 3
  posix_spawn_file_actions_addclosefrom_np(&fa, 4);  // the server's sockets stay in the server
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, program.c_str(), &fa, nullptr, argv.data(), environ);
  posix_spawn_file_actions_destroy(&fa);
  ::close(sv[1]);
  if (rc != 0) {
    ::close(sv[0]);
    error = "cannot start " + program + ": " + std::strerror(rc);
    return w;
  }
  w.pid = pid;
  w.fd = sv[0];
  return w;
}

void kill_worker(const worker_process& w) {
  if (w.pid > 0) ::kill(w.pid, SIGKILL);
}

int reap_worker(worker_process& w) {
  int status = 0;
  if (w.pid > 0) {
    while (::waitpid(w.pid, &status, 0) < 0 && errno == EINTR) {
    }
  }
  w.pid = -1;
  if (w.fd >= 0) ::close(w.fd);
  w.fd = -1;
  return status;
}

}  // namespace uactor::actors
