// Reverse connect, the server's side (Part 6 §7.1.3): a server that may not accept connections
// dials out to a client's listener, sends a ReverseHello (ServerUri, EndpointUrl; §7.1.2.6) and
// then serves the socket as an accepted one: the same connection broker (serving_connection_broker),
// so Hello, security, sessions and limits are those of any connection. One dialer per target, a
// broker on the multiplexer; the TCP connect runs off that thread (connect_off_thread). It keeps
// max_connections open, dials again when one ends, and backs off (exponential, with jitter) while
// the client refuses or is absent, with one log line per change of state, not per attempt.
#pragma once

#include <chrono>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>

#include <caf/behavior.hpp>
#include <caf/io/broker.hpp>

#include "actors/server/connection_actor.hpp"
#include "actors/server/session_host_actor.hpp"
#include "engine/server/server_metrics.hpp"

namespace uactor::actors {

struct reverse_connect_target {
  std::string client_url;     // opc.tcp://host:port of the client's listener
  std::string server_uri;     // the RHE's ServerUri: the server's ApplicationUri
  std::string endpoint_url;   // the RHE's EndpointUrl: the endpoint the client is to use
  std::uint32_t max_connections = 1;  // kept open (or waiting for the client's Hello) at once
  std::chrono::milliseconds backoff_min{500};     // the first retry after a failed dial; also the pause before a redial
  std::chrono::milliseconds backoff_max{30'000};  // the longest pause between attempts
};

// What a dialer's connections are linked to: as a listener's (connection_options with the server's
// metrics and crypto pool), and the server's channel ids (unique across listeners and dialers).
struct reverse_dialer_links {
  session_host_ref host;
  connection_options connection;
  std::function<std::uint32_t()> next_channel_id;
  std::shared_ptr<reverse_connect_counters> counters;  // null: nothing counted
};

// Dials at once (start_reverse_connect spawns it once the server is open: no client sees the
// address space before the application's nodes are in). Its connections end with it.
caf::behavior reverse_dialer(caf::io::broker* self, reverse_connect_target target, reverse_dialer_links links);

}  // namespace uactor::actors
