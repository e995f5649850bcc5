// The embedding API's scripts (server::add_scripts, docs/scripts.md): a plan checked and turned
// into a runner's setup, the runner spawned and fed by a watch of the session host. Used by
// runtime.cpp's server; no public API of its own.
#pragma once

#include <functional>
#include <memory>
#include <string>
#include <vector>

#include <caf/actor.hpp>

#include "engine/server/server_core.hpp"
#include "actors/shards/runner.hpp"
#include "uactor/scripts.hpp"
#include "uactor/server.hpp"

namespace uactor::app {

// Every script's name (given, or `virtual_tags[i] (ns=2;s=Flow)`), in plan order.
std::vector<std::string> script_names(const script_plan& plan);

// What can be checked without the server: names of inputs, periods, deadlines, and a compile of
// every script (its syntax error named). Errors are appended.
void check_scripts(const script_plan& plan, std::vector<std::string>& errors);

// On the host: the inputs and outputs resolved, the outputs' DataTypes. Fills the setup's items,
// the input nodes (slot order) and the output handles (item order); errors appended.
void resolve_scripts(const script_plan& plan, const ua::address_space& as, actors::runner_setup& setup,
                     std::vector<ua::node_index>& inputs, std::vector<value_handle>& outputs,
                     std::vector<std::string>& errors);

}  // namespace uactor::app
