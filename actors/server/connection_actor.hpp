// One TCP connection of the server: the transport (staged receive into 8 KB, every chunk framed
// in place; the writes of one mailbox message in one send) and its secure channel, in one CAF io
// broker on the multiplexer thread (docs/decisions/0007). Decoded requests cross to the session
// host in batches (0008). The broker owns its socket, channel state and batches.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <string>

#include <caf/actor.hpp>
#include <caf/behavior.hpp>
#include <caf/io/broker.hpp>
#include <caf/io/connection_handle.hpp>

#include "actors/server/crypto_workers.hpp"
#include "engine/server/secure_channel_state.hpp"
#include "engine/server/server_metrics.hpp"
#include "actors/server/session_host_actor.hpp"

namespace uactor::actors {

class wss_native_endpoint;  // actors/wss/wss_native.hpp

struct connection_options {
  secure_channel_config channel;  // limits, Hello timeout, token lifetimes; channel_id is set per connection
  // Requests of one connection that may wait for the session host; past it the connection stops
  // reading until the host answers (back pressure instead of unbounded memory).
  std::size_t max_pending_requests = 256;
  std::chrono::milliseconds housekeeping_interval{1000};  // Hello timeout and token expiry checks
  std::shared_ptr<metrics_registry> metrics;  // null: the connection counts nothing
  // Where an asymmetric OpenSecureChannel is answered (docs/decisions/0022); null: inline.
  std::shared_ptr<crypto_pool> crypto;
  // Set: the connection is an opc.wss one served natively (TLS, the upgrade and the WebSocket in
  // the broker, docs/decisions/0073); its bytes go through a wss_native_transport.
  std::shared_ptr<wss_native_endpoint> wss;
};

// The broker's behaviour, for `fork` from the listener (or `spawn_client` in tests with CAF's
// test multiplexer). `host` is the session host actor.
caf::behavior connection_broker(caf::io::broker* self, caf::io::connection_handle hdl, connection_options options,
                                std::uint32_t channel_id, caf::actor host);

// What a server's connection is linked to besides its scribe (docs/decisions/0013).
struct connection_links {
  session_host_ref host;  // with inline_state set, batches are answered in place, not sent to the host
  // The connection's socket, when the scribe is a real one (CAF's default multiplexer): output
  // goes out with one send() of our own while CAF's write buffer is empty, without CAF's
  // register-write-interest / write / unregister round (two epoll_ctl and an epoll_wait per
  // response); the rest, after a partial or refused send, goes through the scribe in order. -1:
  // always through the scribe (tests with CAF's test multiplexer).
  int native_socket = -1;
  // The listener sends the housekeeping ticks (one timer for all its connections): thousands of
  // per-connection timers wake the multiplexer through its pipe from the clock thread and can
  // fill it (docs/decisions/0027-one-housekeeping-timer.md). false: the broker arms its own.
  bool ticked_by_listener = false;
  // The peer's IP address when the socket's own peer is not it (opc.wss: a socket pair whose other
  // end is the WebSocket bridge, docs/decisions/0057); empty: the socket's peer.
  std::string peer_address;
  // opc.wss served natively past max_connections: TLS and the upgrade run (bounded as any), then
  // an ERR Bad_TcpNotEnoughResources and the close, as the door answers; never a channel, never
  // counted as the endpoint's. Needs ticked_by_listener false (the listener does not keep it).
  bool refuse = false;
};

caf::behavior serving_connection_broker(caf::io::broker* self, caf::io::connection_handle hdl,
                                        connection_options options, std::uint32_t channel_id, connection_links links);

}  // namespace uactor::actors
