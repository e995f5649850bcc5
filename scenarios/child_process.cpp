#include "scenarios/child_process.hpp"

#include <fcntl.h>
#include <signal.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace uactor::scenarios {

std::unique_ptr<child_process> child_process::start(const std::vector<std::string>& argv,
                                                    const std::string& stderr_path, std::string& error) {
  int out[2];
  if (pipe2(out, O_CLOEXEC) != 0) {
    error = std::string("pipe: ") + std::strerror(errno);
    return nullptr;
  }
  const int err = open(stderr_path.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  std::vector<char*> args;
  for (const auto& a : argv) args.push_back(const_cast<char*>(a.c_str()));
  args.push_back(nullptr);
  const pid_t pid = fork();
  if (pid < 0) {
    error = std::string("fork: ") + std::strerror(errno);
    close(out[0]);
    close(out[1]);
    if (err >= 0) close(err);
    return nullptr;
  }
  if (pid == 0) {
    // The child: default signal mask and dispositions, stdout into the pipe.
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, nullptr);
    // A harness killed (a coordinator of docs/distributed-load.md too) leaves no server behind.
    prctl(PR_SET_PDEATHSIG, SIGTERM);
    dup2(out[1], STDOUT_FILENO);
    if (err >= 0) dup2(err, STDERR_FILENO);
    execv(args[0], args.data());
    const char msg[] = "uactor-load: cannot exec the child\n";
    [[maybe_unused]] auto n = write(STDERR_FILENO, msg, sizeof msg - 1);
    _exit(127);
  }
  close(out[1]);
  if (err >= 0) close(err);
  std::unique_ptr<child_process> c(new child_process);
  c->pid_ = pid;
  c->reader_ = std::thread([p = c.get(), fd = out[0]] { p->read_lines(fd); });
  return c;
}

void child_process::read_lines(int fd) {
  std::string partial;
  char buf[4096];
  for (;;) {
    const auto n = read(fd, buf, sizeof buf);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) break;
    partial.append(buf, static_cast<std::size_t>(n));
    std::size_t start = 0;
    for (auto nl = partial.find('\n'); nl != std::string::npos; nl = partial.find('\n', start)) {
      std::lock_guard lock(mutex_);
      lines_.push_back(partial.substr(start, nl - start));
      start = nl + 1;
    }
    partial.erase(0, start);
    changed_.notify_all();
  }
  close(fd);
  std::lock_guard lock(mutex_);
  closed_ = true;
  changed_.notify_all();
}

std::optional<std::string> child_process::wait_line(std::string_view prefix, std::chrono::milliseconds timeout) {
  const auto deadline = std::chrono::steady_clock::now() + timeout;
  std::unique_lock lock(mutex_);
  for (;;) {
    while (!lines_.empty()) {
      auto line = std::move(lines_.front());
      lines_.pop_front();
      if (line.starts_with(prefix)) return line.substr(prefix.size());
    }
    if (closed_) return std::nullopt;
    if (changed_.wait_until(lock, deadline) == std::cv_status::timeout && lines_.empty()) return std::nullopt;
  }
}

bool child_process::signal(int sig) noexcept { return status_ < 0 && kill(pid_, sig) == 0; }

int child_process::stop(std::chrono::milliseconds grace, int first) {
  if (status_ < 0 && pid_ > 0) {
    kill(pid_, first);
    const auto deadline = std::chrono::steady_clock::now() + grace;
    int st = 0;
    for (;;) {
      const auto r = waitpid(pid_, &st, WNOHANG);
      if (r == pid_) break;
      if (r < 0 && errno != EINTR) break;
      if (std::chrono::steady_clock::now() >= deadline) {
        kill(pid_, SIGKILL);
        waitpid(pid_, &st, 0);
        break;
      }
      usleep(10'000);  // polling a process's end: no timing is measured here
    }
    status_ = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
  }
  if (reader_.joinable()) reader_.join();
  return status_;
}

child_process::~child_process() { stop(); }

std::string own_directory() {
  std::string self(4096, '\0');
  const auto n = readlink("/proc/self/exe", self.data(), self.size() - 1);
  if (n <= 0) return {};
  self.resize(static_cast<std::size_t>(n));
  return self.substr(0, self.rfind('/') + 1);
}

}  // namespace uactor::scenarios
