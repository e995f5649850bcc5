// The server's actors (docs/decisions/0007, 0008): a listener broker that accepts and admits
// connections, one connection broker per TCP connection (transport and secure channel on the
// multiplexer thread), and one session host actor on the scheduler that owns the sessions and the
// address space (server_core) and runs the services. Value sources push batches through the
// embedding API (runtime/, docs/embedding.md).
// spawn_server hands out handles; the actors own everything else.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <string>
#include <vector>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include "actors/server/connection_actor.hpp"
#include "actors/server/exchange.hpp"
#include "actors/server/reverse_dialer.hpp"
#include "actors/server/session_host_actor.hpp"
#include "actors/wss/wss_server.hpp"
#include "engine/server/server_core.hpp"
#include "uactor/ua/expected.hpp"

namespace uactor::actors {

// Where one endpoint listens (its index is the channels' secure_channel_config::endpoint).
struct listen_endpoint {
  std::string listen_address = "0.0.0.0";  // an IPv4 address
  std::uint16_t port = 4840;               // 0: an ephemeral port (server_handle::ports says which)
  // Set: an opc.wss endpoint (Part 6 §7.5): its TLS + WebSocket door (actors/wss/) listens on
  // listen_address:port and hands its connections to this endpoint's listener (docs/decisions/0057).
  std::shared_ptr<const wss_server_options> wss;
};

struct server_options {
  std::string listen_address = "0.0.0.0";  // an IPv4 address
  std::uint16_t port = 4840;               // 0: an ephemeral port (server_handle::port says which)
  // One listener each, all serving the one session host (Part 4 §5.4.4: one server, several
  // endpoints). Empty: one at listen_address:port.
  std::vector<listen_endpoint> endpoints;
  std::uint32_t max_connections = 1000;    // of all endpoints together
  connection_options connection;           // each connection's limits and timers; also the host's housekeeping interval
  host_thread session_host = host_thread::multiplexer;  // docs/decisions/0008
  // Where the channel and session crypto runs (docs/decisions/0022); a pool only when the
  // connections have security to run.
  crypto_pool_options crypto;
  // Accept from the start; false: bound (the port is known) but refusing connections until
  // open_server, so that no client sees the address space before its nodes are in.
  bool open_at_start = true;
};

// What dialers need of their server (start_reverse_connect): defined in server_actors.cpp.
struct reverse_context;

struct server_handle {
  caf::actor listener;                 // the first endpoint's
  std::vector<caf::actor> listeners;   // one per endpoint, in order
  caf::actor host;
  std::uint16_t port = 0;              // the port the first endpoint listens on
  std::vector<std::uint16_t> ports;    // one per endpoint
  std::shared_ptr<metrics_registry> metrics;  // what the host and the connections count
  std::shared_ptr<crypto_pool> crypto;         // null: no security, or crypto inline
  std::shared_ptr<reverse_context> reverse;    // for start_reverse_connect
  std::vector<caf::actor> dialers;             // one per reverse-connect target, once started
  std::vector<std::shared_ptr<wss_server>> wss;  // the opc.wss doors, started with their listeners
  std::vector<caf::actor> wss_listeners;          // the listener each door hands its connections to
};

// Starts the opc.wss doors (spawn_server with open_at_start, or open_server). Good when started already.
ua::status_code start_wss_doors(const server_handle& server);

// Makes the server's state once the port is known (it goes into the endpoint URLs).
using core_factory = std::function<server_core(std::uint16_t bound_port)>;
// The same once every endpoint's port is known (in endpoint order).
using endpoints_core_factory = std::function<server_core(const std::vector<std::uint16_t>& bound_ports)>;

// Binds every endpoint's address and port, spawns the host with the core and one listener per
// endpoint. Bad_TcpEndpointUrlInvalid for an address that does not parse, Bad_ResourceUnavailable
// when a port cannot be bound (nothing stays bound then).
ua::expected<server_handle> spawn_server(caf::actor_system& sys, const server_options& options,
                                         const endpoints_core_factory& make_core);
ua::expected<server_handle> spawn_server(caf::actor_system& sys, const server_options& options,
                                         const core_factory& make_core);

// Starts accepting on a server spawned with open_at_start = false (good when it does already).
// Waits for the listener: never call from the server's own thread. Bad_ServerHalted when it is
// gone, Bad_ResourceUnavailable when listen() fails.
ua::status_code open_server(const server_handle& server);

// Reverse connect (Part 6 §7.1.3): one dialer per target (reverse_dialer.hpp), its connections
// served as the first endpoint's, channel ids from the listeners' sequence, counted in the
// server's metrics. Call once the server is open; the dialers go into server.dialers.
void start_reverse_connect(server_handle& server, const std::vector<reverse_connect_target>& targets);

// Stops accepting, closes every connection and stops the host (and the writers, which watch it).
void stop_server(const server_handle& server);

}  // namespace uactor::actors
