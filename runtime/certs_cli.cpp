// `uactor certs`: see certs_cli.hpp.
#include "runtime/certs_cli.hpp"

#include <cstdio>

#include <CLI/CLI.hpp>

namespace uactor::runtime {

void add_certs_commands(CLI::App& app) {
  auto* certs = app.add_subcommand("certs", "the PKI store: create, list, trust, reject certificates");
  certs->callback([] {
    std::fprintf(stderr, "uactor: certs is being written\n");
    throw CLI::RuntimeError(1);
  });
}

}  // namespace uactor::runtime
