// The client's reverse-connect listener (Part 6 §7.1.3): servers that may not accept connections
// dial out to it and send a ReverseHello (RHE); a socket whose RHE names the expected server is
// handed to the client actor, which runs Hello, OpenSecureChannel and the session over it as over a
// socket it connected itself. One thread of its own with poll(): it accepts, reads each RHE within
// its timeout, closes what does not pass (a line in the log each), and keeps at most max_pending
// sockets that have not sent their RHE, so that a flood of sockets costs a bounded number of
// descriptors. Not an actor: the sockets must leave it as plain descriptors (a CAF scribe cannot be
// handed from one broker to another actor system's), and a listener may outlive several clients.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <caf/actor.hpp>

#include "actors/client/tcp_connector.hpp"
#include "uactor/ua/expected.hpp"

namespace uactor::actors {

struct reverse_listener_options {
  std::string address = "0.0.0.0";  // an IPv4 address
  std::uint16_t port = 0;            // 0: one the system picks (reverse_connect_listener::port says which)
  std::string expected_server_uri;   // an RHE with another ServerUri is refused; empty: any
  std::string expected_endpoint_url; // an RHE with another EndpointUrl is refused; empty: any
  std::chrono::milliseconds hello_timeout{5'000};  // a socket that sends no whole RHE in this time is closed
  std::size_t max_pending = 16;      // sockets without their RHE yet; past it a newcomer is closed at once
  std::size_t max_ready = 4;         // sockets with a good RHE that no client has asked for yet (the oldest go)
};

class reverse_connect_listener {
public:
  // A socket for a client: a connected one whose RHE passed, or an invalid one when none came in time.
  using take_handler = std::function<void(std::shared_ptr<socket_handoff>)>;

  // Binds and listens, starts the thread. Bad_TcpEndpointUrlInvalid for an address that does not
  // parse, Bad_ResourceUnavailable when it cannot be bound.
  static ua::expected<std::shared_ptr<reverse_connect_listener>> open(reverse_listener_options options);

  ~reverse_connect_listener();
  reverse_connect_listener(const reverse_connect_listener&) = delete;
  reverse_connect_listener& operator=(const reverse_connect_listener&) = delete;

  std::uint16_t port() const noexcept;
  const reverse_listener_options& options() const noexcept;

  // The next socket that passes (one ready already, or the next to come), handed to `done` on the
  // listener's thread; an invalid socket after `wait`, or when the listener closes.
  void take(std::chrono::milliseconds wait, take_handler done);
  // The same for the client actor: (client_socket_atom, generation, shared_ptr<socket_handoff>).
  void take_for(const caf::actor& target, std::uint32_t generation, std::chrono::milliseconds wait);
  // Blocks the calling thread until take's answer.
  std::shared_ptr<socket_handoff> take_sync(std::chrono::milliseconds wait);

  // Stops the thread and closes every socket it holds; the takers waiting get an invalid socket.
  void close();

  struct impl;

private:
  explicit reverse_connect_listener(std::unique_ptr<impl> p);
  std::unique_ptr<impl> impl_;
};

}  // namespace uactor::actors
