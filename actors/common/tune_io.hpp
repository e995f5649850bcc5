// The CAF settings every actor system of ours wants (the server's, the client's, the tests'),
// applied to a configuration before the system is made.
#pragma once

#include <caf/fwd.hpp>

namespace uactor::actors {

// The I/O (docs/decisions/0013) and the scheduler's idle wake-up (docs/decisions/0036).
void tune_io(caf::actor_system_config& cfg);

}  // namespace uactor::actors
