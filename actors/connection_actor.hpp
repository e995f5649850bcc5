// One TCP connection of the server: the transport (staged receive into 8 KB, every chunk framed
// in place; the writes of one mailbox message in one send) and its secure channel, in one CAF io
// broker on the multiplexer thread (docs/decisions/0007). Decoded requests cross to the session
// host in batches (0008). The broker owns its socket, channel state and batches.
#pragma once

#include <chrono>
#include <cstdint>

#include <caf/actor.hpp>
#include <caf/behavior.hpp>
#include <caf/io/broker.hpp>
#include <caf/io/connection_handle.hpp>

#include "actors/secure_channel_state.hpp"

namespace uactor::actors {

struct connection_options {
  secure_channel_config channel;  // limits, Hello timeout, token lifetimes; channel_id is set per connection
  // Requests of one connection that may wait for the session host; past it the connection stops
  // reading until the host answers (back pressure instead of unbounded memory).
  std::size_t max_pending_requests = 256;
  std::chrono::milliseconds housekeeping_interval{1000};  // Hello timeout and token expiry checks
};

// The broker's behaviour, for `fork` from the listener (or `spawn_client` in tests with CAF's
// test multiplexer). `host` is the session host actor.
caf::behavior connection_broker(caf::io::broker* self, caf::io::connection_handle hdl, connection_options options,
                                std::uint32_t channel_id, caf::actor host);

}  // namespace uactor::actors
