// uactor-load: the load harness (docs/performance.md). Starts the server under load as a child process (our
// `uactor run`, or the floor's echo server), or targets --endpoint; drives closed-loop load from
// this process, which is the measured client; warms up, then measures a window, asking the child
// for its figures (SIGUSR1) at both edges so that the server's figures are exactly the window's.
// `uactor load ...` runs this program (cli/main.cpp).
#include <signal.h>
#include <unistd.h>

#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <optional>
#include <sstream>
#include <thread>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "runtime/process_stats.hpp"
#include "scenarios/agent.hpp"
#include "scenarios/child_process.hpp"
#include "scenarios/coordinator.hpp"
#include "scenarios/fault_injector.hpp"
#include "scenarios/fault_plan.hpp"
#include "scenarios/fault_proxy.hpp"
#include "scenarios/floor.hpp"
#include "scenarios/load_security.hpp"
#include "scenarios/opcua_driver.hpp"
#include "scenarios/requests.hpp"
#include "scenarios/result.hpp"
#include "scenarios/sessions_driver.hpp"
#include "scenarios/sub_driver.hpp"

using namespace uactor;
using namespace uactor::scenarios;

namespace {

struct cli {
  std::string scenario = "read";
  load_options load;
  std::string security = "none";
  std::string policy = "Basic256Sha256";
  std::string client = "classic";
  unsigned subs = 5;
  unsigned pub_ms = 100;
  unsigned write_interval_ms = 100;
  std::size_t variables = 0;  // sub: monitor the child's load variables instead of the Counter
  unsigned queue_size = 0;    // sub: 0 = 1 on the Counter, 2 on the load variables
  std::string callback = "fast";
  double sampling_ms = 0;
  double duration_s = 20;
  double warmup_s = 10;
  std::string endpoint;
  // The address the child `uactor run` listens on, and the host of the URL the sessions get: with
  // --agents on other machines, an address of this machine that they reach.
  std::string child_host = "127.0.0.1";
  std::string transport = "tcp";  // wss: the child serves opc.wss too and the load goes there (docs/wss.md)
  std::string out;
  bool json = false;
  bool syscalls = false;
  std::vector<std::string> server_args;  // passed on to `uactor run`
  // The floor's echo server (the child of --scenario floor).
  bool serve_floor = false;
  std::size_t request_size = 0;
  std::size_t response_size = 0;
  // Distributed (--agents): the coordinator's side of docs/distributed-load.md.
  coordinator_options distributed;
  // sub --faults (docs/decisions/0042): the plan as given.
  std::string faults;
};

// Sleeps `seconds`, showing the progress line when stderr is a terminal.
void run_phase(const char* phase, double seconds, const recorder& rec) {
  const bool tty = isatty(STDERR_FILENO) == 1;
  const auto start = load_clock::now();
  const auto end = start + std::chrono::duration_cast<load_clock::duration>(std::chrono::duration<double>(seconds));
  const auto first = rec.all();
  while (load_clock::now() < end) {
    std::this_thread::sleep_until(std::min(end, load_clock::now() + std::chrono::milliseconds(500)));
    if (!tty) continue;
    const double elapsed = std::chrono::duration<double>(load_clock::now() - start).count();
    const double rate = elapsed > 0 ? static_cast<double>(rec.all() - first) / elapsed : 0;
    std::fprintf(stderr, "\r\033[K%s %5.1f / %.1f s  %10.0f requests/s", phase, elapsed, seconds, rate);
    std::fflush(stderr);
  }
  if (tty) std::fprintf(stderr, "\r\033[K");
}

std::optional<app::process_stats> child_stats(child_process& child) {
  if (!child.signal(SIGUSR1)) return std::nullopt;
  auto line = child.wait_line("stats ", std::chrono::seconds(10));
  if (!line) return std::nullopt;
  return app::parse_line(*line);
}

// strace -c -f attached to the server (system calls per request, one of the load harness's goals).
// Returns once strace says it attached, so that the window starts with it counting.
std::unique_ptr<child_process> start_strace(pid_t server, const std::string& out, const std::string& log_path) {
  std::string path;
  for (const char* dir : {"/usr/bin/", "/bin/", "/usr/local/bin/"})
    if (access((std::string(dir) + "strace").c_str(), X_OK) == 0) path = std::string(dir) + "strace";
  if (path.empty()) {
    std::fprintf(stderr, "uactor-load: --syscalls needs strace\n");
    return nullptr;
  }
  const auto log = log_path + ".strace-stderr";
  std::string error;
  auto s = child_process::start({path, "-c", "-f", "-p", std::to_string(server), "-o", out}, log, error);
  if (!s) return nullptr;
  // strace reports each attached thread on its stderr (the log file): wait for the first.
  for (int i = 0; i < 500; ++i) {
    std::ifstream f(log);
    std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
    if (text.find("attached") != std::string::npos) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return s;
}

// Detaches strace (SIGINT) and reads the calls of its summary's `total` line.
std::optional<std::uint64_t> stop_strace(child_process& s, const std::string& out) {
  s.stop(std::chrono::seconds(10), SIGINT);  // strace detaches and writes its summary
  std::ifstream f(out);
  std::string line, last;
  while (std::getline(f, line))
    if (line.ends_with(" total")) last = line;
  // % time, seconds, usecs/call, calls, [errors,] total
  std::istringstream fields(last);
  std::string pct, secs, per_call;
  std::uint64_t calls = 0;
  if (!(fields >> pct >> secs >> per_call >> calls)) return std::nullopt;
  return calls;
}

std::string fmt_sub(const cli& o) {
  const std::string on = o.variables ? std::to_string(o.variables) + " distinct load variables ns=1;s=Load.V<i>"
                                     : std::string(subscribed_node);
  return std::to_string(o.subs) + " subscriptions per session of " + std::to_string(o.load.nodes) + " items on " + on +
         ", publishing " + std::to_string(o.pub_ms) + " ms, sampling " + std::to_string(static_cast<int>(o.sampling_ms)) +
         " ms, queue " + std::to_string(o.queue_size) + ", writer " + std::to_string(o.write_interval_ms) +
         " ms, callback " + o.callback + "; latency: SourceTimestamp to callback";
}

// This run's scenario as the agents' job (the coordinator splits the sessions).
agent_job distributed_job(const cli& o, const std::string& url, const load_result& result,
                          const std::optional<load_security>& secured, std::string& error) {
  agent_job j;
  j.scenario = o.scenario;
  j.client_kind = o.client;
  j.sessions = static_cast<std::uint32_t>(o.load.sessions);
  j.inflight = static_cast<std::uint32_t>(o.load.inflight);
  j.nodes = static_cast<std::uint32_t>(o.load.nodes);
  j.endpoint = url;
  j.subs = o.subs;
  j.publishing_ms = o.pub_ms;
  j.sampling_us = static_cast<std::uint64_t>(o.sampling_ms * 1000);
  j.per_item = o.callback == "item";
  j.variables = o.variables;
  j.queue_size = o.queue_size;
  j.write_interval_ms = o.write_interval_ms;
  j.request_bytes = result.request_bytes;
  j.response_bytes = result.response_bytes;
  if (secured) {
    j.security_mode = o.security == "sign" ? 1 : 2;
    j.policy = o.policy;
    j.application_uri = secured->client.application_uri;
    error = collect_pki_files(secured->client.pki_dir, j.pki);
  }
  j.warmup_ns = static_cast<std::int64_t>(o.warmup_s * 1e9);
  j.duration_ns = static_cast<std::int64_t>(o.duration_s * 1e9);
  return j;
}

int not_yet(const std::string& what) {
  std::fprintf(stderr, "uactor-load: not yet: %s\n", what.c_str());
  return 2;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc >= 2 && std::string_view(argv[1]) == "agent") return agent_main(argc - 1, argv + 1);
  CLI::App app{"uactor-load: closed-loop load against our server in a child process (or --endpoint), "
               "both sides measured per request"};
  cli o;
  app.add_option("--scenario", o.scenario, "what each request does")
      ->check(CLI::IsMember({"read", "write", "browse", "sub", "floor", "sessions", "storm"}))
      ->capture_default_str();
  app.add_option("--sessions", o.load.sessions, "concurrent sessions (floor: connections)")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  app.add_option("--nodes", o.load.nodes, "values per Read/Write, nodes per Browse, monitored items per subscription")
      ->check(CLI::Range(1, 10000))
      ->capture_default_str();
  app.add_option("--inflight", o.load.inflight, "requests outstanding per session (closed loop)")
      ->check(CLI::Range(1, 1000))
      ->capture_default_str();
  app.add_option("--policy", o.policy, "the security policy of --security sign|encrypt")
      ->check(CLI::IsMember({"Basic256Sha256", "Aes128_Sha256_RsaOaep", "Aes256_Sha256_RsaPss", "ECC_nistP256",
                             "ECC_nistP384", "ECC_brainpoolP256r1", "ECC_brainpoolP384r1", "ECC_curve25519",
                             "ECC_curve448"}))
      ->capture_default_str();
  app.add_option("--security", o.security, "none | sign | encrypt: the channel's MessageSecurityMode")
      ->check(CLI::IsMember({"none", "sign", "encrypt"}))
      ->capture_default_str();
  app.add_option("--client", o.client, "classic: a connection per session; shared: all sessions over one channel")
      ->check(CLI::IsMember({"classic", "shared"}))
      ->capture_default_str();
  app.add_option("--subs", o.subs, "subscriptions per session (sub scenario)")->capture_default_str();
  app.add_option("--pub", o.pub_ms, "publishing interval, ms (sub scenario)")->capture_default_str();
  app.add_option("--write-interval", o.write_interval_ms, "ms between the child server's demo writer changes")
      ->capture_default_str();
  app.add_option("--variables", o.variables,
                 "sub: the child serves N load variables (uactor run --load-variables N), all changed every "
                 "--write-interval; item g monitors Load.V<g mod N>, and every change must arrive (lost changes)")
      ->check(CLI::Range(0, 1'000'000));
  app.add_option("--queue-size", o.queue_size,
                 "sub: the items' queue size (0: 1 on the Counter, 2 on the load variables, so that two writer "
                 "changes in one publishing cycle, as the two clocks drift, both arrive)")
      ->check(CLI::Range(0, 1000));
  app.add_option("--callback", o.callback, "fast | item (sub scenario)")
      ->check(CLI::IsMember({"fast", "item"}))
      ->capture_default_str();
  app.add_option("--sampling", o.sampling_ms, "sampling interval of the monitored items, ms (sub scenario; 0: on change)")
      ->capture_default_str();
  app.add_option("--duration", o.duration_s, "measurement window, s")->check(CLI::PositiveNumber)->capture_default_str();
  app.add_option("--warmup", o.warmup_s, "warm-up before the window, s")->check(CLI::NonNegativeNumber)->capture_default_str();
  app.add_option("--endpoint", o.endpoint, "load this server instead of a child (then only client-side figures)");
  app.add_option("--transport", o.transport,
                 "tcp: the child's opc.tcp endpoint; wss: its opc.wss endpoint (`uactor run --wss-port 0`; the "
                 "child's TLS certificate is accepted as it is)")
      ->check(CLI::IsMember({"tcp", "wss"}))
      ->capture_default_str();
  app.add_option("--child-host", o.child_host,
                 "the address the child server listens on and the sessions connect to (default 127.0.0.1; "
                 "with --agents on other machines, an address of this machine that they reach)");
  app.add_option("--out", o.out, "append the result block (with --json: the JSON line) to FILE");
  app.add_flag("--json", o.json, "print the result as one line of JSON");
  app.add_flag("--syscalls", o.syscalls,
               "count the child server's system calls in the window with strace -c -f (ptrace slows the server: "
               "read the other figures of such a run with care)");
  app.add_option("--server-arg", o.server_args,
                 "one more argument for the child `uactor run` (repeatable), e.g. --server-arg=--session-host "
                 "--server-arg=scheduler")
      ->allow_extra_args(false);
  app.add_option("--faults", o.faults,
                 "sub: supervised clients through a fault-injecting proxy: cut:EVERY[:rst|fin][:client|server|both] "
                 "and/or stall:T[:EVERY], comma-separated (e.g. cut:2s,stall:3s); reports faults, lost notifications, "
                 "duplicates, recovery p50/p99/max and failed requests (docs/load-faults.md)");
  app.add_option("--agents", o.distributed.agents,
                 "HOST:PORT,...: split the sessions over these `uactor agent`s (docs/distributed-load.md)")
      ->delimiter(',');
  app.add_option("--agent-secret-file", o.distributed.secret_file, "--agents: the agents' shared secret");
  app.add_option("--agent-cert", o.distributed.cert, "--agents over TLS: this coordinator's certificate (PEM)");
  app.add_option("--agent-key", o.distributed.key, "--agents over TLS: its private key (PEM)");
  app.add_option("--agent-cafile", o.distributed.cafile, "--agents over TLS: the CA the agents' certificates chain to");
  session_scenario_options many;  // --scenario sessions | storm (scenarios/sessions_driver.hpp)
  app.add_option("--rate", many.rate,
                 "sessions: new sessions/s while ramping (0: as fast as --connectors go); storm: newcomers/s")
      ->check(CLI::NonNegativeNumber);
  app.add_option("--connectors", many.connectors, "sessions, storm: threads opening sessions at once")
      ->check(CLI::Range(1, 256))
      ->capture_default_str();
  app.add_option("--read-interval", many.read_interval_s, "sessions: each session reads a value every S seconds (0: no Reads)")
      ->check(CLI::NonNegativeNumber);
  auto* serve = app.add_flag("--serve-floor", o.serve_floor, "(internal) be the floor's echo server");
  app.add_option("--request-size", o.request_size, "(internal, --serve-floor) bytes per request")->needs(serve);
  app.add_option("--response-size", o.response_size, "(internal, --serve-floor) bytes per response")->needs(serve);
  CLI11_PARSE(app, argc, argv);

  if (o.serve_floor) return serve_floor({o.request_size, o.response_size});
  // The result goes to stdout (one JSON line with --json): the clients' log lines (a supervised
  // client's losses and reconnects, with --faults) go to stderr.
  spdlog::set_default_logger(spdlog::stderr_color_mt("uactor-load"));
  fault_plan faults;
  if (app.count("--faults")) {
    if (auto error = parse_faults(o.faults, faults); !error.empty()) {
      std::fprintf(stderr, "uactor-load: --faults %s\n", error.c_str());
      return 2;
    }
    if (o.scenario != "sub") return not_yet("--faults outside --scenario sub");
  }
  if (o.scenario == "sessions" || o.scenario == "storm") {
    if (!o.endpoint.empty()) return not_yet("--scenario " + o.scenario + " with --endpoint");
    if (!o.distributed.agents.empty()) return not_yet("--scenario " + o.scenario + " with --agents");
    many.scenario = o.scenario;
    many.sessions = o.load.sessions;
    many.inflight = o.load.inflight;
    many.nodes = app.count("--nodes") ? o.load.nodes : 1;
    many.security = app.count("--security") ? o.security : (o.scenario == "sessions" ? "encrypt" : "none");
    many.policy = o.policy;
    many.duration_s = o.duration_s;
    many.warmup_s = app.count("--warmup") ? o.warmup_s : 2;
    many.server_args = o.server_args;
    many.json = o.json;
    many.out = o.out;
    if (o.scenario == "storm" && !app.count("--rate")) many.rate = 100;
    return run_session_scenario(many, own_directory());
  }

  if (app.count("--child-host") && !o.endpoint.empty()) return not_yet("--child-host with --endpoint (there is no child)");
  if (app.count("--child-host") && o.scenario == "floor")
    return not_yet("--child-host with --scenario floor (its echo server listens on 127.0.0.1)");
  if (o.security != "none" && o.scenario == "floor") return not_yet("--security with --scenario floor");
  // Secured: both certificate stores made and trusting each other before the child starts.
  std::optional<load_security> secured;
  if (o.security != "none") {
    if (!o.endpoint.empty()) return not_yet("--security with --endpoint (the certificates are set up for our child)");
    auto s = prepare_load_security(o.security, o.policy, o.child_host);
    if (!s) {
      std::fprintf(stderr, "uactor-load: --security %s --policy %s: %s\n", o.security.c_str(), o.policy.c_str(),
                   s.error().to_string().c_str());
      return 2;
    }
    secured = std::move(*s);
    o.load.security = secured->client;
    o.server_args.insert(o.server_args.end(), secured->server_args.begin(), secured->server_args.end());
  }
  if (o.client == "shared" && (o.scenario == "sub" || o.scenario == "floor"))
    return not_yet("--client shared with --scenario " + o.scenario + " (read, write and browse only)");
  if (o.scenario == "floor" && !o.endpoint.empty())
    return not_yet("--scenario floor with --endpoint: the floor runs its own echo server");

  if (o.variables && o.scenario != "sub") return not_yet("--variables outside --scenario sub");
  if (o.variables && !o.endpoint.empty()) return not_yet("--variables with --endpoint (the load variables are our child's)");
  if (!faults.empty()) {
    if (!o.distributed.agents.empty())
      return not_yet("--faults with --agents (the proxy and the lost-notification count are this process's; run "
                     "--faults without --agents)");
    if (!o.endpoint.empty()) return not_yet("--faults with --endpoint (the lost-notification count needs our child's load variables)");
    if (o.child_host != "127.0.0.1") return not_yet("--faults with --child-host (the proxy forwards to 127.0.0.1)");
    // Every change of every item is checked: one load variable per item unless told otherwise, and
    // queues long enough for an outage (1,000 changes per item: 10 s at --write-interval 10).
    if (!o.variables) o.variables = o.load.sessions * o.subs * o.load.nodes;
    if (o.queue_size == 0) o.queue_size = 1000;
  }
  if (o.queue_size == 0) o.queue_size = o.variables ? 2 : 1;

  // The agents, before anything starts: an unreachable one or another version ends the run here.
  std::unique_ptr<coordinator> agents;
  if (!o.distributed.agents.empty()) {
    if (o.syscalls) return not_yet("--syscalls with --agents");
    if (!agent_runs_scenario(o.scenario)) return not_yet("--scenario " + o.scenario + " with --agents");
    o.distributed.json = o.json;
    o.distributed.out = o.out;
    agents = std::make_unique<coordinator>(o.distributed);
    if (auto error = agents->connect(); !error.empty()) {
      std::fprintf(stderr, "uactor-load: %s\n", error.c_str());
      if (secured) std::filesystem::remove_all(secured->folder);
      return 1;
    }
  }

  load_result result;
  result.scenario = o.scenario;
  result.sessions = o.load.sessions;
  result.inflight = o.load.inflight;
  result.nodes = o.load.nodes;
  result.client_kind = o.client;
  result.security = o.security == "none" ? o.security : o.security + " " + o.policy;
  result.warmup_s = o.warmup_s;
  if (o.scenario == "sub") {
    result.unit = "notification";
    result.items = fmt_sub(o);
  } else if (o.scenario == "browse") {
    result.items = std::string(browse_node) + ", the same node each item";
  } else if (o.scenario == "floor") {
    result.items = "raw TCP, the byte sizes of a Read of that many values";
  } else {
    result.items = std::string(value_node) + ", the same node each item";
  }
  if (o.scenario == "floor" || o.scenario == "read") {
    const auto sizes = read_wire_sizes(o.load.nodes);
    result.request_bytes = sizes.request;
    result.response_bytes = sizes.response;
  }

  // The child: our server, or the floor's echo server (this program).
  std::unique_ptr<child_process> child;
  std::string url = o.endpoint;
  const auto dir = own_directory();
  const auto child_log = "/tmp/uactor-load-" + std::to_string(getpid()) + ".child.log";
  if (o.endpoint.empty()) {
    std::vector<std::string> argv_child;
    if (o.scenario == "floor") {
      argv_child = {dir + "uactor-load", "--serve-floor", "--request-size", std::to_string(result.request_bytes),
                    "--response-size", std::to_string(result.response_bytes)};
    } else {
      argv_child = {dir + "uactor", "run", "--host", o.child_host, "--port", "0", "--writer-interval",
                    std::to_string(o.write_interval_ms)};
      if (o.variables) {
        argv_child.push_back("--load-variables");
        argv_child.push_back(std::to_string(o.variables));
      }
      if (o.transport == "wss") argv_child.insert(argv_child.end(), {"--wss-port", "0"});
      argv_child.insert(argv_child.end(), o.server_args.begin(), o.server_args.end());
    }
    std::string error;
    child = child_process::start(argv_child, child_log, error);
    if (!child) {
      std::fprintf(stderr, "uactor-load: cannot start %s: %s\n", argv_child[0].c_str(), error.c_str());
      return 1;
    }
    auto listening = child->wait_line("listening on ", std::chrono::seconds(30));
    if (!listening) {
      std::fprintf(stderr, "uactor-load: %s did not say 'listening on' (its stderr: %s)\n", argv_child[0].c_str(),
                   child_log.c_str());
      return 1;
    }
    url = *listening;
    if (o.transport == "wss" && o.scenario != "floor") {  // opc.wss's line follows opc.tcp's
      listening = child->wait_line("listening on ", std::chrono::seconds(30));
      if (!listening || !listening->starts_with("opc.wss://")) {
        std::fprintf(stderr, "uactor-load: %s did not say 'listening on opc.wss://...' (its stderr: %s)\n",
                     argv_child[0].c_str(), child_log.c_str());
        return 1;
      }
      url = *listening;
    }
    std::string extra;
    for (const auto& a : o.server_args) extra += " " + a;
    result.target = "child `" + argv_child[0] + (o.scenario == "floor" ? " --serve-floor` " : " run" + extra + "` ") +
                    url + " (pid " + std::to_string(child->pid()) + ")";
  } else {
    result.target = o.endpoint + " (not our child: client-side figures only)";
  }

  if (agents) {
    std::string error;
    const auto job = distributed_job(o, url, result, secured, error);
    int rc = 1;
    if (!error.empty()) std::fprintf(stderr, "uactor-load: %s\n", error.c_str());
    else rc = agents->run(job, result, child ? std::function([&] { return child_stats(*child); })
                                             : std::function<std::optional<app::process_stats>()>());
    agents.reset();
    if (child) child->stop();
    if (secured) std::filesystem::remove_all(secured->folder);
    if (rc != 0 && child) std::fprintf(stderr, "uactor-load: the child's stderr: %s\n", child_log.c_str());
    if (rc == 0) unlink(child_log.c_str());
    return rc;
  }

  // --faults: the sessions connect to the proxy, which forwards to the child.
  std::unique_ptr<fault_proxy> proxy;
  if (!faults.empty()) {
    const auto colon = url.rfind(':');
    proxy = std::make_unique<fault_proxy>(static_cast<std::uint16_t>(std::stoul(url.substr(colon + 1))));
    result.target += " through the fault proxy " + proxy->url();
    url = proxy->url();
  }

  std::unique_ptr<load_driver> driver;
  sub_load_driver* sub_driver = nullptr;  // the sub scenario's completeness check
  if (o.scenario == "floor") {
    // tcp://127.0.0.1:PORT
    const auto colon = url.rfind(':');
    const auto host = url.substr(6, colon - 6);
    driver = make_floor_driver(o.load, {result.request_bytes, result.response_bytes}, host,
                               static_cast<unsigned>(std::stoul(url.substr(colon + 1))));
  } else if (o.scenario == "sub") {
    sub_options so;
    so.subs = o.subs;
    so.publishing_interval = std::chrono::milliseconds(o.pub_ms);
    so.sampling_interval_ms = o.sampling_ms;
    so.per_item = o.callback == "item";
    so.variables = o.variables;
    so.queue_size = o.queue_size;
    so.supervised = !faults.empty();
    auto d = make_sub_driver(o.load, so, url);
    sub_driver = d.get();
    driver = std::move(d);
  } else {
    const auto kind = o.scenario == "read"    ? opcua_scenario::read
                      : o.scenario == "write" ? opcua_scenario::write
                                              : opcua_scenario::browse;
    driver = make_opcua_driver(kind, o.load, url, o.client == "shared");
  }

  recorder rec;
  if (auto error = driver->start(rec); !error.empty()) {
    std::fprintf(stderr, "uactor-load: %s\n", error.c_str());
    return 1;
  }
  run_phase("warm-up  ", o.warmup_s, rec);

  // The window: the server's edge first at the start and last at the end, so that its window
  // holds the client's.
  std::unique_ptr<child_process> strace;
  const auto strace_out = "/tmp/uactor-load-" + std::to_string(getpid()) + ".strace";
  if (o.syscalls && child) strace = start_strace(child->pid(), strace_out, child_log);
  std::optional<app::process_stats> server_start;
  if (child) server_start = child_stats(*child);
  const auto client_start = app::sample_process_stats();
  const auto t0 = load_clock::now();
  rec.set_measuring(true);
  if (sub_driver) sub_driver->start_counting();
  std::unique_ptr<fault_injector> injector;
  if (proxy) {
    injector = std::make_unique<fault_injector>(*proxy, faults, *sub_driver->tracker());
    injector->start();
  }
  run_phase("measuring", o.duration_s, rec);
  rec.set_measuring(false);
  const auto t1 = load_clock::now();
  const auto client_end = app::sample_process_stats();
  std::optional<app::process_stats> server_end;
  if (child) server_end = child_stats(*child);
  if (strace) result.server_syscalls = stop_strace(*strace, strace_out);
  if (injector) {
    // No new fault; the one under way is recovered from (bounded) before the count closes.
    injector->stop();
    load_result::fault_figures f;
    f.plan = describe(faults);
    f.cuts = injector->injected().cuts;
    f.stalls = injector->injected().stalls;
    const auto t = sub_driver->tracker()->take();
    for (const auto& ns : t.samples) f.recovery_ms.push_back(std::chrono::duration<double, std::milli>(ns).count());
    f.unrecovered = t.unrecovered;
    f.losses = t.losses;
    f.reconnects = t.reconnects;
    const auto req = sub_driver->requests();
    f.requests_sent = req.sent;
    f.requests_failed = req.failed;
    f.requests_connection_closed = req.connection_closed;
    f.data_lost_events = req.data_lost_events;
    result.faults = std::move(f);
  }
  if (sub_driver && o.variables) {
    // After the figures: the grace time for the window's last changes is not measured.
    const auto c = sub_driver->finish_counting(std::chrono::milliseconds(o.write_interval_ms));
    result.lost_changes = c.lost;
    result.repeated_changes = c.repeated;
    result.overflows = c.overflows;
    result.items_behind = c.behind;
  }

  driver->stop();
  proxy.reset();
  if (child) child->stop();
  if (secured) std::filesystem::remove_all(secured->folder);

  auto window = rec.take();
  result.window_s = std::chrono::duration<double>(t1 - t0).count();
  result.requests = window.ok;
  result.errors = window.errors;
  result.latency = window.latency;
  result.client = client_end - client_start;
  if (server_start && server_end) result.server = *server_end - *server_start;
  else if (child) std::fprintf(stderr, "uactor-load: the child did not report its figures (stats line)\n");

  const auto text = o.json ? to_json(result) + "\n" : to_text(result);
  std::fputs(text.c_str(), stdout);
  std::fflush(stdout);
  if (!o.out.empty()) {
    std::ofstream f(o.out, std::ios::app);
    f << text;
    if (!o.json) f << '\n';
  }
  if (result.server_syscalls && !o.json) std::printf("  (strace's table of the window: %s)\n", strace_out.c_str());
  // A run that measured nothing, saw errors, or lost the server's figures is not a result;
  // a good one leaves no log of its children behind.
  // Asked for faults and none fell in the window: not a result of faults.
  const bool no_faults = result.faults && result.faults->cuts + result.faults->stalls == 0;
  if (no_faults)
    std::fprintf(stderr, "uactor-load: --faults %s: no fault fell in the %.1f s window (the first of each kind is due "
                 "one period after the window opens)\n", result.faults->plan.c_str(), result.window_s);
  const bool incomplete = no_faults ||
      (result.lost_changes && (*result.lost_changes > 0 || result.repeated_changes > 0 || result.overflows > 0)) ||
      (result.faults && (result.faults->unrecovered > 0 || result.faults->data_lost_events > 0));
  if (result.requests == 0 || result.errors > 0 || (child && !result.server) || incomplete) {
    if (child) std::fprintf(stderr, "uactor-load: the child's stderr: %s\n", child_log.c_str());
    return 1;
  }
  unlink(child_log.c_str());
  unlink((child_log + ".strace-stderr").c_str());
  return 0;
}
