// The `uactor` command line. Later: `uactor load ...` runs `uactor-load` from scenarios/ (as
// git runs its subcommands), so that runtime/ never depends on scenarios/.
#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>

#include "runtime/server_plan.hpp"

int main(int argc, char** argv) {
  CLI::App app{"uactor: a reactive, actor-based OPC UA runtime"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("uactor ") + UACTOR_VERSION);

  auto plan = uactor::runtime::default_server_plan();
  auto* run = app.add_subcommand("run", "run the server with the embedded default configuration");
  run->add_option("--port", plan.port, "TCP port to listen on");
  run->add_option("--host", plan.host_name, "host name to advertise");

  CLI11_PARSE(app, argc, argv);

  plan.application_uri = "urn:" + plan.host_name + ":uactor:server";
  std::printf("uactor %s\n%s", UACTOR_VERSION, uactor::runtime::describe(plan).c_str());
  std::printf("status            the opc.tcp server is not implemented yet (issue 3); nothing is listening\n");
  return 0;
}
