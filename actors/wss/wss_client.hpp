// The client's opc.wss transport (Part 6 §7.5, docs/wss.md, docs/decisions/0057): dials
// host:port, runs TLS and the WebSocket upgrade with the opcua+uacp subprotocol, and hands the
// client's connection broker a socket pair's end, as a TCP connection would be handed: the UACP
// and secure-channel path is the opc.tcp one. One Asio thread per connector carries the bridges.
// No Boost in this header.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <span>
#include <string>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

namespace uactor::actors {

struct wss_client_options {
  std::chrono::milliseconds handshake_timeout{10'000};  // TCP connect, TLS and the upgrade together
  std::uint32_t max_frame = 65535;      // a received frame: the receive buffer the client offers
  std::uint32_t max_out_chunk = 65535;  // a chunk the client sends: its send buffer
  // Checks the server's TLS certificate (its leaf, DER) after the TLS handshake; false closes the
  // connection and `why` is logged. Null: any certificate (the UA security policy then carries the
  // trust; docs/wss.md).
  std::function<bool(std::span<const std::uint8_t> leaf_der, std::string& why)> verify;
};

class wss_connector {
public:
  explicit wss_connector(wss_client_options options);
  ~wss_connector();  // ends every connection it bridges and joins its thread
  wss_connector(const wss_connector&) = delete;
  wss_connector& operator=(const wss_connector&) = delete;

  // Blocks for at most handshake_timeout: the caller's end of a socket pair whose other end is the
  // WebSocket to opc.wss://host:port/path, or -1 (logged) when it cannot be made.
  int connect(const std::string& host, std::uint16_t port, const std::string& path);

  struct impl;  // with the thread and the bridges (wss_client.cpp)

private:
  std::shared_ptr<impl> impl_;
};

// connect() on a short-lived detached actor; `target` gets (client_socket_atom, generation,
// shared_ptr<socket_handoff>) as from connect_off_thread (tcp_connector.hpp).
void connect_wss_off_thread(caf::actor_system& system, caf::actor target, std::shared_ptr<wss_connector> connector,
                            std::string host, std::uint16_t port, std::string path, std::uint32_t generation);

}  // namespace uactor::actors
