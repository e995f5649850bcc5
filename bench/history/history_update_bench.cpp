// HistoryUpdate's Insert through the service (services::service_history_update, the checks and the
// store's transaction) into a fresh SQLite file: REQUESTS requests of VALUES new values each, in
// values per second (wall clock) and the process's CPU microseconds per value; then the same
// values replaced (Replace: the old ones kept as modified values, docs/decisions/0060). The
// service runs on the caller's thread here, as it does on the history reader in a server.
// Usage: history_update_bench [REQUESTS] [VALUES] [FOLDER]   (default: 200 requests of 1,000 values, the working folder)
#include <chrono>
#include <cstdio>
#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <string>

#include "engine/server/services/history_update.hpp"
#include "history/sqlite_store.hpp"
#include "uactor/ua/status_codes.hpp"

using namespace uactor;
using clock_type = std::chrono::steady_clock;

namespace {

struct round_figures {
  double seconds = 0;
  double cpu_seconds = 0;
  std::size_t good = 0;
};

round_figures run_round(history::history_store& store, const ua::address_space& as, const ua::node_id& node, int requests,
                        int values, std::int64_t t0, ua::perform_update_type how) {
  round_figures f;
  ua::history_update_response resp;
  const history::change who{t0, 0, "bench"};
  const auto begin = clock_type::now();
  const std::clock_t cpu_begin = std::clock();
  for (int r = 0; r < requests; ++r) {
    ua::update_data_details d;
    d.node_id = node;
    d.perform_insert_replace = how;
    for (int i = 0; i < values; ++i) {
      ua::data_value v;
      v.set_value(static_cast<double>(r * values + i));
      v.source_timestamp.ticks = t0 + (static_cast<std::int64_t>(r) * values + i) * 10'000;  // 1 ms apart
      v.has_source_timestamp = true;
      d.update_values.push_back(std::move(v));
    }
    ua::history_update_request req;
    req.history_update_details.push_back(ua::extension_object(std::move(d)));
    services::service_history_update(req, resp, as, &store, who);
    for (const auto& sc : resp.results.at(0).operation_results) f.good += sc.is_good() ? 1 : 0;
  }
  f.cpu_seconds = static_cast<double>(std::clock() - cpu_begin) / CLOCKS_PER_SEC;
  f.seconds = std::chrono::duration<double>(clock_type::now() - begin).count();
  return f;
}

void print_round(const char* what, const round_figures& f, int requests, int values) {
  const double n = static_cast<double>(requests) * values;
  std::printf("%-8s %d requests x %d values: %zu Good, %.0f values/s, %.2f us CPU per value, %.2f ms per request\n", what,
              requests, values, f.good, n / f.seconds, f.cpu_seconds * 1e6 / n, f.seconds * 1e3 / requests);
}

}  // namespace

int main(int argc, char** argv) {
  const int requests = argc > 1 ? std::max(1, std::atoi(argv[1])) : 200;
  const int values = argc > 2 ? std::max(1, std::atoi(argv[2])) : 1'000;
  const std::filesystem::path folder = argc > 3 ? argv[3] : ".";
  const auto path = (folder / "history_update_bench.sqlite").string();
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  {
    ua::address_space as;
    const ua::node_id node = ua::node_id::string(1, "Bench.Updated");
    ua::node_spec spec;
    spec.id = node;
    spec.cls = ua::node_class::variable;
    spec.browse_name = "Updated";
    spec.historizing = true;
    spec.access_level = spec.user_access_level = 0x0F;  // Read, Write, HistoryRead, HistoryWrite
    if (!as.add_node(std::move(spec))) {
      std::fprintf(stderr, "cannot add the node\n");
      return 1;
    }
    history::sqlite_store store(path);
    constexpr std::int64_t t0 = 133'000'000'000'000'000;  // 2022, in DateTime ticks
    std::printf("store: %s\n", path.c_str());
    print_round("insert", run_round(store, as, node, requests, values, t0, ua::perform_update_type::insert), requests, values);
    print_round("replace", run_round(store, as, node, requests, values, t0, ua::perform_update_type::replace), requests, values);
  }
  for (const char* suffix : {"", "-wal", "-shm"}) std::filesystem::remove(path + suffix);
  return 0;
}
