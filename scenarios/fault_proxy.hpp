// Fault injection: a TCP proxy on 127.0.0.1 between a client and a server that forwards, cuts (RST
// or FIN, either side), stalls, delays and truncates. Used by the tests (tests/support) and by
// `uactor load --faults` (docs/decisions/0042). It owns its sockets and one thread, and ends them in
// its destructor. Plain POSIX: no CAF, no client, nothing of the layers below.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <vector>

namespace uactor::scenarios {

enum class cut_kind : std::uint8_t { rst, fin };
// Which end of each proxied connection is cut. The other end is black-holed: left open, what it
// sends read and dropped, nothing forwarded to it, as a peer behind a dead link sees it.
enum class cut_side : std::uint8_t { client, server, both };

// A blocking connect to 127.0.0.1:port with TCP_NODELAY (a local server answers or refuses at
// once): the fd, or -1.
int connect_loopback(std::uint16_t port);

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

}  // namespace uactor::scenarios
