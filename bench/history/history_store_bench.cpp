// The history store as the historian uses it: appends of batches of 1,000 Double values (one
// transaction each) spread over some nodes, in values per second; then raw reads of one node as
// HistoryRead pages them (1,000 and 10,000 values, forwards and backwards, from the middle of the
// node's history), in microseconds per page (docs/decisions/0048). SQLite: a fresh file in FOLDER
// (default: the working folder), removed at the end. PostgreSQL: the database of CONNINFO (a libpq
// connection string: its tables are created when missing and left there; each run's values are
// stamped from the time it starts, so that a run inserts new rows).
// Usage: [BATCH_VALUES=N] history_store_bench [BATCHES] [NODES] [FOLDER | --postgres CONNINFO]
//        (default: 200 batches of 1,000 values, 10 nodes)
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "history/postgres_store.hpp"
#include "history/sqlite_store.hpp"

using namespace uactor;
using clock_type = std::chrono::steady_clock;

namespace {

double micros(clock_type::duration d) { return std::chrono::duration<double, std::micro>(d).count(); }

double median(std::vector<double> v) {
  std::sort(v.begin(), v.end());
  return v[v.size() / 2];
}

}  // namespace

int main(int argc, char** argv) {
  const int batches = argc > 1 ? std::max(1, std::atoi(argv[1])) : 200;
  const int nodes = argc > 2 ? std::max(1, std::atoi(argv[2])) : 10;
  const bool postgres = argc > 4 && std::string(argv[3]) == "--postgres";
  const std::filesystem::path folder = argc > 3 && !postgres ? argv[3] : ".";
  const auto path = (folder / "history_store_bench.sqlite").string();
  if (!postgres)
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  // BATCH_VALUES: the values per append (the historian joins queued batches up to 64,000).
  const int batch_size = std::getenv("BATCH_VALUES") ? std::max(1, std::atoi(std::getenv("BATCH_VALUES"))) : 1'000;
  // From now: a database that keeps its tables from run to run gets new values each run (with the
  // same times every run, all but the first ran the duplicate path, ON CONFLICT DO NOTHING).
  const std::int64_t t0 = ua::date_time::from_unix_ms(std::chrono::duration_cast<std::chrono::milliseconds>(
                                                          std::chrono::system_clock::now().time_since_epoch())
                                                          .count())
                              .ticks;
  constexpr std::int64_t step = 10'000;                 // 1 ms
  {
    std::unique_ptr<history::history_store> opened;
    if (postgres) {
      auto pg = std::make_unique<history::postgres_store>(argv[4]);
      pg->connect();
      opened = std::move(pg);
    } else {
      opened = std::make_unique<history::sqlite_store>(path);
    }
    history::history_store& store = *opened;
    std::printf("store: %s\n", postgres ? "PostgreSQL" : path.c_str());
    std::vector<history::record> batch(batch_size);
    for (int i = 0; i < batch_size; ++i) batch[static_cast<std::size_t>(i)].node = "ns=1;s=Bench.Node" + std::to_string(i % nodes);
    std::vector<double> per_batch;
    const auto begin = clock_type::now();
    std::int64_t n = 0;
    for (int b = 0; b < batches; ++b) {
      for (auto& r : batch) {
        r.value.set_value(static_cast<double>(n));
        r.value.source_timestamp.ticks = r.value.server_timestamp.ticks = t0 + n * step;
        r.value.has_source_timestamp = r.value.has_server_timestamp = true;
        ++n;
      }
      const auto t = clock_type::now();
      store.append(batch);
      per_batch.push_back(micros(clock_type::now() - t));
    }
    const double seconds = std::chrono::duration<double>(clock_type::now() - begin).count();
    std::printf("append: %d batches of %d values over %d nodes: %.0f values/s (median batch %.0f us, max %.0f us)\n",
                batches, batch_size, nodes, static_cast<double>(n) / seconds, median(per_batch),
                *std::max_element(per_batch.begin(), per_batch.end()));

    const std::int64_t middle = t0 + n / 2 * step;
    for (const std::size_t page : {std::size_t{1'000}, std::size_t{10'000}}) {
      for (const bool reverse : {false, true}) {
        std::vector<double> times;
        std::size_t got = 0;
        for (int run = 0; run < 21; ++run) {
          history::raw_query q;
          q.node = "ns=1;s=Bench.Node0";
          q.from = reverse ? t0 : middle;
          q.to = reverse ? middle : t0 + n * step;
          q.reverse = reverse;
          q.limit = page;
          const auto t = clock_type::now();
          got = store.read_raw(q).values.size();
          times.push_back(micros(clock_type::now() - t));
        }
        std::printf("read: a page of %zu (%zu returned) %s: median %.0f us, max %.0f us\n", page, got,
                    reverse ? "backwards" : "forwards", median(times), *std::max_element(times.begin(), times.end()));
      }
    }
  }
  if (!postgres)
    for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  return 0;
}
