// The `uactor` command line. Later: `uactor load ...` runs `uactor-load` from scenarios/ (as
// git runs its subcommands), so that runtime/ never depends on scenarios/.
#include <arpa/inet.h>
#include <csignal>
#include <cstdio>
#include <string>

#include <CLI/CLI.hpp>

#include "runtime/client_cli.hpp"
#include "runtime/server.hpp"
#include "runtime/server_plan.hpp"

namespace {

// Serves until SIGINT or SIGTERM. The signals are blocked before any thread starts (CAF's threads
// inherit the mask), so only sigwait here sees them and the stop is an orderly one.
int run_server(uactor::runtime::server_plan plan) {
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  std::printf("uactor %s\n%s", UACTOR_VERSION, uactor::runtime::describe(plan).c_str());
  auto server = uactor::runtime::server::start(plan);
  if (!server) {
    std::fprintf(stderr, "uactor: cannot serve on %s:%u: %s\n", plan.listen_address.c_str(), plan.port,
                 server.error().to_string().c_str());
    return 1;
  }
  // Scripts wait for this line (tests/interop/server_interop.sh).
  std::printf("listening on %s\n", (*server)->endpoint_url().c_str());
  std::fflush(stdout);
  int signal = 0;
  sigwait(&stop_signals, &signal);
  std::printf("stopping (%s)\n", signal == SIGINT ? "SIGINT" : "SIGTERM");
  (*server)->stop();
  std::printf("stopped\n");
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"uactor: a reactive, actor-based OPC UA runtime"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("uactor ") + UACTOR_VERSION);

  auto plan = uactor::runtime::default_server_plan();
  std::string host;
  unsigned writer_ms = static_cast<unsigned>(plan.writer_interval.count());
  auto* run = app.add_subcommand("run", "run the server with the embedded default configuration");
  run->add_option("--port", plan.port, "TCP port to listen on (0: any free port)");
  run->add_option("--host", host,
                  "where to serve: an IPv4 address to listen on and advertise, or a host name to advertise "
                  "(then it listens on 0.0.0.0)");
  run->add_option("--writer-interval", writer_ms, "milliseconds between the demo writer's changes");
  run->add_option("--profile", plan.profile, "default, or interop: what the cross-SDK interop tests expect")
      ->check(CLI::IsMember({"default", "interop"}));

  uactor::runtime::add_client_commands(app);  // read, write, browse, call

  CLI11_PARSE(app, argc, argv);

  if (run->parsed()) {
    if (!host.empty()) {
      plan.host_name = host;
      in_addr a{};
      if (inet_pton(AF_INET, host.c_str(), &a) == 1) plan.listen_address = host;
    }
    plan.application_uri = "urn:" + plan.host_name + ":uactor:server";
    plan.writer_interval = std::chrono::milliseconds(writer_ms);
    return run_server(plan);
  }
  return 0;
}
