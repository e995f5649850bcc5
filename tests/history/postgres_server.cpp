#include "tests/history/postgres_server.hpp"

#include "tests/support/child_process.hpp"

#include <fcntl.h>
#include <grp.h>
#include <libpq-fe.h>
#include <pwd.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <array>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <thread>
#include <vector>

namespace uactor::test {

namespace {

// Runs a program as uid/gid (when not 0) with its output appended to `log`; returns its pid.
// Between fork and exec only async-signal-safe calls: the test process has threads.
pid_t spawn_as(const std::vector<std::string>& args, uid_t uid, gid_t gid, const std::string& log) {
  std::vector<char*> argv;
  for (const auto& a : args) argv.push_back(const_cast<char*>(a.c_str()));
  argv.push_back(nullptr);
  const int out = ::open(log.c_str(), O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
  if (out < 0) return -1;
  if (uid != 0 && ::fchown(out, uid, gid) != 0) {
    ::close(out);
    return -1;
  }
  const pid_t pid = ::fork();
  if (pid == 0) {
    ::dup2(out, 1);
    ::dup2(out, 2);
    const int in = ::open("/dev/null", O_RDONLY);
    if (in >= 0) ::dup2(in, 0);
    if (uid != 0 && (::setgroups(0, nullptr) != 0 || ::setgid(gid) != 0 || ::setuid(uid) != 0)) ::_exit(126);
    ::execv(argv[0], argv.data());
    ::_exit(127);
  }
  ::close(out);
  return pid;
}

int wait_for(pid_t pid) {
  int status = 0;
  if (pid <= 0 || ::waitpid(pid, &status, 0) != pid) return -1;
  return WIFEXITED(status) ? WEXITSTATUS(status) : -1;
}

}  // namespace

std::string postgres_server::bindir() {
  if (const char* e = std::getenv("UACTOR_PG_BINDIR"); e && *e) return e;
  std::string out;
  if (FILE* p = ::popen("pg_config --bindir 2>/dev/null", "r")) {
    std::array<char, 512> line{};
    if (std::fgets(line.data(), line.size(), p)) out = line.data();
    ::pclose(p);
  }
  while (!out.empty() && (out.back() == '\n' || out.back() == ' ')) out.pop_back();
  return !out.empty() && ::access((out + "/initdb").c_str(), X_OK) == 0 ? out : "";
}

postgres_server::postgres_server() {
  static std::atomic<int> n{0};
  dir_ = std::filesystem::temp_directory_path() / ("uactor-pg-" + std::to_string(::getpid()) + "-" + std::to_string(n++));
  std::filesystem::remove_all(dir_);
  std::filesystem::create_directories(dir_);
  if (::geteuid() == 0) {
    const passwd* pw = ::getpwnam("postgres");
    if (!pw) pw = ::getpwnam("nobody");
    if (!pw) return;
    uid_ = pw->pw_uid;
    gid_ = pw->pw_gid;
    if (::chown(dir_.c_str(), uid_, gid_) != 0) return;
  }
  const std::string bin = bindir();
  if (bin.empty()) return;
  const std::string data = (dir_ / "data").string();
  initialized_ = wait_for(spawn_as({bin + "/initdb", "-D", data, "-U", "uactor", "--auth=trust", "--no-sync", "-E", "UTF8",
                                    "--locale=C"},
                                   uid_, gid_, (dir_ / "initdb.log").string())) == 0;
}

postgres_server::~postgres_server() {
  stop();
  std::error_code ec;
  std::filesystem::remove_all(dir_, ec);
}

std::string postgres_server::conninfo() const { return "host=" + dir_.string() + " user=uactor dbname=postgres"; }

std::string postgres_server::log() const {
  std::ostringstream out;
  for (const char* name : {"initdb.log", "postgres.log"}) {
    std::ifstream in(dir_ / name);
    out << in.rdbuf();
  }
  return out.str();
}

bool postgres_server::start() {
  if (!initialized_) return false;
  if (running()) return true;
  // The socket in the folder, no TCP listener; fsync off: a test's data need not survive a crash
  // of the machine.
  pid_ = spawn_as({bindir() + "/postgres", "-D", (dir_ / "data").string(), "-k", dir_.string(), "-c", "listen_addresses=",
                   "-c", "fsync=off", "-c", "max_connections=40"},
                  uid_, gid_, (dir_ / "postgres.log").string());
  if (pid_ <= 0) return false;
  const std::string info = conninfo();
  const auto until = std::chrono::steady_clock::now() + std::chrono::seconds(30);
  while (std::chrono::steady_clock::now() < until) {
    int status = 0;
    if (::waitpid(pid_, &status, WNOHANG) == pid_) {
      pid_ = -1;
      return false;
    }
    if (PQping(info.c_str()) == PQPING_OK) return true;
    std::this_thread::sleep_for(std::chrono::milliseconds(50));
  }
  stop(true);
  return false;
}

void postgres_server::stop(bool hard) {
  stop_child(pid_, hard ? SIGKILL : SIGINT, std::chrono::seconds(20));  // SIGINT: PostgreSQL's fast shutdown
  pid_ = -1;
}

}  // namespace uactor::test
