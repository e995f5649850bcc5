#include "scenarios/coordinator.hpp"

#include <unistd.h>

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <caf/openssl/all.hpp>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <iterator>
#include <fstream>
#include <thread>

#include <fmt/format.h>

#include "scenarios/agent_protocol.hpp"
#include "scenarios/driver.hpp"

namespace uactor::scenarios {
namespace {

using namespace std::chrono_literals;

// Bounds of the coordinator's waits (docs/distributed-load.md, "Failure").
constexpr auto answer_limit = 5s;         // hello, auth, clock, start, stop
constexpr auto prepare_limit = 120s;      // every session of a share connected
constexpr auto progress_every = 500ms;    // the progress line, and the agents' sign of life
constexpr auto progress_limit = 2s;       // an agent that does not answer a progress poll is lost
constexpr auto report_limit = 10s;        // after the window (plus the sub scenario's grace)
constexpr auto stopped_limit = 30s;       // sessions closed

std::string why(caf::actor_system& sys, const caf::error& e) {
  if (e.context().match_elements<std::string>()) return e.context().get_as<std::string>(0);
  return sys.render(e);
}

double ms(std::int64_t ns) { return static_cast<double>(ns) / 1e6; }
double seconds(load_clock::duration d) { return std::chrono::duration<double>(d).count(); }

std::string json_string(const std::string& s) {
  std::string out = "\"";
  for (char c : s) {
    if (c == '"' || c == '\\') out += '\\';
    if (static_cast<unsigned char>(c) < 0x20) {
      out += fmt::format("\\u{:04x}", static_cast<unsigned>(c));
      continue;
    }
    out += c;
  }
  return out + "\"";
}

app::process_stats sum(const app::process_stats& a, const app::process_stats& b) {
  app::process_stats s;
  s.cpu_user_us = a.cpu_user_us + b.cpu_user_us;
  s.cpu_system_us = a.cpu_system_us + b.cpu_system_us;
  s.voluntary_switches = a.voluntary_switches + b.voluntary_switches;
  s.involuntary_switches = a.involuntary_switches + b.involuntary_switches;
  s.peak_rss_kb = a.peak_rss_kb + b.peak_rss_kb;  // the client side's memory, every process
  s.allocations_counted = a.allocations_counted && b.allocations_counted;
  s.allocations = a.allocations + b.allocations;
  s.allocated_bytes = a.allocated_bytes + b.allocated_bytes;
  return s;
}

struct agent_link {
  std::string name;  // HOST:PORT as given
  caf::actor handle;
  std::int64_t offset_ns = 0;  // the agent's system clock minus ours
  std::int64_t rtt_ns = 0;
  std::uint32_t sessions = 0;
  std::uint64_t progress = 0;
  bool prepared = false;
  bool lost = false;
  std::string lost_why;
  std::optional<agent_report> report;
  load_clock::time_point reported_at;
  bool stopped = false;
  bool live() const { return !lost && !stopped; }
};

}  // namespace

std::string collect_pki_files(const std::string& dir, std::vector<pki_file>& out) {
  std::error_code ec;
  for (auto it = std::filesystem::recursive_directory_iterator(dir, ec); !ec && it != std::filesystem::end(it);
       it.increment(ec)) {
    if (!it->is_regular_file()) continue;
    if (out.size() == max_pki_files) return "more than " + std::to_string(max_pki_files) + " files in " + dir;
    if (it->file_size() > max_pki_file_bytes) return it->path().string() + " is larger than the agents take";
    std::ifstream f(it->path(), std::ios::binary);
    out.push_back({std::filesystem::relative(it->path(), dir).string(),
                   std::string(std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>())});
  }
  if (ec) return "cannot read " + dir + ": " + ec.message();
  return {};
}

std::uint32_t sessions_of_agent(std::uint32_t sessions, std::size_t agents, std::size_t index) {
  const auto n = static_cast<std::uint32_t>(agents);
  return sessions / n + (index < sessions % n ? 1 : 0);
}

struct coordinator::impl {
  coordinator_options o;
  std::optional<std::string> secret;
  caf::actor_system_config cfg;
  std::unique_ptr<caf::actor_system> system;
  std::unique_ptr<caf::scoped_actor> self;
  std::vector<agent_link> links;
  load_clock::time_point start;  // the run's start time, our steady clock
  bool in_window = false;

  caf::blocking_actor* me() { return self->ptr(); }

  agent_link* link_of(const caf::actor_addr& a) {
    for (auto& l : links)
      if (l.handle.address() == a) return &l;
    return nullptr;
  }
  agent_link* sender_link() { return link_of(caf::actor_cast<caf::actor_addr>(me()->current_sender())); }

  void lose(agent_link& l, const std::string& reason) {
    if (l.lost || l.stopped) return;
    l.lost = true;
    const auto at = load_clock::now();
    l.lost_why = start.time_since_epoch().count() && at > start
                     ? fmt::format("lost {:.2f} s into the run ({}): {}", seconds(at - start),
                                   in_window ? "in the window" : "outside the window", reason)
                     : "lost: " + reason;
    std::fprintf(stderr, "uactor-load: agent %s %s\n", l.name.c_str(), l.lost_why.c_str());
  }

  void on_report(const std::string& blob) {
    auto* l = sender_link();
    if (!l || l->report || l->lost) return;
    std::string error;
    auto r = decode_report(blob, error);
    if (!r) return lose(*l, "its report is malformed: " + error);
    l->report = std::move(*r);
    l->reported_at = load_clock::now();
  }

  // Takes the agents' messages (reports, stops, losses) until `until` or `done()`.
  template <class Done>
  void pump(load_clock::time_point until, Done done) {
    while (!done()) {
      const auto left = std::max(until - load_clock::now(), load_clock::duration::zero());
      bool timed_out = false;
      me()->receive([&](caf::down_msg& dm) {
                      if (auto* l = link_of(dm.source)) lose(*l, "the connection closed (" + system->render(dm.reason) + ")");
                    },
                    [&](ag_report_atom, const std::string& blob) { on_report(blob); },
                    [&](ag_stopped_atom) {
                      if (auto* l = sender_link()) l->stopped = !l->lost;
                    },
                    caf::after(std::chrono::duration_cast<std::chrono::microseconds>(left)) >> [&] { timed_out = true; });
      if (timed_out) return;
    }
  }

  // Asks every live agent in `which` for `msg`; an agent that does not answer in time is lost.
  template <class Answer, class OnAnswer, class... Ts>
  void ask_all(const std::vector<agent_link*>& which, caf::duration limit, OnAnswer on_answer, const char* what,
               Ts... xs) {
    std::vector<decltype(me()->request(caf::actor{}, limit, xs...))> pending;
    std::vector<agent_link*> asked;
    for (auto* l : which) {
      if (!l->live()) continue;
      pending.push_back(me()->request(l->handle, limit, xs...));
      asked.push_back(l);
    }
    for (std::size_t i = 0; i < pending.size(); ++i)
      pending[i].receive([&](Answer answer) { on_answer(*asked[i], answer); },
                         [&](caf::error& e) { lose(*asked[i], std::string(what) + ": " + why(*system, e)); });
  }

  std::vector<agent_link*> all() {
    std::vector<agent_link*> v;
    for (auto& l : links) v.push_back(&l);
    return v;
  }

  // Stops every live agent's run and waits (bounded) for the reports and the closed sessions.
  void stop_all() {
    ask_all<ag_ok_atom>(all(), caf::duration(answer_limit), [](agent_link&, ag_ok_atom) {}, "stop", ag_stop_atom::value);
    wait_stopped();
  }
  void wait_stopped() {
    pump(load_clock::now() + stopped_limit, [&] {
      return std::all_of(links.begin(), links.end(), [](const agent_link& l) { return !l.prepared || !l.live(); });
    });
  }
};

coordinator::coordinator(coordinator_options options) : impl_(std::make_unique<impl>()) {
  impl_->o = std::move(options);
}

coordinator::~coordinator() {
  if (!impl_->self) return;
  impl_->self.reset();
  impl_->system.reset();
}

std::size_t coordinator::agents() const { return impl_->links.size(); }

std::string coordinator::connect() {
  auto& m = *impl_;
  if (m.o.agents.empty()) return "--agents: no agent given";
  if (!m.o.secret_file.empty()) {
    std::string error;
    m.secret = read_secret_file(m.o.secret_file, error);
    if (!m.secret) return error;
  }
  const bool tls = !m.o.cert.empty() || !m.o.key.empty() || !m.o.cafile.empty();
  if (tls && (m.o.cert.empty() || m.o.key.empty() || m.o.cafile.empty()))
    return "TLS to the agents needs all of --agent-cert, --agent-key and --agent-cafile";
  m.cfg.load<caf::io::middleman>();
  if (tls) {
    m.cfg.load<caf::openssl::manager>();
    m.cfg.openssl_certificate = m.o.cert;
    m.cfg.openssl_key = m.o.key;
    m.cfg.openssl_cafile = m.o.cafile;
  }
  m.cfg.set("scheduler.max-threads", 1);
  m.cfg.set("logger.verbosity", caf::atom("quiet"));
  m.system = std::make_unique<caf::actor_system>(m.cfg);
  m.self = std::make_unique<caf::scoped_actor>(*m.system);
  const auto ours = agent_version();
  for (const auto& spec : m.o.agents) {
    std::string host;
    std::uint16_t port = 0;
    if (!split_host_port(spec, host, port) || port == 0) return "--agents: '" + spec + "' is not HOST:PORT";
    for (const auto& l : m.links)
      if (l.name == spec) return "--agents: " + spec + " is given twice";
    auto remote = tls ? caf::openssl::remote_actor(*m.system, host, port) : m.system->middleman().remote_actor(host, port);
    if (!remote) return "agent " + spec + " is unreachable: " + why(*m.system, remote.error());
    agent_link link;
    link.name = spec;
    link.handle = *remote;
    std::string problem;
    const auto cn = random_nonce();
    std::string an;
    m.me()->request(link.handle, caf::duration(answer_limit), ag_hello_atom::value, cn)
        .receive(
            [&](const std::string& version, const std::string& agent_nonce, const std::string& proof, std::int64_t,
                bool secret_required) {
              an = agent_nonce;
              if (version != ours)
                problem = "runs version '" + version + "', this coordinator '" + ours + "': run the same build everywhere";
              else if (secret_required && !m.secret)
                problem = "requires a shared secret: give --agent-secret-file";
              else if (!secret_required && m.secret)
                problem = "runs without --secret-file while this coordinator has one: refusing an unauthenticated agent";
              else if (m.secret && !same_proof(proof, agent_proof(*m.secret, cn, agent_nonce)))
                problem = "does not know the shared secret (another --secret-file)";
            },
            [&](caf::error& e) { problem = "does not answer hello: " + why(*m.system, e); });
    if (problem.empty())
      m.me()->request(link.handle, caf::duration(answer_limit), ag_auth_atom::value,
                      m.secret ? coordinator_proof(*m.secret, an, cn) : std::string())
          .receive([](ag_ok_atom) {}, [&](caf::error& e) { problem = "refused this coordinator: " + why(*m.system, e); });
    // The clock offset, NTP-style: the answer with the shortest round trip bounds the error by half of it.
    for (int i = 0; i < 5 && problem.empty(); ++i) {
      const auto sent = system_now_ns();
      m.me()->request(link.handle, caf::duration(answer_limit), ag_clock_atom::value)
          .receive(
              [&](std::int64_t agent_now) {
                const auto back = system_now_ns();
                if (i == 0 || back - sent < link.rtt_ns) {
                  link.rtt_ns = back - sent;
                  link.offset_ns = agent_now - (sent + back) / 2;
                }
              },
              [&](caf::error& e) { problem = "does not answer the clock: " + why(*m.system, e); });
    }
    if (!problem.empty()) return "agent " + spec + " " + problem;
    m.me()->monitor(link.handle);
    m.links.push_back(std::move(link));
  }
  return {};
}

int coordinator::run(const agent_job& whole, load_result result,
                     const std::function<std::optional<app::process_stats>()>& server_stats) {
  auto& m = *impl_;
  const auto n = m.links.size();
  if (whole.sessions < n) {
    std::fprintf(stderr, "uactor-load: --sessions %u is fewer than the %zu agents\n", whole.sessions, n);
    return 2;
  }
  // The shares, and with --variables each share's first item after the previous shares'.
  std::uint64_t first_item = whole.first_item;
  std::vector<agent_job> jobs;
  for (std::size_t i = 0; i < n; ++i) {
    auto job = whole;
    job.sessions = sessions_of_agent(whole.sessions, n, i);
    job.first_item = first_item;
    first_item += std::uint64_t{job.sessions} * job.subs * job.nodes;
    m.links[i].sessions = job.sessions;
    jobs.push_back(std::move(job));
  }

  // Every share connected before the start time is set, so that connecting costs no agent its start.
  {
    std::vector<decltype(m.me()->request(caf::actor{}, caf::duration(prepare_limit), ag_prep_atom::value, std::string()))>
        pending;
    for (std::size_t i = 0; i < n; ++i)
      pending.push_back(m.me()->request(m.links[i].handle, caf::duration(prepare_limit), ag_prep_atom::value, encode(jobs[i])));
    bool all_ok = true;
    for (std::size_t i = 0; i < n; ++i)
      pending[i].receive([&](ag_ok_atom) { m.links[i].prepared = true; },
                         [&](caf::error& e) {
                           all_ok = false;
                           m.links[i].prepared = true;  // it may have a run to stop
                           m.lose(m.links[i], "could not start its sessions: " + why(*m.system, e));
                         });
    if (!all_ok) {
      m.stop_all();
      std::fprintf(stderr, "uactor-load: no load ran\n");
      return 1;
    }
  }

  // One start time on our clock, given to each agent on its own: no agent starts on a message's arrival.
  std::int64_t max_rtt = 0;
  for (const auto& l : m.links) max_rtt = std::max(max_rtt, l.rtt_ns);
  const auto margin_ns = std::int64_t{300'000'000} + 4 * max_rtt;
  const auto start_ns = system_now_ns() + margin_ns;
  m.start = load_clock::now() + std::chrono::nanoseconds(margin_ns);
  m.ask_all<ag_ok_atom>(m.all(), caf::duration(answer_limit), [](agent_link&, ag_ok_atom) {}, "start",
            ag_start_atom::value, start_ns);
  const auto opens = m.start + std::chrono::nanoseconds(whole.warmup_ns);
  const auto closes = opens + std::chrono::nanoseconds(whole.duration_ns);
  const auto any_lost = [&] { return std::any_of(m.links.begin(), m.links.end(), [](const agent_link& l) { return l.lost; }); };
  // An agent that reports before the window closed stopped by itself: lost to this run.
  const auto early = [&] {
    for (auto& l : m.links)
      if (l.report && !l.lost && !l.report->complete) m.lose(l, "stopped by itself: " + l.report->failure);
    return any_lost();
  };

  // The window: the server's edge first at the start and last at the end, so that its window
  // holds the agents'.
  const bool tty = isatty(STDERR_FILENO) == 1;
  std::optional<app::process_stats> server_start, server_end;
  bool sampled_start = !server_stats;
  auto next_poll = load_clock::now() + progress_every;
  // The progress line's rate: completions between two polls (each agent's count since its start).
  std::uint64_t last_total = 0;
  load_clock::time_point last_poll = load_clock::now();
  while (!any_lost() && !early()) {
    const auto now = load_clock::now();
    if (now >= closes) break;
    if (!sampled_start && now >= opens - 10ms) {
      server_start = server_stats();
      sampled_start = true;
    }
    m.in_window = now >= opens;
    if (now >= next_poll) {
      std::uint64_t total = 0;
      m.ask_all<std::uint64_t>(m.all(), caf::duration(progress_limit), [&](agent_link& l, std::uint64_t p) { l.progress = p; },
                "no answer to a progress poll", ag_prog_atom::value);
      for (const auto& l : m.links) total += l.progress;
      const auto polled = load_clock::now();
      const bool window = polled >= opens;
      const double since = seconds(polled - last_poll);
      const double rate = since > 0 && total >= last_total ? static_cast<double>(total - last_total) / since : 0;
      last_total = total;
      last_poll = polled;
      if (tty && now >= m.start) {
        std::fprintf(stderr, "\r\033[K%s %5.1f / %.1f s  %10.0f requests/s  (%zu agents)",
                     window ? "measuring" : "warm-up  ", seconds(load_clock::now() - (window ? opens : m.start)),
                     (window ? whole.duration_ns : whole.warmup_ns) / 1e9, rate, n);
        std::fflush(stderr);
      }
      next_poll += progress_every;
    }
    auto wake = std::min(next_poll, closes);
    if (!sampled_start) wake = std::min(wake, opens - 10ms);
    m.pump(wake, [] { return false; });
  }
  if (tty) std::fprintf(stderr, "\r\033[K");
  const bool lost_in_run = any_lost();
  if (!lost_in_run) {
    m.pump(closes + 5ms, [] { return false; });
    if (server_stats && sampled_start) server_end = server_stats();
  } else {
    m.stop_all();  // the others stop now; their reports are partial
  }
  m.in_window = false;

  // Collection: every live agent's report, bounded.
  std::chrono::milliseconds grace = report_limit;
  if (whole.variables)
    grace += 3 * std::chrono::milliseconds(std::max(whole.write_interval_ms, whole.publishing_ms)) + 500ms;
  const auto everyone_reported = [&] {
    return std::all_of(m.links.begin(), m.links.end(), [](const agent_link& l) { return l.lost || l.report.has_value(); });
  };
  m.pump(load_clock::now() + grace, everyone_reported);
  for (auto& l : m.links)
    if (!l.report) m.lose(l, "no report within the collection's bound");
  load_clock::time_point last_report = closes;
  for (const auto& l : m.links)
    if (l.report) last_report = std::max(last_report, l.reported_at);
  m.wait_stopped();
  for (auto& l : m.links)
    if (l.prepared && !l.stopped && !l.lost) m.lose(l, "its sessions did not close within the bound");

  // The merge: counts summed, histograms bucket by bucket, client figures summed.
  result.requests = result.errors = 0;
  result.latency = latency_histogram{};
  result.client = {};
  double window_sum = 0;
  std::size_t windows = 0;
  bool partial = false;
  bool first_client = true;
  bool has_completeness = false;
  std::uint64_t lost_changes = 0;
  std::int64_t first_open = 0, last_open = 0;
  for (const auto& l : m.links) {
    partial = partial || l.lost || !l.report || !l.report->complete;
    if (!l.report) continue;
    const auto& r = *l.report;
    result.requests += r.requests;
    result.errors += r.errors;
    result.latency.merge(r.latency);
    result.client = first_client ? r.client : sum(result.client, r.client);
    first_client = false;
    if (r.window_close_ns > r.window_open_ns) {
      window_sum += ms(r.window_close_ns - r.window_open_ns) / 1000.0;
      ++windows;
      const auto open = r.window_open_ns - l.offset_ns;  // on our clock
      if (windows == 1) first_open = last_open = open;
      first_open = std::min(first_open, open);
      last_open = std::max(last_open, open);
    }
    if (r.has_completeness) {
      has_completeness = true;
      lost_changes += r.lost_changes;
      result.repeated_changes += r.repeated_changes;
      result.overflows += r.overflows;
      result.items_behind += r.items_behind;
    }
  }
  if (has_completeness) result.lost_changes = lost_changes;
  result.window_s = windows ? window_sum / static_cast<double>(windows) : 0;
  if (server_start && server_end) result.server = *server_end - *server_start;
  const double skew_ms = ms(last_open - first_open);
  const double collection_ms = ms(std::chrono::duration_cast<std::chrono::nanoseconds>(last_report - closes).count());

  // The rows.
  const auto per = [](std::uint64_t v, std::uint64_t ops) { return ops ? static_cast<double>(v) / static_cast<double>(ops) : 0.0; };
  std::string text;
  std::string json;
  if (m.o.json) {
    json = to_json(result);
    json.pop_back();  // the closing brace: the distributed figures go inside
    json += fmt::format(R"(,"distributed":{{"agents_count":{},"partial":{},"start_skew_ms":{:.3f},"collection_ms":{:.1f},)"
                        R"("latency_count":{},"latency_min_us":{:.2f},"agents":[)",
                        n, partial ? "true" : "false", skew_ms, collection_ms, result.latency.count(),
                        static_cast<double>(result.latency.min()) / 1000.0);
  } else {
    text = to_text(result);
    text += fmt::format("distributed over {} agents: start skew {:.2f} ms (window openings, clock offsets applied), "
                        "results {:.0f} ms after the window\n",
                        n, skew_ms, collection_ms);
    text += fmt::format("  {:<24}{:>9}{:>12}{:>8}{:>12}{:>10}{:>10}{:>10}{:>10}{:>9}{:>10}\n", "agent", "sessions",
                        "requests", "errors", "requests/s", "p50 µs", "p99 µs", "max µs", "CPU µs/op", "allocs", "offset ms");
  }
  for (std::size_t i = 0; i < n; ++i) {
    const auto& l = m.links[i];
    const agent_report empty;
    const auto& r = l.report ? *l.report : empty;
    const double window = r.window_close_ns > r.window_open_ns ? ms(r.window_close_ns - r.window_open_ns) / 1000.0 : 0;
    const auto ops = r.requests + r.errors;
    const double rate = window > 0 ? static_cast<double>(r.requests) / window : 0;
    const std::string state = l.lost ? "lost" : !l.report ? "no report" : r.complete ? "complete" : "stopped early";
    const auto failure = l.lost ? l.lost_why : r.failure;
    if (m.o.json) {
      json += fmt::format(
          R"({}{{"agent":{},"state":{},"failure":{},"sessions":{},"requests":{},"errors":{},"latency_count":{},)"
          R"("window_s":{:.3f},"requests_per_s":{:.1f},"latency_p50_us":{:.2f},"latency_p99_us":{:.2f},)"
          R"("latency_max_us":{:.2f},"client_cpu_us_per_req":{:.3f},"client_allocs_per_req":{:.3f},)"
          R"("window_open_ms":{:.3f},"clock_offset_ms":{:.3f},"rtt_ms":{:.3f}}})",
          i ? "," : "", json_string(l.name), json_string(state), json_string(failure), l.sessions, r.requests, r.errors,
          r.latency.count(), window, rate, r.latency.percentile(50) / 1000.0, r.latency.percentile(99) / 1000.0,
          r.latency.max() / 1000.0, per(r.client.cpu_user_us + r.client.cpu_system_us, ops),
          per(r.client.allocations, ops), r.window_open_ns ? ms(r.window_open_ns - l.offset_ns - first_open) : 0.0,
          ms(l.offset_ns), ms(l.rtt_ns));
    } else {
      text += fmt::format("  {:<24}{:>9}{:>12}{:>8}{:>12.0f}{:>10.1f}{:>10.1f}{:>10.1f}{:>10.2f}{:>9.2f}{:>10.3f}{}\n",
                          l.name, l.sessions, r.requests, r.errors, rate, r.latency.percentile(50) / 1000.0,
                          r.latency.percentile(99) / 1000.0, r.latency.max() / 1000.0,
                          per(r.client.cpu_user_us + r.client.cpu_system_us, ops), per(r.client.allocations, ops),
                          ms(l.offset_ns),
                          state == "complete" ? "" : "  " + (l.lost ? failure : state + ": " + failure));
    }
  }
  if (m.o.json) {
    json += "]}}\n";
  } else {
    const auto ops = result.requests + result.errors;
    text += fmt::format("  {:<24}{:>9}{:>12}{:>8}{:>12.0f}{:>10.1f}{:>10.1f}{:>10.1f}{:>10.2f}{:>9.2f}\n", "total",
                        whole.sessions, result.requests, result.errors, result.requests_per_s(),
                        result.latency.percentile(50) / 1000.0, result.latency.percentile(99) / 1000.0,
                        result.latency.max() / 1000.0, per(result.client.cpu_user_us + result.client.cpu_system_us, ops),
                        per(result.client.allocations, ops));
    if (partial) text += "PARTIAL RESULT: not every agent measured the whole window (rows above)\n";
  }
  const auto& out = m.o.json ? json : text;
  std::fputs(out.c_str(), stdout);
  std::fflush(stdout);
  if (!m.o.out.empty()) {
    std::ofstream f(m.o.out, std::ios::app);
    f << out;
    if (!m.o.json) f << '\n';
  }
  const bool incomplete = result.lost_changes && (*result.lost_changes > 0 || result.repeated_changes > 0 || result.overflows > 0);
  if (partial || result.requests == 0 || result.errors > 0 || (server_stats && !result.server) || incomplete) return 1;
  return 0;
}

}  // namespace uactor::scenarios
