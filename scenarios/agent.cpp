#include "scenarios/agent.hpp"

#include <signal.h>
#include <unistd.h>

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <caf/openssl/all.hpp>

#include <condition_variable>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <mutex>
#include <thread>

#include <CLI/CLI.hpp>
#include <spdlog/sinks/stdout_color_sinks.h>
#include <spdlog/spdlog.h>

#include "scenarios/agent_protocol.hpp"
#include "scenarios/agent_wire.hpp"
#include "scenarios/driver.hpp"
#include "scenarios/floor.hpp"
#include "scenarios/opcua_driver.hpp"
#include "scenarios/sub_driver.hpp"

namespace uactor::scenarios {
namespace {

// Messages of the run's thread to the agent actor. A remote peer can send these atoms too, so each
// carries the run's token (64 random bits), and the actor takes only the current run's.
using ag_connected_atom = caf::atom_constant<caf::atom("ag_conn")>;
using ag_tick_atom = caf::atom_constant<caf::atom("ag_tick")>;

// How long the run waits at its gate (every session connected) for the start time before it
// gives up, and how long a running load goes on without a word from its coordinator.
constexpr auto start_wait_limit = std::chrono::seconds(60);
constexpr auto default_silence_limit = std::chrono::milliseconds(3000);
constexpr auto tick = std::chrono::milliseconds(250);

std::uint64_t random_token() {
  std::uint64_t t = 0;
  const auto n = random_nonce();
  std::memcpy(&t, n.data(), sizeof t);
  return t;
}

// The driver of a job's scenario, as load_main.cpp builds it for a run of one process.
std::unique_ptr<load_driver> make_driver(const agent_job& j, const load_options& lo, sub_load_driver*& sub,
                                         std::string& error) {
  if (j.scenario == "floor") {
    // tcp://HOST:PORT
    const auto colon = j.endpoint.rfind(':');
    if (!j.endpoint.starts_with("tcp://") || colon == std::string::npos || colon < 6) {
      error = "the floor's endpoint is not tcp://HOST:PORT: " + j.endpoint;
      return nullptr;
    }
    unsigned port = 0;
    try {
      port = static_cast<unsigned>(std::stoul(j.endpoint.substr(colon + 1)));
    } catch (const std::exception&) {
      error = "the floor's endpoint has no port: " + j.endpoint;
      return nullptr;
    }
    return make_floor_driver(lo, {j.request_bytes, j.response_bytes}, j.endpoint.substr(6, colon - 6), port);
  }
  if (j.scenario == "sub") {
    sub_options so;
    so.subs = j.subs;
    so.publishing_interval = std::chrono::milliseconds(j.publishing_ms);
    so.sampling_interval_ms = static_cast<double>(j.sampling_us) / 1000.0;
    so.per_item = j.per_item;
    so.variables = j.variables;
    so.queue_size = j.queue_size;
    so.first_item = j.first_item;
    auto d = make_sub_driver(lo, so, j.endpoint);
    sub = d.get();
    return d;
  }
  const auto kind = j.scenario == "read"    ? opcua_scenario::read
                    : j.scenario == "write" ? opcua_scenario::write
                                            : opcua_scenario::browse;
  return make_opcua_driver(kind, lo, j.endpoint, j.client_kind == "shared");
}

// One job on its own thread (the drivers block while they connect, and an actor must not).
// The actor starts it, gives it the start time or stops it; the thread tells the actor when every
// session is connected, sends the report, and says when its sessions are closed.
class agent_run {
public:
  agent_run(agent_job job, std::uint64_t token, caf::actor agent)
      : job_(std::move(job)), token_(token), agent_(std::move(agent)) {
    thread_ = std::thread([this] { main(); });
  }
  ~agent_run() {
    abort("the agent is shutting down");
    if (thread_.joinable()) thread_.join();
  }

  void start_at(std::int64_t system_ns) {
    std::lock_guard lock(mutex_);
    start_at_ = system_ns;
    changed_.notify_all();
  }
  void abort(const std::string& why) {
    std::lock_guard lock(mutex_);
    if (aborted_) return;
    aborted_ = true;
    why_ = why;
    changed_.notify_all();
  }
  // Between the start time and the window's end: the coordinator's silence counts only then
  // (before, the gate is bounded; after, the run ends by itself, and the sub scenario's check of
  // the last changes may take longer than the silence limit).
  bool loading() const {
    std::lock_guard lock(mutex_);
    return start_at_.has_value() && !window_over_;
  }
  std::uint64_t progress() const { return rec_.all(); }

private:
  // Waits until `deadline` or an abort; true when not aborted.
  bool wait_until(load_clock::time_point deadline) {
    std::unique_lock lock(mutex_);
    return !changed_.wait_until(lock, deadline, [this] { return aborted_; });
  }

  // The drivers' gate: every session is connected.
  bool ready() {
    caf::anon_send(agent_, ag_connected_atom::value, token_, std::string());
    connected_ = true;
    std::int64_t at = 0;
    {
      std::unique_lock lock(mutex_);
      if (!changed_.wait_for(lock, start_wait_limit, [this] { return aborted_ || start_at_.has_value(); })) {
        aborted_ = true;
        why_ = "no start time from the coordinator within 60 s";
      }
      if (aborted_) return false;
      at = *start_at_;
    }
    // The start time is on this machine's system clock (the coordinator corrected for the offset):
    // from here on the run keeps time with the steady clock.
    start_ = load_clock::now() + std::chrono::nanoseconds(at - system_now_ns());
    return wait_until(start_);
  }

  void main() {
    load_options lo;
    lo.sessions = job_.sessions;
    lo.inflight = job_.inflight;
    lo.nodes = job_.nodes;
    std::string pki_dir;
    if (job_.security_mode != 0) {
      pki_dir = "/tmp/uactor-agent-" + std::to_string(getpid()) + "-" + std::to_string(token_ % 1000000) + ".pki";
      if (auto e = write_pki(pki_dir); !e.empty()) return fail_to_connect(e, pki_dir);
      lo.security.mode =
          job_.security_mode == 1 ? ua::message_security_mode::sign : ua::message_security_mode::sign_and_encrypt;
      lo.security.policy = job_.policy;
      lo.security.pki_dir = pki_dir;
      lo.security.application_uri = job_.application_uri;
    }
    lo.ready_to_load = [this] { return ready(); };
    sub_load_driver* sub = nullptr;
    std::string error;
    auto driver = make_driver(job_, lo, sub, error);
    if (!driver) return fail_to_connect(error, pki_dir);
    error = driver->start(rec_);
    if (!connected_) {
      driver->stop();
      return fail_to_connect(error.empty() ? "the driver never connected" : error, pki_dir);
    }

    agent_report report;
    if (error.empty() && wait_until(start_ + std::chrono::nanoseconds(job_.warmup_ns))) {
      // The recorder's edges first: they are the window; the figures of the process follow.
      rec_.set_measuring(true);
      report.window_open_ns = system_now_ns();
      if (sub) sub->start_counting();
      const auto client_start = app::sample_process_stats();
      wait_until(start_ + std::chrono::nanoseconds(job_.warmup_ns + job_.duration_ns));
      rec_.set_measuring(false);
      {
        std::lock_guard lock(mutex_);
        window_over_ = true;
      }
      report.window_close_ns = system_now_ns();
      report.client = app::sample_process_stats() - client_start;
      if (sub && job_.variables) {
        const auto c = sub->finish_counting(std::chrono::milliseconds(job_.write_interval_ms));
        report.has_completeness = true;
        report.lost_changes = c.lost;
        report.repeated_changes = c.repeated;
        report.overflows = c.overflows;
        report.items_behind = c.behind;
      }
    }
    auto window = rec_.take();
    report.requests = window.ok;
    report.errors = window.errors;
    report.latency = window.latency;
    {
      std::lock_guard lock(mutex_);
      report.complete = !aborted_ && error.empty();
      report.failure = aborted_ ? why_ : error;
    }
    // The report first, so that collecting does not wait for the sessions to close.
    caf::anon_send(agent_, ag_report_atom::value, token_, encode(report));
    driver->stop();
    driver.reset();
    if (!pki_dir.empty()) std::filesystem::remove_all(pki_dir);
    caf::anon_send(agent_, ag_stopped_atom::value, token_);
  }

  void fail_to_connect(const std::string& error, const std::string& pki_dir) {
    if (!pki_dir.empty()) std::filesystem::remove_all(pki_dir);
    caf::anon_send(agent_, ag_connected_atom::value, token_, error.empty() ? std::string("failed") : error);
    caf::anon_send(agent_, ag_stopped_atom::value, token_);
  }

  // The client's PKI folder as the coordinator made it (paths checked by decode_job).
  std::string write_pki(const std::string& dir) {
    std::error_code ec;
    std::filesystem::remove_all(dir, ec);
    for (const auto& f : job_.pki) {
      const auto path = std::filesystem::path(dir) / f.path;
      std::filesystem::create_directories(path.parent_path(), ec);
      std::filesystem::permissions(dir, std::filesystem::perms::owner_all, ec);
      std::ofstream out(path, std::ios::binary);
      out << f.content;
      if (!out) return "cannot write " + path.string();
    }
    return {};
  }

  const agent_job job_;
  const std::uint64_t token_;
  const caf::actor agent_;
  recorder rec_;
  bool connected_ = false;  // the run's thread only
  load_clock::time_point start_;
  mutable std::mutex mutex_;
  std::condition_variable changed_;
  std::optional<std::int64_t> start_at_;
  bool aborted_ = false;
  bool window_over_ = false;
  std::string why_;
  std::thread thread_;
};

struct agent_state {
  agent_settings settings;
  // The handshake under way (one at a time: a new hello replaces it).
  caf::actor_addr pending_peer;
  std::string pending_coordinator_nonce;
  std::string pending_agent_nonce;
  // The authenticated coordinator and its run.
  caf::actor coordinator;
  load_clock::time_point last_contact;
  std::unique_ptr<agent_run> run;
  std::uint64_t token = 0;
  caf::response_promise prepared;
  bool reported = false;
  // The coordinator's run has ended: it may still poll (its polls cross our stopped message) and is
  // answered with the final count, but the next coordinator may take over.
  bool run_finished = false;
  std::uint64_t final_progress = 0;
  static inline const char* name = "uactor.agent";
};

using agent_actor = caf::stateful_actor<agent_state>;

caf::error refuse(const std::string& why) { return caf::make_error(caf::sec::runtime_error, why); }

std::string peer_name(agent_actor* self) {
  const auto sender = self->current_sender();
  return sender ? caf::to_string(sender->node()) : std::string("an anonymous sender");
}

// The coordinator is gone or silent: its load stops now.
void drop_coordinator(agent_actor* self, const std::string& why) {
  auto& st = self->state;
  if (!st.coordinator) return;
  spdlog::warn("agent: {}: stopping its load", why);
  self->demonitor(st.coordinator);
  st.coordinator = nullptr;
  if (st.run) st.run->abort(why);
  if (st.prepared.pending()) st.prepared.deliver(refuse(why));
}

// Only the authenticated coordinator may run commands; every such message counts as contact.
bool from_coordinator(agent_actor* self) {
  auto& st = self->state;
  if (!st.coordinator || self->current_sender() != caf::actor_cast<caf::strong_actor_ptr>(st.coordinator)) return false;
  st.last_contact = load_clock::now();
  return true;
}

caf::behavior agent_behavior(agent_actor* self, agent_settings settings) {
  if (settings.version.empty()) settings.version = agent_version();
  self->state.settings = std::move(settings);
  self->set_default_handler(caf::drop);
  self->set_down_handler([self](caf::down_msg& dm) {
    auto& st = self->state;
    if (!st.coordinator || dm.source != st.coordinator.address()) return;
    if (st.run_finished) {  // gone after its run, as it should
      st.coordinator = nullptr;
      st.run_finished = false;
      return;
    }
    drop_coordinator(self, "the coordinator was lost (" + self->system().render(dm.reason) + ")");
  });
  self->send(self, ag_tick_atom::value);
  return {
      [self](ag_hello_atom, const std::string& coordinator_nonce) -> caf::result<caf::message> {
        auto& st = self->state;
        if (coordinator_nonce.size() != agent_nonce_size) return refuse("hello: the nonce is not 32 bytes");
        if (st.coordinator && !st.run_finished &&
            self->current_sender() != caf::actor_cast<caf::strong_actor_ptr>(st.coordinator))
          return refuse("busy: this agent runs the load of another coordinator");
        st.pending_peer = caf::actor_cast<caf::actor_addr>(self->current_sender());
        st.pending_coordinator_nonce = coordinator_nonce;
        st.pending_agent_nonce = random_nonce();
        const auto proof = st.settings.secret
                               ? agent_proof(*st.settings.secret, coordinator_nonce, st.pending_agent_nonce)
                               : std::string();
        return caf::make_message(st.settings.version, st.pending_agent_nonce, proof, system_now_ns(),
                                 st.settings.secret.has_value());
      },
      [self](ag_auth_atom, const std::string& mac) -> caf::result<ag_ok_atom> {
        auto& st = self->state;
        const auto sender = caf::actor_cast<caf::actor_addr>(self->current_sender());
        if (!sender || sender != st.pending_peer) return refuse("auth: no hello from this sender first");
        const bool good = !st.settings.secret ||
                          same_proof(mac, coordinator_proof(*st.settings.secret, st.pending_agent_nonce,
                                                            st.pending_coordinator_nonce));
        st.pending_peer = nullptr;
        if (!good) {
          spdlog::warn("agent: refused the coordinator at {}: its proof of the shared secret is wrong", peer_name(self));
          return refuse("refused: wrong shared secret (--secret-file)");
        }
        if (st.coordinator && !st.run_finished) return refuse("busy: this agent runs the load of another coordinator");
        if (st.coordinator) self->demonitor(st.coordinator);  // the last run's coordinator, done
        st.coordinator = caf::actor_cast<caf::actor>(self->current_sender());
        st.run_finished = false;
        st.last_contact = load_clock::now();
        self->monitor(st.coordinator);
        spdlog::info("agent: coordinator at {} connected", peer_name(self));
        return ag_ok_atom::value;
      },
      [self](ag_clock_atom) -> caf::result<std::int64_t> {
        if (!from_coordinator(self)) return refuse("not authenticated: hello and auth first");
        return system_now_ns();
      },
      [self](ag_prep_atom, const std::string& blob) -> caf::result<ag_ok_atom> {
        auto& st = self->state;
        if (!from_coordinator(self)) return refuse("not authenticated: hello and auth first");
        if (st.run) return refuse("a run is already under way");
        if (st.run_finished) return refuse("one run per coordinator connection: connect again");
        std::string error;
        auto job = decode_job(blob, error);
        if (!job) {
          spdlog::warn("agent: refused a job: {}", error);
          return refuse(error);
        }
        spdlog::info("agent: {} x {} sessions against {}", job->scenario, job->sessions, job->endpoint);
        st.token = random_token();
        st.reported = false;
        st.prepared = self->make_response_promise();
        st.run = std::make_unique<agent_run>(std::move(*job), st.token, caf::actor_cast<caf::actor>(self));
        return st.prepared;
      },
      [self](ag_start_atom, std::int64_t at_ns) -> caf::result<ag_ok_atom> {
        auto& st = self->state;
        if (!from_coordinator(self)) return refuse("not authenticated: hello and auth first");
        if (!st.run) return refuse("no run prepared");
        st.run->start_at(at_ns);
        return ag_ok_atom::value;
      },
      [self](ag_prog_atom) -> caf::result<std::uint64_t> {
        if (!from_coordinator(self)) return refuse("not authenticated: hello and auth first");
        return self->state.run ? self->state.run->progress() : self->state.final_progress;
      },
      [self](ag_stop_atom) -> caf::result<ag_ok_atom> {
        if (!from_coordinator(self)) return refuse("not authenticated: hello and auth first");
        if (self->state.run) self->state.run->abort("the coordinator stopped the run");
        return ag_ok_atom::value;
      },
      // From the run's thread.
      [self](ag_connected_atom, std::uint64_t token, const std::string& error) {
        auto& st = self->state;
        if (!st.run || token != st.token || !st.prepared.pending()) return;
        if (error.empty()) st.prepared.deliver(ag_ok_atom::value);
        else st.prepared.deliver(refuse(error));
      },
      [self](ag_report_atom, std::uint64_t token, const std::string& report) {
        auto& st = self->state;
        if (!st.run || token != st.token) return;
        st.reported = true;
        if (st.coordinator) self->send(st.coordinator, ag_report_atom::value, report);
      },
      [self](ag_stopped_atom, std::uint64_t token) {
        auto& st = self->state;
        if (!st.run || token != st.token) return;
        st.final_progress = st.run->progress();
        st.run.reset();  // its thread has ended (this was its last message)
        spdlog::info("agent: run done (sessions closed), ready for the next coordinator");
        if (!st.coordinator) return;
        self->send(st.coordinator, ag_stopped_atom::value);
        // One run per coordinator connection: the next coordinator may come; until then this one's
        // polls, which may cross the message above, are still answered.
        st.run_finished = true;
      },
      [self](ag_tick_atom) {
        auto& st = self->state;
        // Silence counts only while the load runs: before the start the run's gate is bounded,
        // after the window the run ends by itself.
        if (st.coordinator && st.run && st.run->loading() && !st.reported &&
            load_clock::now() - st.last_contact > st.settings.silence_limit)
          drop_coordinator(self, "no word from the coordinator for " +
                                     std::to_string(st.settings.silence_limit.count()) + " ms");
        self->delayed_send(self, tick, ag_tick_atom::value);
      },
  };
}

}  // namespace

caf::actor spawn_agent(caf::actor_system& system, agent_settings settings) {
  return system.spawn(agent_behavior, std::move(settings));
}

int agent_main(int argc, char** argv) {
  CLI::App app{"uactor agent: a load agent for `uactor load --agents` (docs/distributed-load.md)"};
  std::string listen, secret_file, cert, key, cafile, version;
  unsigned silence_ms = static_cast<unsigned>(default_silence_limit.count());
  app.add_option("--listen", listen, "ADDR:PORT to publish the agent on (port 0: any; the line says which)")->required();
  app.add_option("--secret-file", secret_file,
                 "a file with a shared secret (16 bytes to 4 KiB): coordinators must prove they know it");
  app.add_option("--cert", cert, "TLS: this agent's certificate (PEM); needs --key and --cafile");
  app.add_option("--key", key, "TLS: the certificate's private key (PEM)");
  app.add_option("--cafile", cafile, "TLS: the CA certificates a coordinator's certificate must chain to");
  app.add_option("--silence-limit", silence_ms, "ms without a word from a running coordinator before its load stops")
      ->check(CLI::Range(500u, 600000u))
      ->capture_default_str();
  app.add_option("--report-version", version, "(tests) report this version instead of the program's")->group("");
  CLI11_PARSE(app, argc, argv);

  std::string host;
  std::uint16_t port = 0;
  if (!split_host_port(listen, host, port)) {
    std::fprintf(stderr, "uactor agent: --listen %s is not ADDR:PORT\n", listen.c_str());
    return 2;
  }
  agent_settings settings;
  settings.silence_limit = std::chrono::milliseconds(silence_ms);
  if (!version.empty()) settings.version = version;
  if (!secret_file.empty()) {
    std::string error;
    settings.secret = read_secret_file(secret_file, error);
    if (!settings.secret) {
      std::fprintf(stderr, "uactor agent: %s\n", error.c_str());
      return 2;
    }
  }
  const bool tls = !cert.empty() || !key.empty() || !cafile.empty();
  if (tls && (cert.empty() || key.empty() || cafile.empty())) {
    std::fprintf(stderr, "uactor agent: TLS needs all of --cert, --key and --cafile (CAF's openssl module checks "
                         "the peer only against a CA)\n");
    return 2;
  }
  for (const auto* f : {&cert, &key, &cafile})
    if (!f->empty() && access(f->c_str(), R_OK) != 0) {
      std::fprintf(stderr, "uactor agent: cannot read %s\n", f->c_str());
      return 2;
    }

  // stdout carries the one line that says where the agent listens; the log goes to stderr.
  spdlog::set_default_logger(spdlog::stderr_color_mt("agent"));

  // SIGINT and SIGTERM end the agent: blocked before any thread starts, so that sigwait sees them.
  sigset_t stop_signals;
  sigemptyset(&stop_signals);
  sigaddset(&stop_signals, SIGINT);
  sigaddset(&stop_signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &stop_signals, nullptr);

  caf::actor_system_config cfg;
  cfg.load<caf::io::middleman>();
  if (tls) {
    cfg.load<caf::openssl::manager>();
    cfg.openssl_certificate = cert;
    cfg.openssl_key = key;
    cfg.openssl_cafile = cafile;
  }
  cfg.set("scheduler.max-threads", 1);  // a control plane: the load runs on the drivers' own systems
  cfg.set("logger.verbosity", caf::atom("quiet"));
  caf::actor_system system(cfg);
  auto agent = spawn_agent(system, std::move(settings));
  auto bound = tls ? caf::openssl::publish(agent, port, host.c_str(), true)
                   : system.middleman().publish(agent, port, host.c_str(), true);
  if (!bound) {
    std::fprintf(stderr, "uactor agent: cannot listen on %s: %s\n", listen.c_str(), system.render(bound.error()).c_str());
    caf::anon_send_exit(agent, caf::exit_reason::user_shutdown);
    return 1;
  }
  std::printf("agent listening on %s:%u (%s, %s, %s)\n", host.c_str(), static_cast<unsigned>(*bound),
              agent_version().c_str(), tls ? "TLS" : "no TLS", secret_file.empty() ? "no secret" : "shared secret");
  std::fflush(stdout);
  int sig = 0;
  sigwait(&stop_signals, &sig);
  spdlog::info("agent: signal {}: stopping", sig);
  caf::anon_send_exit(agent, caf::exit_reason::user_shutdown);
  return 0;
}

}  // namespace uactor::scenarios
