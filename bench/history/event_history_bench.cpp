// Event history's recording (docs/history.md "Event history"): EVENTS events raised at the Server
// object through server_core (the demo namespace, no subscription), each recorded as a record of
// the notifier and handed on by flush_history in batches of 1,000, as the session host does; the
// sink keeps the batches. Then the batches are appended to a fresh SQLite file, as the historian
// does. Prints the host's part (raise_event and flush_history, thread CPU per event) and the
// store's (events per second, thread CPU per event).
// Usage: event_history_bench [EVENTS] [FOLDER]   (default: 100,000 events, the working folder)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <vector>
#include <time.h>
#include <filesystem>
#include <span>
#include <string>

#include "engine/server/server_core.hpp"
#include "history/sqlite_store.hpp"
#include "runtime/namespaces/demo_namespace.hpp"

using namespace uactor;
using clock_type = std::chrono::steady_clock;

namespace {

double thread_cpu_seconds() {
  timespec ts{};
  clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts);
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

}  // namespace

int main(int argc, char** argv) {
  const int events = argc > 1 ? std::max(1, std::atoi(argv[1])) : 100'000;
  const std::filesystem::path folder = argc > 2 ? argv[2] : ".";
  const auto path = (folder / "event_history_bench.sqlite").string();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  {
    actors::server_core_config c;
    c.description.application_uri = "urn:bench:uactor:server";
    c.description.endpoint_url = "opc.tcp://localhost:4840";
    c.sessions.random = [n = std::uint8_t{0}](std::span<std::uint8_t> out) mutable {
      for (auto& b : out) b = ++n;
    };
    const auto start = ua::date_time::from_unix_ms(1'767'225'600'000);
    auto core = actors::make_demo_server_core(std::move(c), "bench", start);
    auto store = std::make_shared<history::sqlite_store>(path);
    std::vector<std::vector<history::record>> batches;
    core.set_history(store, [&](std::vector<history::record>&& batch) {
      batches.push_back(std::move(batch));
      return true;
    });
    if (!core.set_event_history({ua::node_id(0, 2253)}).empty()) {
      std::fprintf(stderr, "no Server object\n");
      return 1;
    }
    event e;
    e.severity = 500;
    e.message = ua::localized_text{ua::ua_string("en"), ua::ua_string("a bench event")};
    double cpu_begin = thread_cpu_seconds();
    for (int i = 0; i < events; ++i) {
      const auto now = start.ticks + static_cast<std::int64_t>(i) * 10'000;
      actors::instant at{std::chrono::steady_clock::time_point{} + std::chrono::microseconds(i), ua::date_time{now}};
      e.time = ua::date_time{now};
      core.raise_event(e, at);
      if (i % 1'000 == 999) core.flush_history();  // the host flushes after each message
    }
    core.flush_history();
    const double host_cpu = thread_cpu_seconds() - cpu_begin;
    std::size_t stored = 0;
    cpu_begin = thread_cpu_seconds();
    const auto begin = clock_type::now();
    for (const auto& b : batches) {
      store->append(b);
      stored += b.size();
    }
    const double store_wall = std::chrono::duration<double>(clock_type::now() - begin).count();
    const double store_cpu = thread_cpu_seconds() - cpu_begin;
    std::printf("store: %s\n", path.c_str());
    std::printf("%d events raised, %zu records in %zu batches\n", events, stored, batches.size());
    std::printf("host (raise_event, record, flush_history): %.2f us CPU per event\n", host_cpu * 1e6 / events);
    std::printf("store appends: %.0f events/s, %.2f us CPU per event\n", static_cast<double>(stored) / store_wall,
                store_cpu * 1e6 / static_cast<double>(stored));
  }
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  return 0;
}
