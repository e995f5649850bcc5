#include "tests/support/fault_proxy.hpp"

#include <cstring>
#include <fstream>
#include <thread>

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <signal.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

namespace uactor::test {

namespace {

using clock_type = std::chrono::steady_clock;

sockaddr_in loopback(std::uint16_t port) {
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  return a;
}

}  // namespace

// ------------------------------------------------------------------------------------------------
// server_process

std::uint16_t free_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  auto a = loopback(0);
  socklen_t len = sizeof a;
  std::uint16_t port = 0;
  if (fd >= 0 && ::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0 &&
      ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len) == 0)
    port = ntohs(a.sin_port);
  if (fd >= 0) ::close(fd);
  return port;
}

bool port_accepts(std::uint16_t port, std::chrono::milliseconds timeout) {
  const auto deadline = clock_type::now() + timeout;
  for (;;) {
    if (const int fd = scenarios::connect_loopback(port); fd >= 0) {
      ::close(fd);
      return true;
    }
    if (clock_type::now() >= deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
}

server_process::server_process(std::string program, std::vector<std::string> args, std::uint16_t port)
    : program_(std::move(program)), args_(std::move(args)), port_(port ? port : free_port()) {
  for (auto& a : args_)
    if (const auto at = a.find("{port}"); at != std::string::npos) a.replace(at, 6, std::to_string(port_));
  log_ = "/tmp/uactor-server-process-" + std::to_string(::getpid()) + "-" + std::to_string(port_) + ".log";
}

server_process::~server_process() {
  kill9();
  ::unlink(log_.c_str());
}

std::string server_process::url() const { return "opc.tcp://127.0.0.1:" + std::to_string(port_); }

bool server_process::output_ready() const {
  if (ready_text_.empty()) return true;
  std::ifstream in(log_);
  std::string line;
  while (std::getline(in, line))
    if (line.find(ready_text_) != std::string::npos) return true;
  return false;
}

bool server_process::start(std::chrono::milliseconds timeout) {
  if (pid_ > 0) return true;
  std::vector<char*> argv;
  argv.push_back(program_.data());
  for (auto& a : args_) argv.push_back(a.data());
  argv.push_back(nullptr);
  // A restart waits for its own ready line, not the last run's.
  if (const int log = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644); log >= 0) ::close(log);
  const pid_t pid = ::fork();
  if (pid < 0) return false;
  if (pid == 0) {
    const int log = ::open(log_.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
    if (log >= 0) {
      ::dup2(log, 1);
      ::dup2(log, 2);
    }
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  pid_ = pid;
  const auto deadline = clock_type::now() + timeout;
  while (clock_type::now() < deadline) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {  // it died (a bad program or a taken port)
      pid_ = -1;
      return false;
    }
    if (port_accepts(port_, std::chrono::milliseconds(0)) && output_ready()) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  kill9();
  return false;
}

void server_process::terminate() {
  if (pid_ > 0) ::kill(pid_, SIGTERM);
}

void server_process::kill9() {
  if (pid_ <= 0) return;
  ::kill(pid_, SIGKILL);
  int status = 0;
  ::waitpid(pid_, &status, 0);
  pid_ = -1;
}

}  // namespace uactor::test
