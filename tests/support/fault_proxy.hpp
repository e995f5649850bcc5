// Fault injection for network tests: a TCP proxy on 127.0.0.1 between a client and a server that
// forwards, cuts (RST or FIN, either side), stalls, delays and truncates; and a server process that
// can be killed with SIGKILL and restarted on the same port. The proxy owns its sockets and one
// thread; server_process owns its child. Both end what they own in their destructors.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace uactor::test {

enum class cut_kind : std::uint8_t { rst, fin };
// Which end of each proxied connection is cut. The other end is black-holed: left open, what it
// sends read and dropped, nothing forwarded to it, as a peer behind a dead link sees it.
enum class cut_side : std::uint8_t { client, server, both };

class fault_proxy {
public:
  // Listens on 127.0.0.1 and an ephemeral port; each accepted connection is paired with a new
  // connection to 127.0.0.1:target_port (a refused one resets the client's).
  explicit fault_proxy(std::uint16_t target_port);
  ~fault_proxy();
  fault_proxy(const fault_proxy&) = delete;
  fault_proxy& operator=(const fault_proxy&) = delete;

  std::uint16_t port() const noexcept;
  std::string url() const;  // opc.tcp://127.0.0.1:<port>

  // Each call returns once the proxy thread has carried it out.
  // Ends every open connection: `side` gets an RST (SO_LINGER 0) or a FIN, the other is black-holed.
  void cut(cut_kind kind = cut_kind::rst, cut_side side = cut_side::both);
  // The link is down: new connections are reset as soon as they are accepted (true) or paired again (false).
  void set_refusing(bool refusing);
  // Stops forwarding in both directions (no reads, so TCP's flow control holds the senders);
  // the connections stay open. Forwarding resumes after `duration` (zero: at resume()).
  void stall(std::chrono::milliseconds duration = std::chrono::milliseconds(0));
  void resume();
  // Every piece read is forwarded this much later (zero: at once).
  void set_delay(std::chrono::milliseconds delay);
  // Of what the server sends next, `bytes` reach the client, then both ends get an RST: a
  // response truncated mid-chunk.
  void truncate_server_to_client_after(std::size_t bytes);

  std::size_t accepted() const;           // connections accepted so far
  std::size_t open_connections() const;   // pairs still forwarding
  std::uint64_t bytes_forwarded() const;  // both directions

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

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
