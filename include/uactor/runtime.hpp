// The runtime an application embeds: an actor system (its own, or the application's) with the
// servers and clients started in it. No CAF types beyond a forward declaration for the
// application that brings its own system. The runtime owns what it starts; its destructor (or
// stop()) stops the servers, then the system it owns (docs/embedding.md).
#pragma once

#include <cstddef>
#include <memory>

#include "uactor/ua/expected.hpp"
#include "uactor/client.hpp"
#include "uactor/server.hpp"
#include "uactor/server_plan.hpp"

namespace caf {
class actor_system;
}

namespace uactor {

struct runtime_options {
  std::size_t threads = 2;  // CAF scheduler threads (2 was best on 2 cores: docs/caf-0.17-measured.md)
};

class runtime {
public:
  explicit runtime(runtime_options options = {});
  // Joins the application's actor system, which must have the io middleman loaded and must
  // outlive the runtime. Its configuration should have what uactor's own gets
  // (`middleman.max-consecutive-reads` 1, `work-stealing.moderate-sleep-duration` 0:
  // docs/decisions/0013, 0036).
  explicit runtime(caf::actor_system& system);
  ~runtime();
  runtime(const runtime&) = delete;
  runtime& operator=(const runtime&) = delete;

  // Listens on plan.listen_address:plan.port (0: an ephemeral port) with namespace 0, the Server
  // object and, when plan.demo, the demo namespace; accepts connections once these are in (or from
  // server::open() on, when not plan.open_at_start). Bad_ResourceUnavailable when the port cannot be
  // bound, Bad_ConfigurationError for a bad security setting (the log says which). The runtime owns
  // the server; the reference stays valid until stop().
  ua::expected<server*> start_server(const server_plan& plan);

  // A client connected in this runtime's system (see uactor/client.hpp). Close or destroy it
  // before the runtime: a runtime that owns its system waits for every actor in it to end.
  ua::expected<client> connect(client_options options);

  // Stops every server; then the system when the runtime owns it. Idempotent.
  void stop();

  struct impl;

private:
  std::unique_ptr<impl> impl_;
};

}  // namespace uactor
