// The session host: one scheduler actor that owns server_core (the sessions and the address space)
// and answers the connections' request batches in mailbox order (docs/decisions/0008).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include <caf/actor.hpp>
#include <caf/actor_system.hpp>
#include <caf/io/fwd.hpp>

#include "actors/server/crypto_workers.hpp"
#include "actors/server/exchange.hpp"
#include "engine/server/server_core.hpp"

namespace uactor::actors {

// Where the host runs (docs/decisions/0008): on the middleman's multiplexer thread, as a broker
// without connections, next to the connection brokers (no crossing between threads per request),
// or as a scheduler actor (the services on another core, two crossings per batch).
enum class host_thread : std::uint8_t { multiplexer, scheduler };

// Takes: batch_ptr (answered to the sender), the application's messages (application_messages.hpp),
// housekeeping_atom (its own timer:
// session timeouts and the Server object's time, every `housekeeping`).
// With `crypto`, the signatures and password checks of CreateSession and ActivateSession run on its
// workers (docs/decisions/0022): the batch holding such a request waits at the host, the rest of
// its requests behind it, until the result is back; other connections go on meanwhile.
caf::actor spawn_session_host(caf::actor_system& sys, server_core core, std::chrono::milliseconds housekeeping,
                              host_thread where = host_thread::scheduler, std::shared_ptr<crypto_pool> crypto = nullptr);

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
                                        host_thread where, std::shared_ptr<crypto_pool> crypto = nullptr);

// What the host does with a batch, done by the connection broker `self` in place: every
// request answered into its exchange (an empty response: a Publish answered later through a push),
// deferred responses pushed to their connections, the publishing clock armed. Only on the thread
// the host runs on (the multiplexer's): the state has no lock. False: a request of the batch waits
// for a crypto worker; the host keeps the batch and sends it back to `self` (a batch_ptr message)
// once it is answered.
bool answer_inline(caf::io::broker* self, host_state& st, const batch_ptr& batch);

}  // namespace uactor::actors
