#include "tests/pubsub/mosquitto_broker.hpp"

#include "tests/support/child_process.hpp"

#include <arpa/inet.h>
#include <fcntl.h>
#include <netinet/in.h>
#include <signal.h>
#include <spawn.h>
#include <sys/socket.h>
#include <sys/wait.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <cstdlib>
#include <fstream>
#include <thread>

extern char** environ;

namespace uactor::test {

std::string mosquitto_broker::binary() {
  if (const char* e = std::getenv("UACTOR_MOSQUITTO"); e && *e) return e;
  return ::access("/usr/sbin/mosquitto", X_OK) == 0 ? "/usr/sbin/mosquitto" : "";
}

std::uint16_t free_loopback_port() {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  std::uint16_t port = 0;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0) {
    socklen_t len = sizeof a;
    ::getsockname(fd, reinterpret_cast<sockaddr*>(&a), &len);
    port = ntohs(a.sin_port);
  }
  ::close(fd);
  return port;
}

namespace {

bool accepts(std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  a.sin_port = htons(port);
  const bool ok = ::connect(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) == 0;
  ::close(fd);
  return ok;
}

}  // namespace

mosquitto_broker::mosquitto_broker() {
  static std::atomic<int> n{0};
  dir_ = std::filesystem::temp_directory_path() /
         ("uactor-mosquitto-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
  std::filesystem::create_directories(dir_);
}

mosquitto_broker::~mosquitto_broker() {
  stop();
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

bool mosquitto_broker::require_user(const std::string& user, const std::string& password) {
  const std::string file = (dir_ / "passwords").string();
  const std::string cmd = "mosquitto_passwd -c -b '" + file + "' '" + user + "' '" + password + "' >/dev/null 2>&1";
  users_ = std::system(cmd.c_str()) == 0;
  return users_;
}

bool mosquitto_broker::start() {
  if (running()) return true;
  if (port_ != 0) return start_on(port_);
  for (int attempt = 0; attempt < 5; ++attempt) {
    const auto port = free_loopback_port();
    if (port != 0 && start_on(port)) return true;
  }
  return false;
}

bool mosquitto_broker::start_on(std::uint16_t port) {
  const auto conf = dir_ / "mosquitto.conf";
  {
    std::ofstream out(conf);
    out << "listener " << port << " 127.0.0.1\n"
        << (users_ ? "allow_anonymous false\npassword_file " + (dir_ / "passwords").string() + "\n" : "allow_anonymous true\n")
        << "persistence false\n"
        << "log_dest stderr\n"
        << "log_type error\nlog_type warning\nlog_type notice\n";
  }
  const std::string bin = binary();
  if (bin.empty()) return false;
  std::string c = conf.string();
  char* argv[] = {const_cast<char*>(bin.c_str()), const_cast<char*>("-c"), c.data(), nullptr};
  // Its log into the folder, opened here (run as root, mosquitto drops to its own user and could
  // not open a file of ours).
  posix_spawn_file_actions_t actions;
  posix_spawn_file_actions_init(&actions);
  const std::string log = (dir_ / "mosquitto.log").string();
  posix_spawn_file_actions_addopen(&actions, 2, log.c_str(), O_WRONLY | O_CREAT | O_APPEND, 0644);
  posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0);
  pid_t pid = -1;
  const int rc = ::posix_spawn(&pid, bin.c_str(), &actions, nullptr, argv, environ);
  posix_spawn_file_actions_destroy(&actions);
  if (rc != 0) return false;
  pid_ = pid;
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(5);
  while (std::chrono::steady_clock::now() < until) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {  // it ended: the port was taken, most likely
      pid_ = -1;
      return false;
    }
    if (accepts(port)) {
      port_ = port;
      return true;
    }
    std::this_thread::sleep_for(std::chrono::milliseconds(20));
  }
  stop(true);
  return false;
}

void mosquitto_broker::stop(bool hard) {
  stop_child(pid_, hard ? SIGKILL : SIGTERM, std::chrono::seconds(5));
  pid_ = -1;
}

}  // namespace uactor::test
