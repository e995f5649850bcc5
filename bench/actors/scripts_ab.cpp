// The two script runners side by side in one run (docs/decisions/0020, docs/performance.md "Scripts"): the
// in-process runner and the shard supervisor with `uactor worker` processes, fed input changes as
// the session host feeds them (one message per batch of changes) and timed at their publish
// callback (where outputs become a value batch). The server's own hops are the same for both and
// left out. Figures:
//   paced     10,000 evaluations/s: 10 virtual tags changed per 1 ms tick, one message per tick
//             (batched) or one per change (unbatched), 100 tags in turn so that each changes
//             every 10 ms (a tag changed again before its run would be coalesced into one run);
//             CPU of this process and of the workers, % of one core over the phase
//   idle      one change, 2 ms apart: µs from the change sent to its output published, p50 / p99
//   alarms    1,000 alarm predicates flipped in one message: ms until all 1,000 are published,
//             p50 / p99 over the passes
//   batch     unpaced: 1,000 virtual tags changed in one message, the next once all 1,000 are
//             published: runs/s, host CPU and workers' CPU per run
//   shadow    idle and batch again in shadow mode (docs/decisions/0043): the published runner's
//             figures while the shadow runs and compares every run
//   kill      a runaway (T = 50 ms, G = 50 ms): ms past T + G until its worker is killed (its
//             output published) and until the shard is loaded again
//   rss       a worker's VmRSS, idle, after loading the set
// Run: build/bench/actors/scripts_ab [--seconds 3] [--worker build/cli/uactor-worker] [--workers 2]
//      [--caf-default-sleep]   (CAF's own work-stealing sleeps instead of tune_io's: the A/B of 0036)
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <condition_variable>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <mutex>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include <caf/all.hpp>

#include "actors/common/tune_io.hpp"
#include "actors/server/server_actors.hpp"
#include "actors/shards/runner.hpp"

using namespace uactor;
using namespace std::chrono_literals;
using clock_type = std::chrono::steady_clock;

namespace {

struct options {
  double seconds = 3;
  std::string worker;
  std::uint32_t workers = 2;
  bool caf_default_sleep = false;  // CAF's 50 µs moderate sleeps, as before docs/decisions/0036
};

// What the runner published, for the waiting bench thread.
struct sink {
  std::mutex m;
  std::condition_variable cv;
  std::uint64_t outputs = 0;
  clock_type::time_point last{};
  void publish(std::span<const scripting::output_value> out) {
    const auto now = clock_type::now();
    {
      std::lock_guard lock(m);
      outputs += out.size();
      last = now;
    }
    cv.notify_all();
  }
  // Waits for the count to reach `n` (bounded): the time it got there.
  std::optional<clock_type::time_point> wait(std::uint64_t n, std::chrono::milliseconds limit = 10s) {
    std::unique_lock lock(m);
    if (!cv.wait_for(lock, limit, [&] { return outputs >= n; })) return std::nullopt;
    return last;
  }
  std::uint64_t count() {
    std::lock_guard lock(m);
    return outputs;
  }
};

double cpu_seconds_self() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return static_cast<double>(u.ru_utime.tv_sec + u.ru_stime.tv_sec) +
         static_cast<double>(u.ru_utime.tv_usec + u.ru_stime.tv_usec) / 1e6;
}

double cpu_seconds_of(int pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/stat");
  std::string s((std::istreambuf_iterator<char>(f)), std::istreambuf_iterator<char>());
  const auto close = s.rfind(')');
  if (close == std::string::npos) return 0;
  std::istringstream in(s.substr(close + 2));
  std::string field;
  double utime = 0, stime = 0;
  for (int i = 3; i <= 15 && in >> field; ++i) {
    if (i == 14) utime = std::stod(field);
    if (i == 15) stime = std::stod(field);
  }
  return (utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

long rss_kb(int pid) {
  std::ifstream f("/proc/" + std::to_string(pid) + "/status");
  for (std::string line; std::getline(f, line);)
    if (line.starts_with("VmRSS:")) return std::stol(line.substr(6));
  return -1;
}

double percentile(std::vector<double> v, double p) {
  if (v.empty()) return 0;
  std::sort(v.begin(), v.end());
  return v[static_cast<std::size_t>(p * static_cast<double>(v.size() - 1))];
}

scripting::set_item tag(std::uint32_t slot, scripting::item_kind kind, std::string source) {
  scripting::set_item it;
  it.spec.kind = kind;
  it.spec.name = "item" + std::to_string(slot);
  it.spec.source = std::move(source);
  it.spec.input_names = {"x"};
  it.inputs = {slot};
  it.output_type = kind == scripting::item_kind::alarm ? ua::builtin_type::boolean : ua::builtin_type::double_;
  return it;
}

actors::input_changes_ptr changes(std::uint32_t first, std::uint32_t n, double value) {
  auto c = std::make_shared<actors::watched_changes>();
  for (std::uint32_t i = 0; i < n; ++i) {
    ua::data_value v;
    v.value = value;
    v.has_value = true;
    c->push_back({first + i, std::move(v)});
  }
  return c;
}

struct runner {
  caf::actor actor;
  std::shared_ptr<actors::script_counters> counters;
  std::shared_ptr<sink> out;
  std::shared_ptr<actors::script_counters> shadow;  // shadow mode: the shadow's (its workers)
  std::vector<int> worker_pids() const { return (shadow ? shadow : counters)->worker_pids(); }
};

enum class mode { in_process, out_of_process, shadow };
const char* name(mode m) {
  return m == mode::in_process ? "in_process" : m == mode::out_of_process ? "out_of_process" : "shadow";
}

runner start(caf::actor_system& sys, caf::actor host, bool oop, const options& o, std::vector<scripting::set_item> items,
             std::chrono::milliseconds soft = 1000ms, std::chrono::milliseconds grace = 1000ms, std::uint32_t workers = 0,
             bool flush_by_message = false) {
  actors::runner_setup setup;
  setup.flush_by_message = flush_by_message;
  setup.input_slots = items.size();
  setup.items = std::move(items);
  setup.soft_deadline = soft;
  setup.grace = grace;
  setup.limits.max_instructions = 0;
  setup.workers = workers ? workers : o.workers;
  setup.worker_program = o.worker;
  auto s = std::make_shared<sink>();
  setup.publish = [s](std::span<const scripting::output_value> out) { s->publish(out); };
  runner r{{}, setup.counters, s, {}};
  r.actor = oop ? actors::spawn_shard_supervisor(sys, std::move(setup), host)
                : actors::spawn_in_process_runner(sys, std::move(setup), host);
  if (oop) {
    for (int i = 0; i < 5000 && r.counters->workers_up < std::max<std::uint32_t>(workers ? workers : o.workers, 1); ++i)
      std::this_thread::sleep_for(1ms);
  }
  return r;
}

// Shadow mode (docs/decisions/0043): in process publishes, the shadow's workers compare.
runner start_shadowed(caf::actor_system& sys, caf::actor host, const options& o, std::vector<scripting::set_item> items) {
  actors::runner_setup setup;
  setup.input_slots = items.size();
  setup.items = std::move(items);
  setup.soft_deadline = 1000ms;
  setup.grace = 1000ms;
  setup.limits.max_instructions = 0;
  setup.workers = o.workers;
  setup.worker_program = o.worker;
  auto shadow = setup;
  shadow.counters = std::make_shared<actors::script_counters>();
  auto s = std::make_shared<sink>();
  setup.publish = [s](std::span<const scripting::output_value> out) { s->publish(out); };
  runner r{{}, setup.counters, s, shadow.counters};
  r.actor = actors::spawn_shadowed_runner(sys, std::move(setup), std::move(shadow), host);
  for (int i = 0; i < 5000 && r.shadow->workers_up < std::max<std::uint32_t>(o.workers, 1); ++i)
    std::this_thread::sleep_for(1ms);
  return r;
}

runner start(caf::actor_system& sys, caf::actor host, mode m, const options& o, std::vector<scripting::set_item> items) {
  return m == mode::shadow ? start_shadowed(sys, host, o, std::move(items))
                           : start(sys, host, m == mode::out_of_process, o, std::move(items));
}

std::string fmt_shadow(const actors::script_counters& c) {
  return "   shadow: compared " + std::to_string(c.shadow_compared.load()) + ", mismatches " +
         std::to_string(c.shadow_mismatches.load()) + ", unavailable " + std::to_string(c.shadow_unavailable.load());
}

void stop(runner& r) {
  caf::anon_send_exit(r.actor, caf::exit_reason::user_shutdown);
  r.actor = nullptr;
  std::this_thread::sleep_for(50ms);
}

void paced(caf::actor_system& sys, caf::actor host, bool oop, bool batched, const options& o) {
  constexpr std::uint32_t per_tick = 10;
  constexpr std::uint32_t tags = 100;  // tick t changes tags 10 (t mod 10) .. +9
  std::vector<scripting::set_item> items;
  for (std::uint32_t i = 0; i < tags; ++i) items.push_back(tag(i, scripting::item_kind::virtual_tag, "x * 2 + 1"));
  auto r = start(sys, host, oop, o, std::move(items));
  const auto pids = r.counters->worker_pids();
  const auto ticks = static_cast<std::uint64_t>(o.seconds * 1000);
  const double cpu0 = cpu_seconds_self();
  double workers0 = 0;
  for (int pid : pids) workers0 += cpu_seconds_of(pid);
  const auto evals0 = r.counters->evaluations.load();
  const auto t0 = clock_type::now();
  for (std::uint64_t t = 0; t < ticks; ++t) {
    std::this_thread::sleep_until(t0 + std::chrono::milliseconds(t));
    const auto first = static_cast<std::uint32_t>(t % (tags / per_tick)) * per_tick;
    if (batched) caf::anon_send(r.actor, changes(first, per_tick, static_cast<double>(t)));
    else
      for (std::uint32_t i = 0; i < per_tick; ++i) caf::anon_send(r.actor, changes(first + i, 1, static_cast<double>(t)));
  }
  std::this_thread::sleep_for(20ms);
  const double wall = std::chrono::duration<double>(clock_type::now() - t0).count();
  const double cpu = cpu_seconds_self() - cpu0;
  double workers = 0;
  for (int pid : pids) workers += cpu_seconds_of(pid);
  workers -= workers0;
  const auto evals = r.counters->evaluations.load() - evals0;
  // Behind its pace the runner coalesces (fewer runs than changes): CPU per run says what a run costs.
  const double per_eval = evals ? 1e6 * cpu / static_cast<double>(evals) : 0;
  std::printf("paced.%s.%s/10000   %6.0f evals/s   host CPU %5.1f %% (%5.1f us/eval)   workers CPU %5.1f %%\n",
              batched ? "batched" : "unbatched", oop ? "out_of_process" : "in_process",
              static_cast<double>(evals) / wall, 100 * cpu / wall, per_eval, 100 * workers / wall);
  stop(r);
}

// `old`: out of process with the old idle path (outputs flushed by a message to the supervisor).
void idle(caf::actor_system& sys, caf::actor host, bool oop, const options& o, bool old = false, bool shadowed = false) {
  auto r = shadowed ? start_shadowed(sys, host, o, {tag(0, scripting::item_kind::virtual_tag, "x * 2 + 1")})
                    : start(sys, host, oop, o, {tag(0, scripting::item_kind::virtual_tag, "x * 2 + 1")}, 1000ms, 1000ms, 0, old);
  r.out->wait(1);  // the first run (waiting for initial data) is published at start
  std::vector<double> us;
  for (int i = 0; i < 1000; ++i) {
    std::this_thread::sleep_for(2ms);
    const auto n = r.out->count();
    const auto t0 = clock_type::now();
    caf::anon_send(r.actor, changes(0, 1, i));
    const auto t1 = r.out->wait(n + 1);
    if (t1) us.push_back(std::chrono::duration<double, std::micro>(*t1 - t0).count());
  }
  std::printf("idle.single.%s%s   p50 %7.1f us   p99 %7.1f us   (%zu samples)%s\n",
              shadowed ? "shadow" : oop ? "out_of_process" : "in_process", old ? ".flush_by_message" : "",
              percentile(us, 0.5), percentile(us, 0.99), us.size(),
              shadowed ? fmt_shadow(*r.shadow).c_str() : "");
  stop(r);
}

void alarms(caf::actor_system& sys, caf::actor host, bool oop, const options& o) {
  constexpr std::uint32_t n = 1000;
  std::vector<scripting::set_item> items;
  for (std::uint32_t i = 0; i < n; ++i) items.push_back(tag(i, scripting::item_kind::alarm, "x > 80"));
  auto r = start(sys, host, oop, o, std::move(items));
  caf::anon_send(r.actor, changes(0, n, 10));
  r.out->wait(n);  // the first states (inactive) are written
  std::vector<double> ms;
  for (int pass = 0; pass < 50; ++pass) {
    std::this_thread::sleep_for(5ms);
    const auto before = r.out->count();
    const auto t0 = clock_type::now();
    caf::anon_send(r.actor, changes(0, n, pass % 2 == 0 ? 90 : 10));  // every alarm flips: 1,000 outputs
    const auto t1 = r.out->wait(before + n);
    if (t1) ms.push_back(std::chrono::duration<double, std::milli>(*t1 - t0).count());
  }
  std::printf("alarms.pass.%s/1000   p50 %6.2f ms   p99 %6.2f ms   (%zu passes)\n", oop ? "out_of_process" : "in_process",
              percentile(ms, 0.5), percentile(ms, 0.99), ms.size());
  stop(r);
}

// Unpaced: 1,000 virtual tags changed in one message, the next batch once all 1,000 outputs are
// published, for the phase's seconds: runs per second, host CPU (and the workers') per run.
void batch_throughput(caf::actor_system& sys, caf::actor host, mode m, const options& o) {
  constexpr std::uint32_t n = 1000;
  std::vector<scripting::set_item> items;
  for (std::uint32_t i = 0; i < n; ++i) items.push_back(tag(i, scripting::item_kind::virtual_tag, "x * 2 + 1"));
  auto r = start(sys, host, m, o, std::move(items));
  caf::anon_send(r.actor, changes(0, n, 0));
  r.out->wait(n);  // the first runs (and their workers warm)
  const auto pids = r.worker_pids();
  const double cpu0 = cpu_seconds_self();
  double workers0 = 0;
  for (int pid : pids) workers0 += cpu_seconds_of(pid);
  const auto evals0 = r.counters->evaluations.load();
  const auto t0 = clock_type::now();
  const auto until = t0 + std::chrono::duration<double>(o.seconds);
  std::uint64_t batches = 0;
  while (clock_type::now() < until) {
    const auto before = r.out->count();
    caf::anon_send(r.actor, changes(0, n, static_cast<double>(++batches)));
    if (!r.out->wait(before + n)) break;
  }
  const double wall = std::chrono::duration<double>(clock_type::now() - t0).count();
  const double cpu = cpu_seconds_self() - cpu0;
  double workers = 0;
  for (int pid : pids) workers += cpu_seconds_of(pid);
  workers -= workers0;
  const auto evals = r.counters->evaluations.load() - evals0;
  const double e = static_cast<double>(std::max<std::uint64_t>(evals, 1));
  std::printf("batch.throughput.%s/1000   %8.0f evals/s   (%llu batches)   host CPU %5.2f us/eval   workers CPU %5.2f us/eval%s\n",
              name(m), static_cast<double>(evals) / wall, static_cast<unsigned long long>(batches), 1e6 * cpu / e,
              1e6 * workers / e, r.shadow ? fmt_shadow(*r.shadow).c_str() : "");
  stop(r);
}

void kill_latency(caf::actor_system& sys, caf::actor host, const options& o) {
  std::vector<double> past, back;
  for (int round = 0; round < 5; ++round) {
    auto r = start(sys, host, true, o,
                   {tag(0, scripting::item_kind::virtual_tag, "(function() while x > 0 do end end)() or x")}, 50ms, 50ms, 1);
    caf::anon_send(r.actor, changes(0, 1, 0));
    r.out->wait(1);
    const auto kills0 = r.counters->kills.load();
    const auto t0 = clock_type::now();
    caf::anon_send(r.actor, changes(0, 1, 1));
    // Outputs: Bad_Timeout at T, the struck result at the kill (and Bad_ResourceUnavailable).
    for (int i = 0; i < 10000 && r.counters->kills == kills0; ++i) std::this_thread::sleep_for(100us);
    const auto killed = clock_type::now();
    for (int i = 0; i < 50000 && r.counters->workers_up == 0; ++i) std::this_thread::sleep_for(100us);
    const auto up = clock_type::now();
    past.push_back(std::chrono::duration<double, std::milli>(killed - t0).count() - 100.0);
    back.push_back(std::chrono::duration<double, std::milli>(up - killed).count());
    stop(r);
  }
  std::printf("kill.runaway (T 50 ms + G 50 ms)   past T+G p50 %5.1f ms max %5.1f ms   back in service p50 %5.1f ms max %5.1f ms\n",
              percentile(past, 0.5), percentile(past, 1.0), percentile(back, 0.5), percentile(back, 1.0));
}

void rss(caf::actor_system& sys, caf::actor host, const options& o) {
  std::vector<scripting::set_item> items;
  for (std::uint32_t i = 0; i < 100; ++i) items.push_back(tag(i, scripting::item_kind::virtual_tag, "x * 2 + 1"));
  auto r = start(sys, host, true, o, std::move(items));
  caf::anon_send(r.actor, changes(0, 100, 1));
  r.out->wait(100);
  std::this_thread::sleep_for(200ms);
  for (int pid : r.counters->worker_pids())
    std::printf("rss.worker (100 virtual tags loaded, idle)   pid %d   VmRSS %ld kB\n", pid, rss_kb(pid));
  stop(r);
}

// The actor the runners monitor (the session host in a server). A class, not a lambda: CAF 0.17
// spawns a lambda without arguments through a null argument tuple (UBSan: reference binding to a
// null pointer in init_fun_factory).
class idle_host : public caf::event_based_actor {
public:
  using caf::event_based_actor::event_based_actor;
  caf::behavior make_behavior() override { return {[](int) {}}; }
};

}  // namespace

int main(int argc, char** argv) {
  options o;
  for (int i = 1; i < argc; ++i) {
    if (!std::strcmp(argv[i], "--caf-default-sleep")) o.caf_default_sleep = true;
    else if (i + 1 >= argc) break;
    else if (!std::strcmp(argv[i], "--seconds")) o.seconds = std::stod(argv[++i]);
    else if (!std::strcmp(argv[i], "--worker")) o.worker = argv[++i];
    else if (!std::strcmp(argv[i], "--workers")) o.workers = static_cast<std::uint32_t>(std::stoul(argv[++i]));
  }
  if (o.worker.empty()) {
    char self[4096];
    const ssize_t n = readlink("/proc/self/exe", self, sizeof self - 1);
    std::string dir = n > 0 ? std::string(self, static_cast<std::size_t>(n)) : std::string();
    dir = dir.substr(0, dir.rfind('/'));                  // build/bench/actors
    o.worker = dir + "/../../cli/uactor-worker";
  }
  caf::actor_system_config cfg;
  cfg.set("scheduler.max-threads", 2);
  actors::tune_io(cfg);  // as the server's system (docs/decisions/0036)
  if (o.caf_default_sleep) cfg.set("work-stealing.moderate-sleep-duration", caf::timespan{std::chrono::microseconds(50)});
  caf::actor_system sys(cfg);
  // The runners end with the actor they monitor (the session host in a server): here a stand-in.
  auto host = sys.spawn<idle_host>();
  std::printf("scripts_ab: %s, %u worker(s), worker %s\n", "RelWithDebInfo", o.workers, o.worker.c_str());
  for (const bool batched : {true, false})
    for (const bool oop : {false, true}) paced(sys, host, oop, batched, o);
  for (const bool oop : {false, true}) idle(sys, host, oop, o);
  idle(sys, host, true, o, true);  // the A/B: the old idle path in the same run
  idle(sys, host, true, o);
  idle(sys, host, false, o, false, true);  // shadow mode: the published (in-process) latency
  for (const bool oop : {false, true}) alarms(sys, host, oop, o);
  for (const mode m : {mode::in_process, mode::out_of_process, mode::shadow}) batch_throughput(sys, host, m, o);
  kill_latency(sys, host, o);
  rss(sys, host, o);
  caf::anon_send_exit(host, caf::exit_reason::user_shutdown);
  return 0;
}
