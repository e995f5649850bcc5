// Debian's mosquitto broker for the PubSub tests: started on 127.0.0.1 on a port found free by
// binding port 0 first (retried when another process takes it meanwhile), in a temp folder of its
// own with a generated configuration, and stopped (SIGTERM, then SIGKILL) by the test itself.
#pragma once

#include <cstdint>
#include <filesystem>
#include <string>

#include <sys/types.h>

namespace uactor::test {

class mosquitto_broker {
public:
  // The broker binary: $UACTOR_MOSQUITTO, else /usr/sbin/mosquitto; empty when there is none.
  static std::string binary();

  mosquitto_broker();   // a temp folder; not started
  // Before start(): the broker takes only this user (a password file made with mosquitto_passwd).
  bool require_user(const std::string& user, const std::string& password);
  ~mosquitto_broker();  // stops it, removes the folder

  // Starts on a free port (the first call) or on the same port again (a restart). False when it
  // did not listen within 5 s.
  bool start();
  // SIGKILL when `hard` (a crash), else SIGTERM; waits for the process.
  void stop(bool hard = false);
  bool running() const noexcept { return pid_ > 0; }
  std::uint16_t port() const noexcept { return port_; }
  std::string url() const { return "mqtt://127.0.0.1:" + std::to_string(port_); }
  const std::filesystem::path& folder() const noexcept { return dir_; }

private:
  bool start_on(std::uint16_t port);
  std::filesystem::path dir_;
  std::uint16_t port_ = 0;
  pid_t pid_ = -1;
  bool users_ = false;
};

// A port no socket of 127.0.0.1 holds now (bind port 0, read it, close).
std::uint16_t free_loopback_port();

}  // namespace uactor::test
