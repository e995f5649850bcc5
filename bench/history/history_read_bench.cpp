// HistoryRead of one node over opc.tcp by our client, timed end to end (issue 31; docs/performance.md
// "HistoryRead raw of 1,000,000 values over opc.tcp, against node-opcua"). The node's history is
// the ramp history_fill and node_history_server.js make: value i at START + i * STEP.
//
// raw (default): ReadRawModifiedDetails (Part 11 §6.5.3) of [START, START + VALUES * STEP) with
// numValuesPerNode --page (Part 4 §5.10.3), following each continuation point (Part 4 §7.9) to
// the end; every value is checked (count, order, value, SourceTimestamp).
// --average-interval-ms MS: one ReadProcessedDetails (Part 11 §6.5.4) Average over the same range
// in intervals of MS (continuation points followed too); each interval's value is checked against
// the ramp's mean in it (Part 13 Average: the mean of the interval's raw values).
//
// Unit: per read, the wall time, values per second and, with --server-pid, the server process's
// CPU (utime + stime of /proc/PID/stat, every thread) per value; this process's CPU beside it.
// One line per read:
//   read label=L kind=raw values=N pages=P wall_s=.. values_per_s=.. server_cpu_s=.. server_cpu_ns_per_value=.. client_cpu_s=..
// Exit 0 when every read was complete and right, 1 otherwise (the first wrong value on stderr).
//
//   history_read_bench ENDPOINT NODE --values N [--start-ms MS] [--step-ms MS] [--page N]
//                      [--reads R] [--server-pid PID] [--label L] [--average-interval-ms MS]
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <fstream>
#include <optional>
#include <sstream>
#include <string>
#include <unistd.h>

#include "protocol/node_id_text.hpp"
#include "runtime/process_stats.hpp"
#include "uactor/client.hpp"

using namespace uactor;

namespace {

struct options {
  std::string endpoint;
  std::string node;
  std::uint64_t values = 0;
  std::int64_t start_ms = 1'767'225'600'000;  // 2026-01-01T00:00:00Z, as the fill's default
  std::int64_t step_ms = 1'000;
  std::uint32_t page = 10'000;
  int reads = 1;
  long server_pid = 0;
  std::string label = "server";
  double average_interval_ms = 0;  // 0: raw
};

// A page bound on every loop: a server that keeps answering continuation points ends the read.
constexpr std::uint64_t max_pages = 10'000'000;

[[noreturn]] void usage(const char* why) {
  std::fprintf(stderr,
               "history_read_bench: %s\nusage: history_read_bench ENDPOINT NODE --values N [--start-ms MS] [--step-ms MS] "
               "[--page N] [--reads R] [--server-pid PID] [--label L] [--average-interval-ms MS]\n",
               why);
  std::exit(2);
}

options parse(int argc, char** argv) {
  options o;
  int positional = 0;
  for (int i = 1; i < argc; ++i) {
    const std::string a = argv[i];
    const auto value = [&]() -> const char* {
      if (i + 1 >= argc) usage((a + " needs a value").c_str());
      return argv[++i];
    };
    if (a == "--values") o.values = std::strtoull(value(), nullptr, 10);
    else if (a == "--start-ms") o.start_ms = std::strtoll(value(), nullptr, 10);
    else if (a == "--step-ms") o.step_ms = std::strtoll(value(), nullptr, 10);
    else if (a == "--page") o.page = static_cast<std::uint32_t>(std::strtoul(value(), nullptr, 10));
    else if (a == "--reads") o.reads = std::atoi(value());
    else if (a == "--server-pid") o.server_pid = std::strtol(value(), nullptr, 10);
    else if (a == "--label") o.label = value();
    else if (a == "--average-interval-ms") o.average_interval_ms = std::strtod(value(), nullptr);
    else if (positional == 0 && !a.starts_with("--")) o.endpoint = a, ++positional;
    else if (positional == 1 && !a.starts_with("--")) o.node = a, ++positional;
    else usage(("unknown argument " + a).c_str());
  }
  if (positional != 2) usage("give ENDPOINT NODE");
  if (o.values == 0 || o.step_ms <= 0 || o.reads < 1 || o.reads > 1000 || o.average_interval_ms < 0)
    usage("--values, --step-ms and --reads must be positive");
  return o;
}

// utime + stime of a process, every thread, in seconds (proc(5): fields 14 and 15, after the
// command name in parentheses, which may hold spaces).
std::optional<double> process_cpu_seconds(long pid) {
  std::ifstream in("/proc/" + std::to_string(pid) + "/stat");
  std::string line;
  if (!pid || !std::getline(in, line)) return std::nullopt;
  const auto close = line.rfind(')');
  if (close == std::string::npos) return std::nullopt;
  std::istringstream fields(line.substr(close + 2));
  std::string field;
  unsigned long long utime = 0, stime = 0;
  for (int n = 3; n <= 15 && fields >> field; ++n) {  // field 3 is the state
    if (n == 14) utime = std::strtoull(field.c_str(), nullptr, 10);
    if (n == 15) stime = std::strtoull(field.c_str(), nullptr, 10);
  }
  return static_cast<double>(utime + stime) / static_cast<double>(sysconf(_SC_CLK_TCK));
}

double client_cpu_seconds() {
  const auto s = app::sample_process_stats();
  return static_cast<double>(s.cpu_user_us + s.cpu_system_us) / 1e6;
}

ua::date_time ramp_time(const options& o, std::uint64_t i) {
  return ua::date_time::from_unix_ms(o.start_ms + static_cast<std::int64_t>(i) * o.step_ms);
}

ua::history_read_request make_request(const options& o) {
  ua::history_read_request req;
  req.timestamps_to_return = ua::timestamps_to_return::both;
  req.nodes_to_read.resize(1);
  auto parsed = ua::parse_node_id(o.node);
  if (!parsed) usage(("not a NodeId: " + o.node).c_str());
  req.nodes_to_read[0].node_id = *parsed;
  if (o.average_interval_ms > 0) {
    ua::read_processed_details d;
    d.start_time = ramp_time(o, 0);
    d.end_time = ramp_time(o, o.values);
    d.processing_interval = o.average_interval_ms;
    d.aggregate_type.push_back(ua::node_id(0, 2342));  // AggregateFunction_Average (Part 13 §5.4.3.7)
    d.aggregate_configuration.use_server_capabilities_defaults = true;
    req.history_read_details = ua::extension_object(d);
  } else {
    ua::read_raw_modified_details d;
    d.start_time = ramp_time(o, 0);
    d.end_time = ramp_time(o, o.values);
    d.num_values_per_node = o.page;
    req.history_read_details = ua::extension_object(d);
  }
  return req;
}

// What a value should be: raw, the ramp's i-th; Average, the mean of the values in interval i.
struct expectation {
  double value = 0;
  ua::date_time time;
};

expectation expected_at(const options& o, std::uint64_t i) {
  if (o.average_interval_ms <= 0) return {static_cast<double>(i), ramp_time(o, i)};
  const double per_interval = o.average_interval_ms / static_cast<double>(o.step_ms);
  const double first = std::ceil(static_cast<double>(i) * per_interval);
  const double last = std::min(std::ceil(static_cast<double>(i + 1) * per_interval), static_cast<double>(o.values)) - 1;
  return {(first + last) / 2, ua::date_time{ramp_time(o, 0).ticks + static_cast<std::int64_t>(
                                                                         static_cast<double>(i) * o.average_interval_ms * 10'000)}};
}

std::uint64_t expected_count(const options& o) {
  if (o.average_interval_ms <= 0) return o.values;
  return static_cast<std::uint64_t>(std::ceil(static_cast<double>(o.values * o.step_ms) / o.average_interval_ms));
}

struct read_outcome {
  std::uint64_t values = 0;
  std::uint64_t pages = 0;
  bool right = true;
};

read_outcome read_all(client& c, const options& o) {
  auto req = make_request(o);
  read_outcome out;
  for (; out.pages < max_pages; ) {
    auto r = c.history_read_sync(req);
    ++out.pages;
    if (!r || r->results.size() != 1) {
      std::fprintf(stderr, "history_read_bench: HistoryRead failed: %s\n", r ? "results != 1" : r.error().to_string().c_str());
      return {out.values, out.pages, false};
    }
    const auto& result = r->results[0];
    if (result.status_code.is_bad()) {
      std::fprintf(stderr, "history_read_bench: page %llu: %s\n", static_cast<unsigned long long>(out.pages),
                   result.status_code.to_string().c_str());
      return {out.values, out.pages, false};
    }
    if (const auto* data = result.history_data.get_if<ua::history_data>()) {
      for (const auto& v : data->data_values) {
        const auto want = expected_at(o, out.values);
        const auto* got = v.value.get_if<double>();
        if (out.right && (!got || std::abs(*got - want.value) > 1e-9 * std::max(1.0, std::abs(want.value)) ||
                          v.source_timestamp != want.time)) {
          std::fprintf(stderr, "history_read_bench: value %llu: got %s at %lld, expected %.17g at %lld\n",
                       static_cast<unsigned long long>(out.values), got ? std::to_string(*got).c_str() : "no Double",
                       static_cast<long long>(v.source_timestamp.ticks), want.value, static_cast<long long>(want.time.ticks));
          out.right = false;
        }
        ++out.values;
      }
    }
    if (result.continuation_point.empty()) break;
    req.nodes_to_read[0].continuation_point = result.continuation_point;
  }
  if (out.values != expected_count(o)) {
    std::fprintf(stderr, "history_read_bench: %llu values, expected %llu\n", static_cast<unsigned long long>(out.values),
                 static_cast<unsigned long long>(expected_count(o)));
    out.right = false;
  }
  return out;
}

}  // namespace

int main(int argc, char** argv) {
  const options o = parse(argc, argv);
  client_options co;
  co.endpoint_url = o.endpoint;
  co.request_timeout = std::chrono::milliseconds(120'000);  // node-opcua filters the whole history on the first page
  auto c = client::connect(co);
  if (!c) {
    std::fprintf(stderr, "history_read_bench: cannot connect to %s: %s\n", o.endpoint.c_str(), c.error().to_string().c_str());
    return 1;
  }
  bool all_right = true;
  for (int n = 0; n < o.reads; ++n) {
    const auto server_before = process_cpu_seconds(o.server_pid);
    const double client_before = client_cpu_seconds();
    const auto t0 = std::chrono::steady_clock::now();
    const auto out = read_all(*c, o);
    const double wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
    const auto server_after = process_cpu_seconds(o.server_pid);
    const double client_cpu = client_cpu_seconds() - client_before;
    all_right = all_right && out.right;
    const double server_cpu = server_before && server_after ? *server_after - *server_before : -1;
    std::printf("read label=%s kind=%s values=%llu pages=%llu wall_s=%.3f values_per_s=%.0f server_cpu_s=%.2f "
                "server_cpu_ns_per_value=%.0f client_cpu_s=%.2f right=%s\n",
                o.label.c_str(), o.average_interval_ms > 0 ? "average" : "raw", static_cast<unsigned long long>(out.values),
                static_cast<unsigned long long>(out.pages), wall, static_cast<double>(out.values) / wall, server_cpu,
                server_cpu >= 0 && out.values ? server_cpu * 1e9 / static_cast<double>(out.values) : -1.0, client_cpu,
                out.right ? "yes" : "no");
    std::fflush(stdout);
  }
  c->close();
  return all_right ? 0 : 1;
}
