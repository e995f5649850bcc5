// The session host: one scheduler actor that owns server_core (the sessions and the address space)
// and answers the connections' request batches in mailbox order (docs/decisions/0008).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/io/fwd.hpp>

#include "actors/server/exchange.hpp"
#include "actors/server/server_core.hpp"

namespace uactor::actors {

// Where the host runs (docs/decisions/0008): on the middleman's multiplexer thread, as a broker
// without connections, next to the connection brokers (no crossing between threads per request),
// or as a scheduler actor (the services on another core, two crossings per batch).
enum class host_thread : std::uint8_t { multiplexer, scheduler };

// Takes: batch_ptr (answered to the sender), the application's messages (application_messages.hpp),
// housekeeping_atom (its own timer:
// session timeouts and the Server object's time, every `housekeeping`).
caf::actor spawn_session_host(caf::actor_system& sys, server_core core, std::chrono::milliseconds housekeeping,
                              host_thread where = host_thread::scheduler);

// The host's state (the core, the channels' connection actors, the reused push objects); opaque
// outside session_host_actor.cpp.
struct host_state;

// The host and, when it runs on the multiplexer thread, its state: the connection brokers (on the
// same thread) then answer their batches with answer_inline instead of a mailbox round trip to the
// host (docs/decisions/0013: no message, no allocation, no extra multiplexer round per batch).
struct session_host_ref {
  caf::actor actor;
  std::shared_ptr<host_state> inline_state;  // null for host_thread::scheduler
};

session_host_ref spawn_session_host_ref(caf::actor_system& sys, server_core core, std::chrono::milliseconds housekeeping,
                                        host_thread where);

// What the host does with a batch, done by the connection broker `self` in place: every
// request answered into its exchange (an empty response: a Publish answered later through a push),
// deferred responses pushed to their connections, the publishing clock armed. Only on the thread
// the host runs on (the multiplexer's): the state has no lock.
void answer_inline(caf::io::broker* self, host_state& st, exchange_batch& batch);

}  // namespace uactor::actors
