// The session host: one scheduler actor that owns server_core (the sessions and the address space)
// and answers the connections' request batches in mailbox order (docs/decisions/0008).
#pragma once

#include <chrono>
#include <cstdint>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>

#include "actors/server_core.hpp"

namespace uactor::actors {

// Where the host runs (docs/decisions/0008): on the middleman's multiplexer thread, as a broker
// without connections, next to the connection brokers (no crossing between threads per request),
// or as a scheduler actor (the services on another core, two crossings per batch).
enum class host_thread : std::uint8_t { multiplexer, scheduler };

// Takes: batch_ptr (answered to the sender), writer_tick, housekeeping_atom (its own timer:
// session timeouts and the Server object's time, every `housekeeping`).
caf::actor spawn_session_host(caf::actor_system& sys, server_core core, std::chrono::milliseconds housekeeping,
                              host_thread where = host_thread::scheduler);

}  // namespace uactor::actors
