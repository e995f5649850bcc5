// Debian's PostgreSQL for the history tests: a cluster made with initdb in a temp folder of its own,
// served on a Unix socket in that folder only (no TCP port at all), started, stopped and started
// again by the test itself. As root it runs as the `postgres` user (initdb and postgres refuse
// root); the folder is handed to that user.
#pragma once

#include <filesystem>
#include <string>

#include <sys/types.h>

namespace uactor::test {

class postgres_server {
public:
  // The folder of PostgreSQL's programs: $UACTOR_PG_BINDIR, else what `pg_config --bindir` says;
  // empty when there is none.
  static std::string bindir();

  postgres_server();   // initdb into a new temp folder; initialized() says whether it worked
  ~postgres_server();  // stops the server, removes the folder
  postgres_server(const postgres_server&) = delete;
  postgres_server& operator=(const postgres_server&) = delete;

  bool initialized() const noexcept { return initialized_; }
  // Starts the server; false when it did not accept connections within 30 s (its log says why).
  bool start();
  // SIGKILL when `hard` (a crash), else a fast shutdown (SIGINT); waits for the process.
  void stop(bool hard = false);
  bool running() const noexcept { return pid_ > 0; }
  // A libpq connection string for the database `uactor`.
  std::string conninfo() const;
  // The server's log, for a failing test's message.
  std::string log() const;

private:
  std::filesystem::path dir_;
  uid_t uid_ = 0;
  gid_t gid_ = 0;
  pid_t pid_ = -1;
  bool initialized_ = false;
};

}  // namespace uactor::test
