// The `uactor` command line. `uactor load ...` runs `uactor-load` from scenarios/ (as git runs
// its subcommands), so that runtime/ never depends on scenarios/.
#include <arpa/inet.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <csignal>
#include <cstdio>
#include <cstring>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <spdlog/spdlog.h>

#include "cli/certs_cli.hpp"
#include "cli/client_cli.hpp"
#include "cli/config_cli.hpp"
#include "runtime/allocator_settings.hpp"
#include "runtime/config/start.hpp"
#include "runtime/http/http_service.hpp"
#include "runtime/http/prometheus_text.hpp"
#include "runtime/process_stats.hpp"
#include "scripting/worker.hpp"
#include "uactor/runtime.hpp"
#include "uactor/server_plan.hpp"

namespace {

using plant_source = std::function<std::optional<uactor::config::plant>()>;

// SIGHUP (docs/configuration.md "Reload"): the plant read again, checked whole (a file with any
// error changes nothing; its errors are logged), then each server takes what changes without a
// restart: users and trusted certificates, and the log level.
void reload(const uactor::config::plant_runner& runtime, const plant_source& reread) {
  spdlog::info("SIGHUP: reading the configuration again");
  const auto plant = reread();  // prints every error of the file
  if (!plant) {
    spdlog::error("reload refused: the file has errors (above); the running configuration stays");
    return;
  }
  auto* server = runtime.server();
  if (!server) return;
  if (plant->server.resolved_endpoints().size() != server->ports().size())
    spdlog::warn("reload: the file has {} endpoint(s), {} run: endpoints change at restart only",
                 plant->server.resolved_endpoints().size(), server->ports().size());
  for (const auto& e : server->reload(plant->server))
    // docs/configuration.md "Reload": the words an operator greps for first, the detail after.
    spdlog::error("reload refused: the file has errors: {} (server {}); its running configuration stays", e,
                  server->endpoint_url());
  spdlog::default_logger()->set_level(spdlog::level::from_str(plant->logging.level));
}

// [metrics]: /metrics and /health (runtime/http), started before the servers so that /health/live
// answers while they start; /health/ready and the servers' samples once `ready` is set (the
// servers' list no longer changes then, and the HTTP service stops before they do).
std::unique_ptr<uactor::app::http_service> start_http(const uactor::config::metrics_spec& spec,
                                                      const uactor::config::plant_runner& runtime,
                                                      const std::atomic<bool>& ready) {
  if (!spec.enabled) return nullptr;
  uactor::app::http_options o;
  o.listen_address = spec.listen_address;
  o.port = spec.port;
  o.max_connections = spec.max_connections;
  uactor::app::http_sources sources;
  sources.ready = [&ready] { return ready.load(std::memory_order_acquire); };
  sources.metrics = [&runtime, &ready] {
    std::vector<uactor::app::endpoint_sample> endpoints;
    if (ready.load(std::memory_order_acquire))
      if (const auto* s = runtime.server())
        endpoints.push_back({s->endpoint_url(), s->metrics(), s->scripts_metrics(), s->endpoint_urls()});
    auto process = uactor::app::sample_process();
    process.writer_cycles = runtime.writer_cycles();
    process.writer_wait_ns = runtime.writer_wait_ns();
    process.writer_waits = runtime.writer_waits();
    return uactor::app::prometheus_text(endpoints, process);
  };
  auto http = uactor::app::http_service::start(std::move(o), std::move(sources));
  if (!http) return nullptr;
  // Scripts wait for this line as for `listening on`.
  std::printf("metrics on http://%s:%u/metrics\n", spec.listen_address.c_str(), unsigned{(*http)->port()});
  std::fflush(stdout);
  return std::move(*http);
}

// Serves until SIGINT or SIGTERM; on SIGUSR1 prints `stats <fields>` (runtime/process_stats.hpp)
// and goes on serving: the load harness asks at both edges of its measurement window; on SIGHUP
// reloads (above). The signals are blocked before any thread starts (CAF's threads inherit the
// mask), so only sigwait here sees them and the stop is an orderly one.
// The plant's NodeSets ([[nodesets]], then --nodeset) are loaded before it opens; any error refuses
// the start.
int run_server(const uactor::config::plant& plant, const plant_source& reread) {
  uactor::app::hold_freed_memory_for_reuse();
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  sigaddset(&stop_signals, SIGUSR1);
  sigaddset(&stop_signals, SIGHUP);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  std::printf("uactor %s\n", UACTOR_VERSION);
  std::printf("%s", uactor::describe(plant.server).c_str());
  uactor::config::apply_logging(plant.logging);
  uactor::config::plant_runner runtime;
  std::atomic<bool> ready{false};
  auto http = start_http(plant.metrics, runtime, ready);
  if (plant.metrics.enabled && !http) return 1;
  if (std::string error; !runtime.start(plant, error)) {
    std::fprintf(stderr, "uactor: %s\n", error.c_str());
    return 1;
  }
  ready.store(true, std::memory_order_release);
  // After the start: the NodeSets and the file's namespaces are registered by now (an operator
  // looks their indexes up here).
  std::printf("%s", uactor::describe_namespaces(runtime.server()->namespace_array()).c_str());
  // Scripts wait for this line (tests/interop/server_interop.sh), one per endpoint of the server.
  for (const auto& url : runtime.server()->endpoint_urls()) std::printf("listening on %s\n", url.c_str());
  std::fflush(stdout);
  int signal = 0;
  for (;;) {
    if (sigwait(&stop_signals, &signal) != 0) continue;
    if (signal == SIGHUP) {
      reload(runtime, reread);
      continue;
    }
    if (signal != SIGUSR1) break;
    const auto line = "stats " + uactor::app::to_line(uactor::app::sample_process_stats()) + "\n";
    std::fputs(line.c_str(), stdout);
    std::fflush(stdout);
  }
  std::printf("stopping (%s)\n", signal == SIGINT ? "SIGINT" : "SIGTERM");
  http.reset();  // before the servers it samples
  runtime.stop();
  std::printf("stopped\n");
  return 0;
}

// `uactor load ARGS...` runs `uactor-load ARGS...`, and `uactor agent ARGS...` runs `uactor-load
// agent ARGS...` (docs/distributed-load.md): the one next to this executable, else the one on PATH.
// exec, so that the harness's exit status and signals are the command's.
int run_load(int argc, char** argv, bool agent = false) {
  std::vector<char*> args;
  args.push_back(const_cast<char*>("uactor-load"));
  if (agent) args.push_back(const_cast<char*>("agent"));
  for (int i = 2; i < argc; ++i) args.push_back(argv[i]);
  args.push_back(nullptr);
  std::string self(4096, '\0');
  const auto n = readlink("/proc/self/exe", self.data(), self.size() - 1);
  if (n > 0) {
    self.resize(static_cast<std::size_t>(n));
    const auto beside = self.substr(0, self.rfind('/') + 1) + "uactor-load";
    execv(beside.c_str(), args.data());
  }
  execvp("uactor-load", args.data());
  std::fprintf(stderr, "uactor: cannot run uactor-load (next to uactor or on PATH): %s\n", std::strerror(errno));
  return 127;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::strcmp(argv[1], "load") == 0) return run_load(argc, argv);
  if (argc >= 2 && std::strcmp(argv[1], "agent") == 0) return run_load(argc, argv, true);
  // A script shard (docs/scripts.md), as uactor-worker is: parsed before anything else starts.
  if (argc >= 2 && std::strcmp(argv[1], "worker") == 0) return uactor::scripting::worker_main(argc, argv);
  CLI::App app{"uactor: a reactive, actor-based OPC UA runtime"};
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("uactor ") + UACTOR_VERSION);
  app.footer("uactor load [OPTIONS]: the load harness (runs uactor-load; see uactor load --help)\n"
             "uactor agent --listen ADDR:PORT: a load agent for uactor load --agents (docs/distributed-load.md)");

  auto plan = uactor::default_server_plan();
  plan.demo = true;  // `uactor run` serves docs/demo-namespace.md
  std::string host;
  unsigned writer_ms = static_cast<unsigned>(plan.writer_interval.count());
  auto* run = app.add_subcommand("run", "run the server from a plant file (default: the embedded one, uactor config default)");
  std::string config_file;
  run->add_option("--config", config_file, "the plant file (TOML, docs/configuration.md); the flags below override it");
  run->add_option("--port", plan.port, "TCP port to listen on (0: any free port)");
  run->add_option("--host", host,
                  "where to serve: an IPv4 address to listen on and advertise, or a host name to advertise "
                  "(then it listens on 0.0.0.0)");
  run->add_option("--writer-interval", writer_ms, "milliseconds between the demo writer's changes");
  run->add_option("--load-variables", plan.load_variables,
                  "serve N UInt32 variables ns=1;s=Load.V0..V<N-1> that the writer sets to its tick each interval "
                  "(the load harness's sub scenario)")
      ->check(CLI::Range(0u, 1'000'000u));
  run->add_option("--session-host", plan.session_host,
                  "where sessions and services run: multiplexer (with the connections) or scheduler")
      ->check(CLI::IsMember({"multiplexer", "scheduler"}));
  run->add_option_function<std::vector<std::string>>(
         "--reverse-connect",
         [&plan](const std::vector<std::string>& urls) {
           for (const auto& u : urls) {
             uactor::reverse_connect_plan r;
             r.client_url = u;
             plan.reverse_connect.push_back(std::move(r));
           }
         },
         "dial a client's reverse-connect listener opc.tcp://HOST:PORT and send it a ReverseHello (Part 6 §7.1.3; "
         "repeatable; added to the plant file's [[server.reverse_connect]], docs/reverse-connect.md)")
      ->check([](const std::string& u) { return u.rfind("opc.tcp://", 0) == 0 ? std::string() : "not opc.tcp://HOST:PORT"; });
  run->add_option_function<std::uint16_t>(
         "--wss-port",
         [&plan](std::uint16_t port) {
           if (!plan.wss) plan.wss.emplace();
           plan.wss->port = port;
         },
         "also serve opc.wss://HOST:PORT/ (UA over WebSocket Secure, Part 6 §7.5; 0: any free port; TLS with the "
         "application certificate; docs/wss.md)");
  run->add_option_function<std::vector<std::string>>(
         "--wss-allow-origin",
         [&plan](const std::vector<std::string>& origins) {
           if (!plan.wss) plan.wss.emplace();
           plan.wss->allowed_origins.insert(plan.wss->allowed_origins.end(), origins.begin(), origins.end());
         },
         "with --wss-port: a browser origin that may connect (https://host[:port], null, or *; repeatable)");
  run->add_option("--max-connections", plan.max_connections, "connections accepted at once (past it: an ERR)")
      ->check(CLI::Range(1u, 1'000'000u));
  run->add_option("--max-sessions", plan.max_sessions, "sessions at once (past it: Bad_TooManySessions)")
      ->check(CLI::Range(1u, 1'000'000u));
  run->add_option("--crypto-workers", plan.crypto_workers,
                  "threads for OpenSecureChannel crypto, session signatures and password checks (0: inline; "
                  "docs/decisions/0022)")
      ->check(CLI::Range(0u, 64u));
  run->add_option("--crypto-queue", plan.crypto_queue,
                  "such tasks that may wait; past it new channels get Bad_TcpServerTooBusy, new sessions "
                  "Bad_ServerTooBusy")
      ->check(CLI::Range(1u, 1'000'000u));
  run->add_option("--crypto-nice", plan.crypto_nice,
                  "the crypto workers' niceness, 0-19 (default 10: the connections' thread comes first)")
      ->check(CLI::Range(0, 19));
  run->add_option("--profile", plan.profile,
                  "default, or interop: what the cross-SDK interop tests expect (adds the user user1 / password)")
      ->check(CLI::IsMember({"default", "interop"}));
  run->add_option("--security", plan.security,
                  "what the endpoints offer: all (default: None and the RSA policies), none, secure (the RSA "
                  "policies), ecc (the ECC policies), or POLICY:MODE items, e.g. Basic256Sha256:SignAndEncrypt "
                  "(POLICY Basic256Sha256, Aes128_Sha256_RsaOaep, Aes256_Sha256_RsaPss, ECC_nistP256, ECC_nistP384, "
                  "ECC_brainpoolP256r1, ECC_brainpoolP384r1, ECC_curve25519, ECC_curve448; MODE Sign or SignAndEncrypt)")
      ->delimiter(',');
  run->add_option("--pki", plan.pki_dir,
                  "the certificate store: own/ (created on first start), trusted/, issuers/, rejected/ "
                  "(default $UACTOR_PKI, else ./pki)");
  run->add_option("--trust", plan.trust, "a client or user certificate file (DER or PEM) to trust; repeatable")
      ->check(CLI::ExistingFile);
  run->add_option("--users", plan.users_file, "a file of user:hash lines (uactor hash-password) for UserName logins")
      ->check(CLI::ExistingFile);
  run->add_option("--user", plan.users, "USER:PASSWORD, a UserName login (for tests; prefer --users); repeatable");
  bool no_anonymous = false;
  run->add_flag("--no-anonymous", no_anonymous, "refuse anonymous sessions");
  std::vector<std::string> nodesets;
  run->add_option("--nodeset", nodesets, "a NodeSet2 XML file to load at start-up; repeatable, in dependency order")
      ->check(CLI::ExistingFile);
  std::vector<std::string> mirrors;
  run->add_option("--mirror", mirrors,
                  "ENDPOINT,NODE[,NODE...]: mirror these variables of a remote server (SecurityPolicy None) under "
                  "Objects/Mirrors/mirrorN, their Writes forwarded (docs/gateway.md); repeatable");
  // Non-transparent redundancy (Part 4 §6.6.2, docs/configuration.md "Redundancy"), as [redundancy].
  std::string redundancy;
  run->add_option("--redundancy", redundancy,
                  "none, cold, warm or hot: this server is one of a redundant set (ServerRedundancy; "
                  "needs --redundant-server)")
      ->check(CLI::IsMember({"none", "cold", "warm", "hot"}));
  run->add_option("--redundant-server", plan.redundancy.server_uris,
                  "the ApplicationUri of a server of the redundant set, this one's included; repeatable");
  unsigned service_level = 255;
  run->add_option("--service-level", service_level, "the ServiceLevel at start (0-255, default 255)")
      ->check(CLI::Range(0u, 255u));
  unsigned shutdown_delay_ms = 1000;
  run->add_option("--shutdown-delay", shutdown_delay_ms,
                  "milliseconds between ServiceLevel 0 and the sessions' close on stop (default 1000 with --redundancy)")
      ->check(CLI::Range(0u, 60'000u));
  uactor::nodeset_options nodeset_options;
  run->add_flag("--nodeset-accept-older-models", nodeset_options.accept_older_models,
                "load a NodeSet whose RequiredModel is loaded in an older version (a warning, not an error)");

  uactor::app::add_client_commands(app);  // endpoints, read, write, browse, call, subscribe
  uactor::app::add_certs_commands(app);   // certs create|list|trust|reject
  uactor::config::add_config_commands(app);  // check-config, config default, hash-password

  // Our commands end with CLI::RuntimeError(their exit code); CLI11's own parse errors (an unknown
  // option, a value out of range) are usage errors: 2, as every command documents.
  try {
    app.parse(argc, argv);
  } catch (const CLI::RuntimeError& e) {
    return e.get_exit_code();
  } catch (const CLI::ParseError& e) {
    return app.exit(e) == 0 ? 0 : 2;
  }

  if (run->parsed()) {
    if (!host.empty()) {
      plan.host_name = host;
      in_addr a{};
      if (inet_pton(AF_INET, host.c_str(), &a) == 1) plan.listen_address = host;
    }
    plan.application_uri = "urn:" + plan.host_name + ":uactor:server";
    plan.writer_interval = std::chrono::milliseconds(writer_ms);
    plan.anonymous = !no_anonymous;
    if (!redundancy.empty()) plan.redundancy.support = *uactor::parse_redundancy_support(redundancy);
    plan.redundancy.service_level = static_cast<std::uint8_t>(service_level);
    plan.redundancy.shutdown_delay = std::chrono::milliseconds(shutdown_delay_ms);
    // The interop profile's login (Part 7 interop test cases; accepted over secured channels only).
    if (plan.profile == "interop") plan.users.push_back("user1:password");
    // --nodeset files after the file's [[nodesets]], in the order given (DI before Machinery).
    std::vector<uactor::config::nodeset_file> nodeset_files;
    for (const auto& f : nodesets) nodeset_files.push_back({f, nodeset_options});
    auto plant = uactor::config::plant_for_run(config_file, plan, *run, nodeset_files);
    if (plant && !uactor::config::add_cli_mirrors(*plant, mirrors)) return 2;
    const plant_source reread = [&] { return uactor::config::plant_for_run(config_file, plan, *run, nodeset_files, true); };
    return plant ? run_server(*plant, reread) : 2;
  }
  return 0;
}
