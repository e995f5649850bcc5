// An in-process uactor server for tests: its own caf::actor_system (io middleman, 2 scheduler
// threads), listening on 127.0.0.1 and an ephemeral port, serving namespace 0, the demo namespace
// and the Server object as runtime/server.cpp builds them (without depending on runtime/). The
// fixture owns the system and the server; its destructor stops both and waits for every actor.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <vector>

#include <caf/actor_control_block.hpp>
#include <caf/actor_system.hpp>
#include <caf/actor_system_config.hpp>

#include "actors/server/server_actors.hpp"
#include "engine/server/server_core.hpp"

namespace uactor::test {

// The server's state as `uactor run` has it: ns0 + demo namespace (ns=1) + Server object, for an
// endpoint on 127.0.0.1:`port`.
actors::server_core make_demo_core(std::uint16_t port);

// 127.0.0.1, port 0, small limits that hostile tests reach quickly: 4 connections, Hello timeout
// 500 ms (also the bound between Hello and OPN: short, yet not reached by a well-behaved client
// on a loaded machine), housekeeping every 50 ms.
actors::server_options small_server_options();

class server_fixture {
public:
  explicit server_fixture(actors::server_options options = small_server_options());
  ~server_fixture();
  server_fixture(const server_fixture&) = delete;
  server_fixture& operator=(const server_fixture&) = delete;

  std::uint16_t port() const noexcept { return handle_.port; }
  const actors::server_handle& handle() const noexcept { return handle_; }
  caf::actor_system& system() noexcept { return system_; }
  const actors::server_options& options() const noexcept { return options_; }

  // Actors alive in the system (the registry's count: listener, host, one per connection, ...).
  std::size_t running_actors() const;
  // Polls until running_actors() <= n or the deadline: the count it saw last.
  std::size_t wait_running_at_most(std::size_t n, std::chrono::milliseconds timeout = std::chrono::milliseconds(3000)) const;

  // Stops the server and waits for every actor (also done by the destructor).
  void stop();

private:
  static caf::actor_system_config& configure(caf::actor_system_config& cfg);

  // Declared first, so destroyed after the actor system: by then every listener and the session
  // host must be released (a weak reference that no longer locks). An ended broker kept alive by
  // a message in another ended broker's mailbox (CAF 0.17's brokers keep theirs) is a cycle, and
  // a connection in such a cycle holds the listener or the host (docs/decisions/0009).
  struct released_check {
    std::vector<caf::weak_actor_ptr> ended;
    ~released_check();
  };
  released_check released_;
  actors::server_options options_;
  caf::actor_system_config config_;
  caf::actor_system system_;
  actors::server_handle handle_;
  bool stopped_ = false;
};

}  // namespace uactor::test
