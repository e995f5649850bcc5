// The event goal of docs/decisions/0018 through real connections: a child process serves (the embedding API,
// raise_events from one application thread: a batch of rate/100 events every 10 ms, half of them
// Severity 700, half 300, all "pump 1 tripped"); this process holds --sessions uactor::client
// connections on 127.0.0.1, each with a subscription (100 ms) and an event item on the Server object
// with 5 select clauses and the where clause Severity >= 500 And Message Like '%trip%' (half the
// events pass; event_bench's events.fanout in memory). After --warmup s the server measures
// --seconds s: its process CPU and heap allocations (every operator new of the process) less the
// application thread's own (its CPU clock and allocation counter). Unit: per delivered event
// (raised in the window / 2 x sessions); the clients check that every passing event came once.
// Run: build/bench/runtime/event_fanout_sockets [--rate 10000] [--sessions 20] [--seconds 10] [--warmup 3]
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <ctime>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "tests/support/alloc_counter.hpp"
#include "uactor/client.hpp"
#include "uactor/runtime.hpp"

using namespace uactor;
using namespace std::chrono_literals;

namespace {

struct options {
  unsigned rate = 10'000;  // events raised per second
  unsigned sessions = 20;
  unsigned seconds = 10;
  unsigned warmup = 3;
};

double cpu_us(clockid_t clock) {
  timespec t{};
  clock_gettime(clock, &t);
  return static_cast<double>(t.tv_sec) * 1e6 + static_cast<double>(t.tv_nsec) / 1e3;
}

// A line from the other process (blocking); empty at its end.
std::string read_line(FILE* in) {
  char buf[512];
  if (!std::fgets(buf, sizeof buf, in)) return {};
  std::string s(buf);
  if (!s.empty() && s.back() == '\n') s.pop_back();
  return s;
}

// The child: serves until the parent says `stop` (or closes the pipe).
int serve(const options& o, FILE* to_parent, FILE* from_parent) {
  runtime rt;
  auto plan = default_server_plan();
  plan.listen_address = "127.0.0.1";
  plan.port = 0;
  plan.security = {"none"};
  auto started = rt.start_server(plan);
  if (!started) {
    std::fprintf(to_parent, "failed %s\n", started.error().to_string().c_str());
    return 1;
  }
  server& srv = **started;
  std::fprintf(to_parent, "port %u\n", srv.port());
  std::fflush(to_parent);
  if (read_line(from_parent) != "go") return 1;

  const unsigned batch = o.rate / 100;
  std::vector<event> events(batch);
  for (unsigned i = 0; i < batch; ++i) {
    events[i].severity = i % 2 ? 700 : 300;
    events[i].message = ua::localized_text{ua::ua_string("en"), ua::ua_string("pump 1 tripped")};
    events[i].source_name = "Pump1";
  }
  // The application thread: paced by the clock, measured from inside (its own CPU and allocations
  // are subtracted from the process's).
  const unsigned warmup_ticks = o.warmup * 100, window_ticks = o.seconds * 100;
  double cpu0 = 0, app_cpu0 = 0;
  test::alloc_counts allocs0, app_allocs0;
  auto wall0 = std::chrono::steady_clock::now();
  const auto start = std::chrono::steady_clock::now();
  for (unsigned tick = 0; tick < warmup_ticks + window_ticks; ++tick) {
    std::this_thread::sleep_until(start + tick * 10ms);
    if (tick == warmup_ticks) {
      cpu0 = cpu_us(CLOCK_PROCESS_CPUTIME_ID);
      app_cpu0 = cpu_us(CLOCK_THREAD_CPUTIME_ID);
      allocs0 = test::process_alloc_counts();
      app_allocs0 = test::thread_alloc_counts();
      wall0 = std::chrono::steady_clock::now();
    }
    if (srv.raise_events(events) != status::good) return 1;
  }
  const double cpu = cpu_us(CLOCK_PROCESS_CPUTIME_ID) - cpu0;
  const double app_cpu = cpu_us(CLOCK_THREAD_CPUTIME_ID) - app_cpu0;
  const auto allocs = test::process_alloc_counts(), app_allocs = test::thread_alloc_counts();
  const double wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - wall0).count();
  std::fprintf(to_parent, "window raised=%llu wall_s=%.3f cpu_us=%.0f app_cpu_us=%.0f allocs=%llu app_allocs=%llu\n",
               static_cast<unsigned long long>(window_ticks) * batch, wall_s, cpu - app_cpu, app_cpu,
               static_cast<unsigned long long>(allocs.allocations - allocs0.allocations - (app_allocs.allocations - app_allocs0.allocations)),
               static_cast<unsigned long long>(app_allocs.allocations - app_allocs0.allocations));
  std::fprintf(to_parent, "total %llu\n", static_cast<unsigned long long>(warmup_ticks + window_ticks) * batch);
  std::fflush(to_parent);
  read_line(from_parent);  // `stop`
  return 0;
}

ua::event_filter where_filter() {
  event_filter_builder f;
  for (const char* n : {"EventId", "EventType", "SourceName", "Message", "Severity"}) f.select(n);
  f.min_severity(500);
  ua::content_filter_element like;
  like.filter_operator = ua::filter_operator::like;
  ua::literal_operand pattern;
  pattern.value = ua::variant(ua::ua_string("%trip%"));
  like.filter_operands = ua::ua_array<ua::extension_object>(
      std::vector<ua::extension_object>{ua::extension_object(event_field("Message")), ua::extension_object(std::move(pattern))});
  return f.where(std::move(like)).build();
}

// The parent: the subscribers.
int subscribe(const options& o, FILE* from_child, FILE* to_child) {
  const std::string port_line = read_line(from_child);
  if (port_line.rfind("port ", 0) != 0) {
    std::fprintf(stderr, "the server did not start: %s\n", port_line.c_str());
    return 1;
  }
  runtime rt;
  client_options co;
  co.endpoint_url = "opc.tcp://127.0.0.1:" + port_line.substr(5);
  std::vector<client> clients;
  auto counts = std::make_unique<std::atomic<std::uint64_t>[]>(o.sessions);
  for (unsigned i = 0; i < o.sessions; ++i) {
    auto c = rt.connect(co);
    if (!c) {
      std::fprintf(stderr, "connect %u: %s\n", i, c.error().to_string().c_str());
      return 1;
    }
    subscription_handlers h;
    h.on_events = [n = &counts[i]](std::uint32_t, std::uint32_t, std::span<const ua::event_field_list> e) {
      n->fetch_add(e.size(), std::memory_order_relaxed);
    };
    subscription_settings s;
    s.publishing_interval = 100ms;
    auto sub = c->create_subscription_sync(s, std::move(h));
    if (!sub) return std::fprintf(stderr, "subscription %u: %s\n", i, sub.error().to_string().c_str()), 1;
    ua::create_monitored_items_request req;
    req.subscription_id = sub->subscription_id;
    req.items_to_create.push_back(monitor_events(ua::node_id(0, server_object_id), 1, where_filter()));
    auto items = c->create_monitored_items_sync(std::move(req));
    if (!items || items->results.size() != 1 || items->results[0].status_code.is_bad())
      return std::fprintf(stderr, "event item %u refused\n", i), 1;
    clients.push_back(std::move(*c));
  }
  std::fputs("go\n", to_child);
  std::fflush(to_child);
  const std::string window = read_line(from_child);
  const std::string total_line = read_line(from_child);
  unsigned long long raised = 0, allocs = 0, app_allocs = 0, total = 0;
  double wall_s = 0, cpu = 0, app_cpu = 0;
  if (std::sscanf(window.c_str(), "window raised=%llu wall_s=%lf cpu_us=%lf app_cpu_us=%lf allocs=%llu app_allocs=%llu",
                  &raised, &wall_s, &cpu, &app_cpu, &allocs, &app_allocs) != 6 ||
      std::sscanf(total_line.c_str(), "total %llu", &total) != 1) {
    std::fprintf(stderr, "the server said: %s / %s\n", window.c_str(), total_line.c_str());
    return 1;
  }
  // Every passing event, once, at every subscriber: bounded wait for the last publishes.
  const auto deadline = std::chrono::steady_clock::now() + 10s;
  auto all_in = [&] {
    for (unsigned i = 0; i < o.sessions; ++i)
      if (counts[i].load() < total / 2) return false;
    return true;
  };
  while (!all_in() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(50ms);
  std::uint64_t short_sessions = 0, extra = 0, fewest = total;
  for (unsigned i = 0; i < o.sessions; ++i) {
    fewest = std::min<std::uint64_t>(fewest, counts[i].load());
    if (counts[i].load() < total / 2) ++short_sessions;
    if (counts[i].load() > total / 2) extra += counts[i].load() - total / 2;
  }
  for (auto& c : clients) c.close();
  std::fputs("stop\n", to_child);
  std::fflush(to_child);

  const double delivered = static_cast<double>(raised) / 2 * o.sessions;
  std::printf("events.sockets rate=%u/s sessions=%u window=%us: raised %.0f/s, delivered %.0f/s\n", o.rate, o.sessions,
              o.seconds, static_cast<double>(raised) / wall_s, delivered / wall_s);
  std::printf("  server CPU (without the application thread): %.0f ms/s = %.0f ns per delivered event\n",
              cpu / 1e3 / wall_s, cpu * 1e3 / delivered);
  std::printf("  server allocations: %.4f per delivered event (%llu in the window)\n", static_cast<double>(allocs) / delivered,
              allocs);
  std::printf("  application thread (raise_events): %.0f ms/s CPU, %.2f allocations per raised event\n",
              app_cpu / 1e3 / wall_s, static_cast<double>(app_allocs) / static_cast<double>(raised));
  std::printf("  subscribers: %llu events each expected, %llu session(s) short (fewest %llu), %llu extra events (overflow events)\n",
              total / 2, static_cast<unsigned long long>(short_sessions), static_cast<unsigned long long>(fewest),
              static_cast<unsigned long long>(extra));
  return short_sessions == 0 ? 0 : 1;
}

}  // namespace

int main(int argc, char** argv) {
  options o;
  for (int i = 1; i + 1 < argc; i += 2) {
    const unsigned v = static_cast<unsigned>(std::strtoul(argv[i + 1], nullptr, 10));
    if (!std::strcmp(argv[i], "--rate")) o.rate = v;
    else if (!std::strcmp(argv[i], "--sessions")) o.sessions = v;
    else if (!std::strcmp(argv[i], "--seconds")) o.seconds = v;
    else if (!std::strcmp(argv[i], "--warmup")) o.warmup = v;
    else return std::fprintf(stderr, "usage: %s [--rate N] [--sessions N] [--seconds S] [--warmup S]\n", argv[0]), 2;
  }
  if (o.rate < 100 || o.sessions == 0 || o.seconds == 0) return std::fprintf(stderr, "rate >= 100, sessions, seconds > 0\n"), 2;
  // Two processes before any thread starts: the child serves, this one subscribes.
  int down[2], up[2];
  if (pipe(down) != 0 || pipe(up) != 0) return 1;
  const pid_t child = fork();
  if (child < 0) return 1;
  if (child == 0) {
    close(down[1]);
    close(up[0]);
    FILE* from_parent = fdopen(down[0], "r");
    FILE* to_parent = fdopen(up[1], "w");
    std::_Exit(serve(o, to_parent, from_parent));  // no static destructors: CAF's teardown (0009)
  }
  close(down[0]);
  close(up[1]);
  FILE* to_child = fdopen(down[1], "w");
  FILE* from_child = fdopen(up[0], "r");
  const int rc = subscribe(o, from_child, to_child);
  std::fclose(to_child);
  int status = 0;
  waitpid(child, &status, 0);
  return rc;
}
