// The config file on the `uactor` command line: `uactor check-config FILE`, `uactor config default`,
// `uactor hash-password [USER]`, and the plant `uactor run [--config FILE]` serves (the file's
// values, then the flags given on the command line over them).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "runtime/config/config.hpp"

namespace CLI {
class App;
}

namespace uactor::config {

// check-config, config default, hash-password. Their callbacks end the parse with
// CLI::RuntimeError(exit code): 0, or 2 for a file with errors.
void add_config_commands(CLI::App& app);

// The file (or, empty, the embedded default) checked, each error printed to stderr; nullopt when
// there is any (exit 2, nothing started). Then every flag `run` was given overrides the file:
// `flags` holds their values. `reloading`: the running servers hold the ports, which are not checked.
// `nodesets` (--nodeset) are checked with the file and loaded after its [[nodesets]].
std::optional<plant> plant_for_run(const std::string& file, const server_plan& flags, const CLI::App& run,
                                   std::span<const nodeset_file> nodesets = {}, bool reloading = false);

// `uactor run --mirror ENDPOINT,NODE[,NODE...]` (repeatable, docs/gateway.md): each one a mirror
// named mirror1, mirror2, ... in the order given, after the file's [[mirrors]]. False, with each
// mistake printed to stderr, when one is malformed or its name is the file's.
bool add_cli_mirrors(plant& p, const std::vector<std::string>& flags);

}  // namespace uactor::config
