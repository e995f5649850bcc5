// Makes a TCP connection off the multiplexer thread (a connect may take long to fail) for the
// supervised client's reconnect: a short-lived detached actor connects and hands the socket back
// to the connection actor. Apart from the connection actor because it is the one piece that runs
// on a thread of its own; it knows nothing of sessions.
#pragma once

#include <cstdint>
#include <memory>
#include <string>

#include <caf/all.hpp>
#include <caf/io/network/native_socket.hpp>

namespace uactor::actors {

// A connected socket on its way from the connector to the broker; closed if nobody takes it.
struct socket_handoff {
  caf::io::network::native_socket fd = caf::io::network::invalid_native_socket;
  // A reverse connection's: what its ReverseHello said (Part 6 §7.1.2.6); empty otherwise.
  std::string server_uri;
  std::string endpoint_url;
  // An opc.wss connection's (a socket pair's end): the WebSocket peer's IP address.
  std::string peer_address;
  socket_handoff() = default;
  socket_handoff(const socket_handoff&) = delete;
  socket_handoff& operator=(const socket_handoff&) = delete;
  ~socket_handoff();
  caf::io::network::native_socket release() noexcept {
    auto f = fd;
    fd = caf::io::network::invalid_native_socket;
    return f;
  }
};

// What the connector sends `target`: (client_socket_atom, generation, shared_ptr<socket_handoff>),
// with an invalid socket when the connection could not be made.
using client_socket_atom = caf::atom_constant<caf::atom("uasocket")>;

// Connects to host:port on a detached actor; the answer carries `generation`, so that the target
// can tell a socket made for a link it has given up since.
void connect_off_thread(caf::actor_system& system, caf::actor target, std::string host, std::uint16_t port,
                        std::uint32_t generation);

}  // namespace uactor::actors

CAF_ALLOW_UNSAFE_MESSAGE_TYPE(std::shared_ptr<uactor::actors::socket_handoff>)
