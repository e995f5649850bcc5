// Fills a history store with one node's ramp, value i at START + i * STEP (i = 0 .. VALUES-1), as
// `uactor run` would have recorded it: records of the node's NodeId text and a DataValue (Double,
// Good, SourceTimestamp and ServerTimestamp both the ramp's time) appended through the store's API
// in batches of 64,000, the historian's joined transaction (docs/decisions/0083). For
// bench/history/history_read_ab.sh: the same ramp as tests/interop/node_history_server.js serves.
//
//   history_fill (--sqlite PATH | --postgres CONNINFO) NODE --values N [--start-ms MS] [--step-ms MS]
//
// Prints `fill store=.. values=N seconds=.. values_per_s=..`. SQLite: the file is created (an
// existing one is refused: the ramp would be stored twice) and closed, so that its WAL is
// checkpointed into it.
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

namespace {

[[noreturn]] void usage(const std::string& why) {
  std::fprintf(stderr,
               "history_fill: %s\nusage: history_fill (--sqlite PATH | --postgres CONNINFO) NODE --values N "
               "[--start-ms MS] [--step-ms MS]\n",
               why.c_str());
  std::exit(2);
}

constexpr std::size_t batch_values = 64'000;

}  // namespace

int main(int argc, char** argv) {
  std::string sqlite_path, conninfo, node;
  std::uint64_t values = 0;
  std::int64_t start_ms = 1'767'225'600'000;  // 2026-01-01T00:00:00Z
  std::int64_t step_ms = 1'000;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> std::string {
      if (i + 1 >= argc) usage(a + " needs a value");
      return argv[++i];
    };
    if (a == "--sqlite") sqlite_path = value();
    else if (a == "--postgres") conninfo = value();
    else if (a == "--values") values = std::strtoull(value().c_str(), nullptr, 10);
    else if (a == "--start-ms") start_ms = std::strtoll(value().c_str(), nullptr, 10);
    else if (a == "--step-ms") step_ms = std::strtoll(value().c_str(), nullptr, 10);
    else if (node.empty() && !a.starts_with("--")) node = a;
    else usage("unknown argument " + a);
  }
  if (node.empty() || sqlite_path.empty() == conninfo.empty()) usage("give NODE and one of --sqlite, --postgres");
  if (values == 0 || values > 100'000'000 || step_ms <= 0) usage("--values 1..100000000, --step-ms > 0");
  if (!sqlite_path.empty() && std::filesystem::exists(sqlite_path)) usage(sqlite_path + " exists");

  const auto begin = std::chrono::steady_clock::now();
  try {
    std::unique_ptr<history::history_store> store;
    if (!conninfo.empty()) {
      auto pg = std::make_unique<history::postgres_store>(conninfo);
      pg->connect();
      store = std::move(pg);
    } else {
      store = std::make_unique<history::sqlite_store>(sqlite_path);
    }
    std::vector<history::record> batch;
    batch.reserve(batch_values);
    for (std::uint64_t i = 0; i < values; ++i) {
      history::record r;
      r.node = node;
      r.value.set_value(static_cast<double>(i));
      r.value.source_timestamp = r.value.server_timestamp =
          ua::date_time::from_unix_ms(start_ms + static_cast<std::int64_t>(i) * step_ms);
      r.value.has_source_timestamp = r.value.has_server_timestamp = true;
      batch.push_back(std::move(r));
      if (batch.size() == batch_values || i + 1 == values) {
        store->append(batch);
        batch.clear();
      }
    }
  } catch (const history::store_error& e) {
    std::fprintf(stderr, "history_fill: %s\n", e.what());
    return 1;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
  std::printf("fill store=%s values=%llu seconds=%.2f values_per_s=%.0f\n", conninfo.empty() ? "sqlite" : "postgresql",
              static_cast<unsigned long long>(values), seconds, static_cast<double>(values) / seconds);
  return 0;
}
