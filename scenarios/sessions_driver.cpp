#include "scenarios/sessions_driver.hpp"

#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iterator>
#include <map>
#include <memory>
#include <mutex>
#include <optional>
#include <sstream>
#include <thread>

#include <caf/all.hpp>
#include <caf/io/all.hpp>
#include <fmt/format.h>

#include "scenarios/child_process.hpp"
#include "scenarios/driver.hpp"
#include "scenarios/latency_histogram.hpp"
#include "scenarios/load_security.hpp"
#include "scenarios/opcua_driver.hpp"
#include "scenarios/requests.hpp"
#include "uactor/client.hpp"

namespace uactor::scenarios {
namespace {

using seconds_d = std::chrono::duration<double>;

constexpr const char* storm_user = "storm";
constexpr const char* storm_password = "storm-pw";

// The open-file limit: raised to the hard limit for this process and so for the child (which
// inherits it). What was done, for the report.
std::string raise_open_files(std::size_t wanted) {
  rlimit r{};
  if (getrlimit(RLIMIT_NOFILE, &r) != 0) return "open files: getrlimit failed";
  const auto before = r.rlim_cur;
  if (r.rlim_cur < r.rlim_max) {
    r.rlim_cur = r.rlim_max;
    if (setrlimit(RLIMIT_NOFILE, &r) != 0) return fmt::format("open files: soft limit {} (raising it failed)", before);
  }
  std::string s = before == r.rlim_cur ? fmt::format("open files: soft limit {} (already the hard limit)", r.rlim_cur)
                                       : fmt::format("open files: soft limit raised from {} to {} (the hard limit); the "
                                                     "child inherits it",
                                                     before, r.rlim_cur);
  if (r.rlim_cur < wanted + 64) s += fmt::format("; WARNING: {} sessions need about {} here", wanted, wanted + 64);
  return s;
}

// /proc/PID: resident set (kB) and CPU time so far (s).
std::uint64_t rss_kb(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  std::string line;
  while (std::getline(f, line))
    if (line.rfind("VmRSS:", 0) == 0) return std::stoull(line.substr(6));
  return 0;
}

double cpu_s(pid_t pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string text((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const auto close = text.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream rest(text.substr(close + 2));
  std::string field;
  double utime = 0, stime = 0;
  for (int i = 3; i <= 15 && rest >> field; ++i) {  // fields 14 and 15: utime, stime (clock ticks)
    if (i == 14) utime = std::stod(field);
    if (i == 15) stime = std::stod(field);
  }
  return (utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

struct child_server {
  std::unique_ptr<child_process> process;
  std::string url;
  std::string log;
  std::string description;
};

std::optional<child_server> start_child(const std::string& dir, const std::vector<std::string>& extra) {
  child_server s;
  s.log = "/tmp/uactor-load-" + std::to_string(getpid()) + ".child.log";
  std::vector<std::string> argv = {dir + "uactor", "run", "--host", "127.0.0.1", "--port", "0", "--writer-interval", "1000"};
  argv.insert(argv.end(), extra.begin(), extra.end());
  std::string error;
  s.process = child_process::start(argv, s.log, error);
  if (!s.process) {
    std::fprintf(stderr, "uactor-load: cannot start %s: %s\n", argv[0].c_str(), error.c_str());
    return std::nullopt;
  }
  auto listening = s.process->wait_line("listening on ", std::chrono::seconds(30));
  if (!listening) {
    std::fprintf(stderr, "uactor-load: the child did not say 'listening on' (its stderr: %s)\n", s.log.c_str());
    return std::nullopt;
  }
  s.url = *listening;
  std::string args;
  for (std::size_t i = 1; i < argv.size(); ++i) args += " " + argv[i];
  s.description = "child `uactor" + args + "` " + s.url + " (pid " + std::to_string(s.process->pid()) + ")";
  return s;
}

// Failures by status name, from any thread.
class failure_counts {
public:
  void add(ua::status_code sc) {
    std::lock_guard lock(mutex_);
    ++counts_[std::string(sc.name())];
  }
  std::uint64_t total() const {
    std::lock_guard lock(mutex_);
    std::uint64_t n = 0;
    for (const auto& [k, v] : counts_) n += v;
    return n;
  }
  std::string text() const {
    std::lock_guard lock(mutex_);
    if (counts_.empty()) return "none";
    std::string s;
    for (const auto& [k, v] : counts_) s += (s.empty() ? "" : ", ") + k + " " + std::to_string(v);
    return s;
  }
  std::string json() const {
    std::lock_guard lock(mutex_);
    std::string s = "{";
    for (const auto& [k, v] : counts_) s += (s.size() > 1 ? "," : "") + fmt::format("\"{}\":{}", k, v);
    return s + "}";
  }

private:
  mutable std::mutex mutex_;
  std::map<std::string, std::uint64_t> counts_;
};

class locked_histogram {
public:
  void record(std::uint64_t ns) {
    std::lock_guard lock(mutex_);
    h_.record(ns);
  }
  latency_histogram get() const {
    std::lock_guard lock(mutex_);
    return h_;
  }

private:
  mutable std::mutex mutex_;
  latency_histogram h_;
};

double ms(std::uint64_t ns) { return static_cast<double>(ns) / 1e6; }
double us(std::uint64_t ns) { return static_cast<double>(ns) / 1e3; }

void emit(const session_scenario_options& o, const std::string& text, const std::string& json) {
  const auto out = o.json ? json + "\n" : text;
  std::fputs(out.c_str(), stdout);
  std::fflush(stdout);
  if (!o.out.empty()) {
    std::ofstream f(o.out, std::ios::app);
    f << out << (o.json ? "" : "\n");
  }
}

// Runs `work(i)` for i in [0, n) on `threads` threads; with `rate` > 0, item i starts no earlier
// than start + i / rate (late starts are not made up for: they show as a lower rate).
template <class Work>
void paced(std::size_t n, std::size_t threads, double rate, load_clock::time_point start, load_clock::time_point stop,
           Work&& work) {
  std::atomic<std::size_t> next{0};
  std::vector<std::thread> pool;
  for (std::size_t t = 0; t < std::max<std::size_t>(1, threads); ++t)
    pool.emplace_back([&] {
      for (;;) {
        const std::size_t i = next.fetch_add(1);
        if (i >= n) return;
        if (rate > 0) {
          const auto at = start + std::chrono::duration_cast<load_clock::duration>(seconds_d(static_cast<double>(i) / rate));
          if (at >= stop) return;
          std::this_thread::sleep_until(at);
        }
        if (load_clock::now() >= stop) return;
        work(i);
      }
    });
  for (auto& t : pool) t.join();
}

// The many sessions' and the storm's newcomers' clients: one descriptor each (their wake-ups are
// messages: with socket pairs 10,000 sessions need 30,000 descriptors, 0032).
client_options session_options(const std::string& url, const uactor::client_security_options& security,
                               const std::string& name) {
  client_options co;
  co.inbox_wake_up = uactor::inbox_wake_up::message;
  co.endpoint_url = url;
  co.security = security;
  co.session_name = name;
  co.request_timeout = std::chrono::seconds(30);
  return co;
}

// ---------------------------------------------------------------------------------------------
// sessions

int run_sessions(const session_scenario_options& o, const std::string& dir) {
  const std::string nofile = raise_open_files(o.sessions);
  std::optional<load_security> secured;
  std::vector<std::string> server_args = {"--max-connections", std::to_string(o.sessions + 16), "--max-sessions",
                                          std::to_string(o.sessions + 16)};
  uactor::client_security_options security;
  if (o.security != "none") {
    auto s = prepare_load_security(o.security, o.policy);
    if (!s) {
      std::fprintf(stderr, "uactor-load: --security %s --policy %s: %s\n", o.security.c_str(), o.policy.c_str(),
                   s.error().to_string().c_str());
      return 2;
    }
    secured = std::move(*s);
    security = secured->client;
    server_args.insert(server_args.end(), secured->server_args.begin(), secured->server_args.end());
  }
  server_args.insert(server_args.end(), o.server_args.begin(), o.server_args.end());
  auto child = start_child(dir, server_args);
  if (!child) return 1;
  const pid_t server = child->process->pid();

  // One client actor system per 1,000 sessions: CAF 0.17's multiplexer of one system wakes up
  // through one pipe, and with ~7,800 connections on one (connector threads writing to the full
  // pipe while the multiplexer waited for them) the harness stalled.
  const std::size_t n = o.sessions;
  constexpr std::size_t sessions_per_system = 1000;
  std::vector<std::unique_ptr<caf::actor_system_config>> configs;
  std::vector<std::unique_ptr<caf::actor_system>> systems;
  for (std::size_t k = 0; k * sessions_per_system < n; ++k) {
    configs.push_back(std::make_unique<caf::actor_system_config>());
    configure_client_system(*configs.back());
    systems.push_back(std::make_unique<caf::actor_system>(*configs.back()));
  }

  std::vector<std::unique_ptr<client>> clients(n);
  std::vector<std::atomic<std::uint64_t>> notified(n);
  // The Counter's value is the writer's tick: a gap between two values a session received is a
  // change lost (queue size 2, so that two changes in one publishing cycle both arrive).
  std::vector<std::atomic<std::uint32_t>> last_value(n);
  std::atomic<std::uint64_t> lost_changes{0};
  std::atomic<bool> counting{false};
  std::atomic<std::uint64_t> sub_errors{0};
  failure_counts failures;
  locked_histogram establish;
  const auto counter = ua::node_id::string(1, "Demo.Dynamic.Counter");

  const auto server_rss0 = rss_kb(server);
  const auto client_rss0 = rss_kb(getpid());
  const auto server_cpu0 = cpu_s(server);
  const auto client_cpu0 = cpu_s(getpid());
  const auto t0 = load_clock::now();
  paced(n, o.connectors, o.rate, t0, load_clock::time_point::max(), [&](std::size_t i) {
    const auto begin = load_clock::now();
    auto c = client::connect(*systems[i % systems.size()],
                             session_options(child->url, security, "uactor-load sessions " + std::to_string(i)));
    if (!c) return failures.add(c.error());
    subscription_settings settings;
    settings.publishing_interval = std::chrono::milliseconds(1000);
    subscription_handlers h;
    auto* count = &notified[i];
    auto* last = &last_value[i];
    h.on_data = [count, last, &lost_changes, &counting](std::uint32_t, std::uint32_t,
                                                         std::span<const ua::monitored_item_notification> changes) {
      count->fetch_add(changes.size(), std::memory_order_relaxed);
      for (const auto& c : changes) {
        const auto* v = c.value.has_value ? c.value.value.get_if<std::uint32_t>() : nullptr;
        if (!v) continue;
        const auto before = last->exchange(*v, std::memory_order_relaxed);
        if (counting.load(std::memory_order_relaxed) && before != 0 && *v > before + 1)
          lost_changes.fetch_add(*v - before - 1, std::memory_order_relaxed);
      }
    };
    h.on_status = [&sub_errors](const subscription_status& st) {
      if (st.what == subscription_event::data_lost || st.what == subscription_event::silent ||
          (st.what == subscription_event::closed && st.status.is_bad()))
        sub_errors.fetch_add(1, std::memory_order_relaxed);
    };
    auto sub = c->create_subscription_sync(settings, std::move(h));
    if (!sub) return failures.add(sub.error());
    ua::create_monitored_items_request req;
    req.subscription_id = sub->subscription_id;
    req.timestamps_to_return = ua::timestamps_to_return::both;
    req.items_to_create.push_back(monitor_value(counter, 1, 0, 2, true));
    auto items = c->create_monitored_items_sync(std::move(req));
    if (!items) return failures.add(items.error());
    if (items->results.empty() || items->results[0].status_code.is_bad())
      return failures.add(items->results.empty() ? ua::status::bad_unexpected_error : items->results[0].status_code);
    establish.record(static_cast<std::uint64_t>(std::chrono::nanoseconds(load_clock::now() - begin).count()));
    clients[i] = std::make_unique<client>(std::move(*c));
  });
  const auto t1 = load_clock::now();
  const double ramp_s = seconds_d(t1 - t0).count();
  std::size_t up = 0;
  for (const auto& c : clients) up += c ? 1 : 0;
  const auto server_cpu_ramp = cpu_s(server) - server_cpu0;
  const auto client_cpu_ramp = cpu_s(getpid()) - client_cpu0;

  // Settle, then the hold: every session should be notified about once per second.
  std::this_thread::sleep_for(std::chrono::duration_cast<load_clock::duration>(seconds_d(o.warmup_s)));
  std::vector<std::uint64_t> at_start(n);
  for (std::size_t i = 0; i < n; ++i) at_start[i] = notified[i].load(std::memory_order_relaxed);
  const auto sub_errors0 = sub_errors.load();
  counting = true;
  const auto server_cpu1 = cpu_s(server);
  const auto client_cpu1 = cpu_s(getpid());
  const auto h0 = load_clock::now();

  // Optional Reads: every session once per interval, spread over it.
  std::atomic<bool> reading{o.read_interval_s > 0 && up > 0};
  std::atomic<std::uint64_t> reads_ok{0}, reads_failed{0};
  std::thread reader;
  if (reading) {
    reader = std::thread([&] {
      const auto request = make_read_request(1);
      const auto gap = seconds_d(o.read_interval_s / static_cast<double>(up));
      auto next = load_clock::now();
      while (reading.load()) {
        for (auto& c : clients) {
          if (!reading.load()) break;
          if (!c) continue;
          c->read(request, [&](ua::expected<ua::read_response> r) {
            (r && !r->results.empty() && !(r->results[0].has_status && r->results[0].status.is_bad()) ? reads_ok : reads_failed)
                .fetch_add(1, std::memory_order_relaxed);
          });
          next += std::chrono::duration_cast<load_clock::duration>(gap);
          std::this_thread::sleep_until(next);
        }
      }
    });
  }
  std::this_thread::sleep_for(std::chrono::duration_cast<load_clock::duration>(seconds_d(o.duration_s)));
  const double hold_s = seconds_d(load_clock::now() - h0).count();
  counting = false;
  reading = false;
  if (reader.joinable()) reader.join();
  const auto server_cpu_hold = cpu_s(server) - server_cpu1;
  const auto client_cpu_hold = cpu_s(getpid()) - client_cpu1;
  const auto server_rss1 = rss_kb(server);
  const auto client_rss1 = rss_kb(getpid());

  // The Counter changes every second, each session's subscription publishes every second: a
  // session got hold_s notifications, give or take one for the phase of the two clocks.
  const auto expected = static_cast<std::uint64_t>(hold_s);
  std::uint64_t received = 0, short_sessions = 0, missing = 0;
  for (std::size_t i = 0; i < n; ++i) {
    if (!clients[i]) continue;
    const auto got = notified[i].load(std::memory_order_relaxed) - at_start[i];
    received += got;
    if (got + 1 < expected) {
      ++short_sessions;
      missing += expected - 1 - got;
    }
  }
  const auto lost_events = sub_errors.load() - sub_errors0;

  // Teardown, in parallel (CloseSession and CloseSecureChannel each).
  paced(n, o.connectors, 0, load_clock::now(), load_clock::time_point::max(), [&](std::size_t i) {
    if (clients[i]) clients[i]->close();
    clients[i].reset();
  });
  systems.clear();
  child->process->stop();
  if (secured) std::filesystem::remove_all(secured->folder);

  const auto e = establish.get();
  const double per = up ? 1.0 / static_cast<double>(up) : 0;
  const double server_kb = static_cast<double>(server_rss1) - static_cast<double>(server_rss0);
  const double client_kb = static_cast<double>(client_rss1) - static_cast<double>(client_rss0);
  const std::string mode = o.security == "none" ? "None" : o.policy + (o.security == "sign" ? " Sign" : " SignAndEncrypt");
  std::string text;
  text += fmt::format("uactor load --scenario sessions: {} sessions ({}), each one subscription (1 s) with one item on "
                      "ns=1;s=Demo.Dynamic.Counter (changes every 1 s){}\n",
                      n, mode, o.read_interval_s > 0 ? fmt::format(", a Read every {} s", o.read_interval_s) : "");
  text += "  target: " + child->description + "\n";
  text += "  " + nofile + "\n";
  text += fmt::format("  established: {} of {} in {:.1f} s: {:.1f} sessions/s ({} connectors{}); failures: {}\n", up, n,
                      ramp_s, static_cast<double>(up) / ramp_s, o.connectors,
                      o.rate > 0 ? fmt::format(", paced at {}/s", o.rate) : "", failures.text());
  text += fmt::format("  establish latency (connect + subscribe): p50 {:.1f} ms, p99 {:.1f} ms, max {:.1f} ms\n",
                      ms(e.percentile(50)), ms(e.percentile(99)), ms(e.max()));
  text += fmt::format("  hold {:.1f} s: {} notifications ({:.2f} per session per s); changes lost (gaps in the "
                      "Counter's values): {}; data-lost/silent/closed events: {}; sessions with fewer than {} in the "
                      "window: {} ({} short: late or lost)\n",
                      hold_s, received, up ? static_cast<double>(received) / static_cast<double>(up) / hold_s : 0,
                      lost_changes.load(), lost_events, expected - 1, short_sessions, missing);
  if (o.read_interval_s > 0)
    text += fmt::format("  reads in the hold: {} ok, {} failed\n", reads_ok.load(), reads_failed.load());
  text += fmt::format("  server: RSS {:.1f} MB -> {:.1f} MB: {:.1f} KB per session; CPU {:.2f} ms per session "
                      "established, {:.1f} us per session per s held ({:.1f} % of a core)\n",
                      static_cast<double>(server_rss0) / 1024, static_cast<double>(server_rss1) / 1024, server_kb * per,
                      server_cpu_ramp * 1e3 * per, server_cpu_hold * 1e6 * per / hold_s, server_cpu_hold / hold_s * 100);
  text += fmt::format("  client (this process): RSS {:.1f} MB -> {:.1f} MB: {:.1f} KB per session; CPU {:.2f} ms per "
                      "session established, {:.1f} us per session per s held\n",
                      static_cast<double>(client_rss0) / 1024, static_cast<double>(client_rss1) / 1024, client_kb * per,
                      client_cpu_ramp * 1e3 * per, client_cpu_hold * 1e6 * per / hold_s);
  const std::string json = fmt::format(
      R"({{"scenario":"sessions","sessions":{},"security":"{}","established":{},"ramp_s":{:.3f},"establish_rate":{:.2f},)"
      R"("failures":{},"establish_p50_ms":{:.2f},"establish_p99_ms":{:.2f},"hold_s":{:.2f},"notifications":{},)"
      R"("short_sessions":{},"missing_notifications":{},"lost_changes":{},"subscription_events":{},"reads_ok":{},"reads_failed":{},)"
      R"("server_rss_kb_per_session":{:.2f},"server_cpu_ms_per_establish":{:.3f},"server_cpu_us_per_session_s":{:.2f},)"
      R"("client_rss_kb_per_session":{:.2f},"client_cpu_ms_per_establish":{:.3f},"client_cpu_us_per_session_s":{:.2f}}})",
      n, mode, up, ramp_s, static_cast<double>(up) / ramp_s, failures.json(), ms(e.percentile(50)), ms(e.percentile(99)),
      hold_s, received, short_sessions, missing, lost_changes.load(), lost_events, reads_ok.load(), reads_failed.load(), server_kb * per,
      server_cpu_ramp * 1e3 * per, server_cpu_hold * 1e6 * per / hold_s, client_kb * per, client_cpu_ramp * 1e3 * per,
      client_cpu_hold * 1e6 * per / hold_s);
  emit(o, text, json);
  // Late notifications (a short session) are reported, not failed: on a loaded machine the window
  // edge cuts them off; lost changes and subscription errors fail the run.
  const bool ok = up == n && lost_changes.load() == 0 && lost_events == 0 && reads_failed.load() == 0;
  if (!ok) std::fprintf(stderr, "uactor-load: the child's stderr: %s\n", child->log.c_str());
  else unlink(child->log.c_str());
  return ok ? 0 : 1;
}

// ---------------------------------------------------------------------------------------------
// storm

struct window_figures {
  latency_histogram latency;
  std::uint64_t ok = 0;
  std::uint64_t errors = 0;
  double seconds = 0;
  double server_cpu_s = 0;
};

int run_storm(const session_scenario_options& o, const std::string& dir) {
  const std::size_t newcomers = static_cast<std::size_t>(o.rate * o.duration_s) + 1;
  const std::string nofile = raise_open_files(o.sessions + o.connectors);
  // The newcomers: SignAndEncrypt with --policy and a UserName login; the established load: --security.
  auto secured = prepare_load_security("encrypt", o.policy);
  if (!secured) {
    std::fprintf(stderr, "uactor-load: --policy %s: %s\n", o.policy.c_str(), secured.error().to_string().c_str());
    return 2;
  }
  if (o.security == "sign") {
    std::fprintf(stderr, "uactor-load: --scenario storm: the established load is none or encrypt\n");
    return 2;
  }
  std::vector<std::string> server_args = secured->server_args;
  server_args.insert(server_args.end(), {"--user", std::string(storm_user) + ":" + storm_password});
  server_args.insert(server_args.end(), o.server_args.begin(), o.server_args.end());
  auto child = start_child(dir, server_args);
  if (!child) return 1;
  const pid_t server = child->process->pid();

  load_options established;
  established.sessions = o.sessions;
  established.inflight = o.inflight;
  established.nodes = o.nodes;
  if (o.security == "encrypt") established.security = secured->client;
  recorder rec;
  auto driver = make_opcua_driver(opcua_scenario::read, established, child->url);
  if (auto error = driver->start(rec); !error.empty()) {
    std::fprintf(stderr, "uactor-load: %s\n", error.c_str());
    return 1;
  }
  std::this_thread::sleep_for(std::chrono::duration_cast<load_clock::duration>(seconds_d(o.warmup_s)));

  const auto window = [&](auto&& during) {
    window_figures w;
    rec.reset();
    const double cpu0 = cpu_s(server);
    const auto start = load_clock::now();
    rec.set_measuring(true);
    during(start, start + std::chrono::duration_cast<load_clock::duration>(seconds_d(o.duration_s)));
    rec.set_measuring(false);
    w.seconds = seconds_d(load_clock::now() - start).count();
    w.server_cpu_s = cpu_s(server) - cpu0;
    auto taken = rec.take();
    w.latency = taken.latency;
    w.ok = taken.ok;
    w.errors = taken.errors;
    return w;
  };

  const auto quiet = window([](load_clock::time_point, load_clock::time_point until) { std::this_thread::sleep_until(until); });

  // The storm's own actor system: its clients' crypto and waits do not share the established
  // load's scheduler.
  caf::actor_system_config cfg;
  configure_client_system(cfg);
  auto storm_system = std::make_unique<caf::actor_system>(cfg);
  uactor::client_security_options newcomer = secured->client;
  newcomer.identity.type = uactor::client_identity::kind::user_name;
  newcomer.identity.user_name = storm_user;
  newcomer.identity.password = storm_password;
  failure_counts failures;
  locked_histogram connect_latency;
  std::atomic<std::uint64_t> attempted{0}, connected{0};
  std::thread storm;
  const auto stormy = window([&](load_clock::time_point start, load_clock::time_point until) {
    // Newcomers start only inside the window; those still connecting when it ends finish after it,
    // unmeasured (the established load's window is exactly --duration).
    storm = std::thread([&, start, until] {
      paced(newcomers, o.connectors, o.rate, start, until, [&](std::size_t i) {
        attempted.fetch_add(1);
        const auto begin = load_clock::now();
        auto c = client::connect(*storm_system, session_options(child->url, newcomer, "uactor-load storm " + std::to_string(i)));
        if (!c) return failures.add(c.error());
        connect_latency.record(static_cast<std::uint64_t>(std::chrono::nanoseconds(load_clock::now() - begin).count()));
        connected.fetch_add(1);
        c->close();
      });
    });
    std::this_thread::sleep_until(until);
  });
  storm.join();
  storm_system.reset();
  driver->stop();
  child->process->stop();
  std::filesystem::remove_all(secured->folder);

  const auto row = [](const char* name, const window_figures& w) {
    return fmt::format("  {:<6} {:>9} {:>9.0f} {:>9.0f} {:>9.0f} {:>10.0f} {:>7} {:>9.1f}\n", name, w.ok,
                       static_cast<double>(w.ok) / w.seconds, us(w.latency.percentile(50)), us(w.latency.percentile(99)),
                       us(w.latency.max()), w.errors, w.server_cpu_s / w.seconds * 100);
  };
  const double p99_ratio = quiet.latency.percentile(99)
                               ? static_cast<double>(stormy.latency.percentile(99)) / static_cast<double>(quiet.latency.percentile(99))
                               : 0;
  const auto cl = connect_latency.get();
  std::string text;
  text += fmt::format("uactor load --scenario storm: {} x {} Read of {} value ({}), measured quiet and while {} new "
                      "SignAndEncrypt {} + UserName sessions/s connect, activate and close ({} connectors)\n",
                      o.sessions, o.inflight, o.nodes, o.security == "none" ? "None" : "SignAndEncrypt " + o.policy, o.rate,
                      o.policy, o.connectors);
  text += "  target: " + child->description + "\n";
  text += "  " + nofile + "\n";
  text += fmt::format("  {:<6} {:>9} {:>9} {:>9} {:>9} {:>10} {:>7} {:>9}\n", "window", "requests", "req/s", "p50 us",
                      "p99 us", "max us", "errors", "srv CPU%");
  text += row("quiet", quiet);
  text += row("storm", stormy);
  text += fmt::format("  p99 storm / quiet: {:.2f} (goal <= 2); max storm / quiet: {:.2f}\n", p99_ratio,
                      quiet.latency.max() ? static_cast<double>(stormy.latency.max()) / static_cast<double>(quiet.latency.max()) : 0);
  text += fmt::format("  newcomers: {} of {} started in the window ({}/s; a start waits for a free connector), {} "
                      "established, failures: {}; connect p50 {:.1f} ms, p99 {:.1f} ms, max {:.1f} ms\n",
                      attempted.load(), newcomers - 1, o.rate, connected.load(),
                      failures.text(), ms(cl.percentile(50)), ms(cl.percentile(99)), ms(cl.max()));
  const std::string json = fmt::format(
      R"({{"scenario":"storm","sessions":{},"inflight":{},"rate":{},"policy":"{}","quiet_requests":{},"quiet_p50_us":{:.1f},)"
      R"("quiet_p99_us":{:.1f},"quiet_max_us":{:.1f},"quiet_errors":{},"storm_requests":{},"storm_p50_us":{:.1f},)"
      R"("storm_p99_us":{:.1f},"storm_max_us":{:.1f},"storm_errors":{},"p99_ratio":{:.3f},"attempted":{},"established":{},)"
      R"("failures":{},"connect_p50_ms":{:.2f},"connect_p99_ms":{:.2f}}})",
      o.sessions, o.inflight, o.rate, o.policy, quiet.ok, us(quiet.latency.percentile(50)), us(quiet.latency.percentile(99)),
      us(quiet.latency.max()), quiet.errors, stormy.ok, us(stormy.latency.percentile(50)), us(stormy.latency.percentile(99)),
      us(stormy.latency.max()), stormy.errors, p99_ratio, attempted.load(), connected.load(), failures.json(),
      ms(cl.percentile(50)), ms(cl.percentile(99)));
  emit(o, text, json);
  // Not a result: nothing measured, or an established request failed (timed out). Refused
  // newcomers are the design working, not an error of the run.
  const bool ok = quiet.ok > 0 && stormy.ok > 0 && quiet.errors == 0 && stormy.errors == 0;
  if (!ok) std::fprintf(stderr, "uactor-load: the child's stderr: %s\n", child->log.c_str());
  else unlink(child->log.c_str());
  return ok ? 0 : 1;
}

}  // namespace

int run_session_scenario(const session_scenario_options& options, const std::string& own_dir) {
  if (options.scenario == "storm") return run_storm(options, own_dir);
  return run_sessions(options, own_dir);
}

}  // namespace uactor::scenarios
