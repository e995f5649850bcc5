// Reverse connect, the client's side (Part 6 §7.1.3, docs/reverse-connect.md): a listener that
// servers dial out to. Each accepted socket must send a ReverseHello first, within hello_timeout;
// one whose ServerUri (and EndpointUrl, when expected) match goes to the client that waits for
// one (client_options::reverse_listener), which then connects over it as usual. Open one yourself
// when the port is 0 (the server must be told port() before it can dial), or let client::connect
// open one from client_options::reverse_listen.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <utility>

#include "uactor/ua/expected.hpp"
#include "uactor/ua/status_codes.hpp"

namespace uactor {

namespace actors {
class reverse_connect_listener;
}

struct reverse_listen_options {
  std::string listen = "0.0.0.0:4843";  // HOST:PORT (an IPv4 address; port 0: the system picks one)
  std::string expected_server_uri;      // the ServerUri an RHE must carry; empty: any server
  std::string expected_endpoint_url;    // the EndpointUrl an RHE must carry; empty: any
  std::chrono::milliseconds hello_timeout{5'000};  // a socket without its whole RHE by then is closed
  std::size_t max_pending = 16;  // sockets waiting for their RHE; a newcomer past it is closed at once
};

class reverse_listener {
public:
  // Binds and listens. Bad_TcpEndpointUrlInvalid for a `listen` that is not HOST:PORT,
  // Bad_ResourceUnavailable when it cannot be bound.
  static ua::expected<std::shared_ptr<reverse_listener>> open(const reverse_listen_options& options);

  ~reverse_listener();
  reverse_listener(const reverse_listener&) = delete;
  reverse_listener& operator=(const reverse_listener&) = delete;

  std::uint16_t port() const noexcept;  // the bound port
  // Stops listening and closes the sockets it holds (a client waiting for one gets none).
  void close();

private:
  friend class client;
  explicit reverse_listener(std::shared_ptr<actors::reverse_connect_listener> l) noexcept;
  std::shared_ptr<actors::reverse_connect_listener> listener_;
};

// HOST:PORT as reverse_listen_options::listen takes it (port 0..65535); Bad_TcpEndpointUrlInvalid
// otherwise.
ua::expected<std::pair<std::string, std::uint16_t>> parse_host_port(const std::string& text);

}  // namespace uactor
