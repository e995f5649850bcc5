// The read, write and browse scenarios with our client (actors/client.hpp), on one actor system of
// the harness: --sessions clients, each its own connection, channel and session (--client classic),
// or one client whose one secure channel carries all the sessions (--client shared:
// client::open_session); --inflight requests outstanding per session, closed loop: each answer
// sends the next.
#pragma once

#include <memory>
#include <string>

#include "scenarios/driver.hpp"

namespace uactor::scenarios {

enum class opcua_scenario { read, write, browse };

std::unique_ptr<load_driver> make_opcua_driver(opcua_scenario scenario, const load_options& options,
                                               std::string endpoint_url, bool shared_channel = false);

// Heap allocations of one copy of the request the scenario sends (the client takes requests by
// value, so the harness copies its prepared request for each one): part of the client's figure.
std::size_t request_copy_allocations(opcua_scenario scenario, std::size_t nodes);

}  // namespace uactor::scenarios
