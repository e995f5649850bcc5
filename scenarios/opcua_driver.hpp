// The read, write and browse scenarios with our client (actors/client.hpp), on one actor system of
// the harness: --sessions clients, each its own connection, channel and session (--client classic),
// or one client whose one secure channel carries all the sessions (--client shared:
// client::open_session); --inflight requests outstanding per session, closed loop: each answer
// sends the next. Each request in flight is a prepared request (client::prepare): the client's
// lowest-cost API, no allocation per request in steady state.
#pragma once

#include <memory>
#include <string>

#include "scenarios/driver.hpp"

namespace uactor::scenarios {

enum class opcua_scenario { read, write, browse };

std::unique_ptr<load_driver> make_opcua_driver(opcua_scenario scenario, const load_options& options,
                                               std::string endpoint_url, bool shared_channel = false);

}  // namespace uactor::scenarios
