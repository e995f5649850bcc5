// `uactor agent --listen ADDR:PORT` (docs/distributed-load.md): a load agent. It publishes one
// actor through CAF's middleman (TLS through caf::openssl with --cert/--key/--cafile), answers
// one coordinator at a time (`uactor load --agents ...`), runs that coordinator's share of the
// scenario with the harness's own drivers, and stops its load by itself when the coordinator is
// lost (a down message, or silence past a bound) or the run's timeline ends.
#pragma once

#include <caf/fwd.hpp>

#include <chrono>
#include <optional>
#include <string>

namespace uactor::scenarios {

struct agent_settings {
  std::optional<std::string> secret;  // --secret-file's content: coordinators must prove it
  std::string version;                // what the agent reports ("" = agent_version(); tests change it)
  std::chrono::milliseconds silence_limit{3000};  // a running load without a word from its coordinator
};

// The agent's actor on `system` (whose middleman publishes it); agent_main's, and the tests'.
caf::actor spawn_agent(caf::actor_system& system, agent_settings settings);

// argv[0] is "agent"; the exit status.
int agent_main(int argc, char** argv);

}  // namespace uactor::scenarios
