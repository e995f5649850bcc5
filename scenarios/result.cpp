#include "scenarios/result.hpp"

#include <algorithm>

#include <fmt/format.h>

namespace uactor::scenarios {
namespace {

double per_request(std::uint64_t v, std::uint64_t requests) {
  return requests ? static_cast<double>(v) / static_cast<double>(requests) : 0.0;
}

double us(std::uint64_t ns) { return static_cast<double>(ns) / 1000.0; }

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

// The per-request figures of one process, as JSON fields prefixed with `who`.
std::string process_json(const char* who, const app::process_stats& s, std::uint64_t n) {
  std::string out = fmt::format(
      R"("{0}_cpu_user_us_per_req":{1:.3f},"{0}_cpu_system_us_per_req":{2:.3f},"{0}_cpu_us_per_req":{3:.3f},)"
      R"("{0}_vcsw_per_req":{4:.4f},"{0}_ivcsw_per_req":{5:.4f},"{0}_peak_rss_kb":{6},)",
      who, per_request(s.cpu_user_us, n), per_request(s.cpu_system_us, n),
      per_request(s.cpu_user_us + s.cpu_system_us, n), per_request(s.voluntary_switches, n),
      per_request(s.involuntary_switches, n), s.peak_rss_kb);
  if (s.allocations_counted)
    out += fmt::format(R"("{0}_allocs_per_req":{1:.3f},"{0}_alloc_bytes_per_req":{2:.1f})", who,
                       per_request(s.allocations, n), per_request(s.allocated_bytes, n));
  else
    out += fmt::format(R"("{0}_allocs_per_req":null,"{0}_alloc_bytes_per_req":null)", who);
  return out;
}

}  // namespace

double load_result::fault_figures::recovery_percentile(double p) const {
  if (recovery_ms.empty()) return 0;
  auto sorted = recovery_ms;
  std::sort(sorted.begin(), sorted.end());
  const auto at = std::min(sorted.size() - 1, static_cast<std::size_t>(p / 100.0 * static_cast<double>(sorted.size())));
  return sorted[at];
}

std::string to_text(const load_result& r) {
  std::string out;
  if (r.unit == "request")
    out += fmt::format("scenario {}: {} session{}, inflight {}, {} {} per request ({}), client {}, security {}\n",
                       r.scenario, r.sessions, r.sessions == 1 ? "" : "s", r.inflight, r.nodes,
                       r.scenario == "browse" ? (r.nodes == 1 ? "node" : "nodes") : (r.nodes == 1 ? "value" : "values"),
                       r.items, r.client_kind, r.security);
  else
    out += fmt::format("scenario {}: {} session{}, {}, client {}, security {}\n", r.scenario, r.sessions,
                       r.sessions == 1 ? "" : "s", r.items, r.client_kind, r.security);
  out += fmt::format("target: {}\n", r.target);
  if (r.request_bytes)
    out += fmt::format("bytes per request / response on the wire: {} / {}\n", r.request_bytes, r.response_bytes);
  out += fmt::format("window: {:.2f} s after {:.0f} s of warm-up: {} {}s, {} errors\n", r.window_s, r.warmup_s,
                     r.requests, r.unit, r.errors);
  if (r.unit == "request")
    out += fmt::format("throughput: {:.0f} requests/s, {:.0f} values/s\n", r.requests_per_s(), r.values_per_s());
  else
    out += fmt::format("throughput: {:.0f} {}s/s\n", r.requests_per_s(), r.unit);
  if (r.lost_changes)
    out += fmt::format("completeness: {} lost changes ({} items behind at the end), {} repeated, {} overflows\n",
                       *r.lost_changes, r.items_behind, r.repeated_changes, r.overflows);
  if (r.faults) {
    const auto& f = *r.faults;
    out += fmt::format("faults {}: {} injected ({} cuts, {} stalls); {} lost notifications, {} duplicates\n", f.plan,
                       f.cuts + f.stalls, f.cuts, f.stalls, r.lost_changes.value_or(0), r.repeated_changes);
    out += fmt::format("recovery (link back to the first notification after it, per session and fault, ms): n {}  p50 {:.1f}  "
                       "p99 {:.1f}  max {:.1f}; {} unrecovered; {} losses noticed, {} reconnects\n",
                       f.recovery_ms.size(), f.recovery_percentile(50), f.recovery_percentile(99),
                       f.recovery_percentile(100), f.unrecovered, f.losses, f.reconnects);
    out += fmt::format("requests (a Read per session every 100 ms): {} sent, {} failed ({} Bad_ConnectionClosed: in flight "
                       "at a loss); {} data_lost events\n",
                       f.requests_sent, f.requests_failed, f.requests_connection_closed, f.data_lost_events);
  }
  out += fmt::format("latency (µs): p50 {:.1f}  p90 {:.1f}  p99 {:.1f}  p99.9 {:.1f}  max {:.1f}\n",
                     us(r.latency.percentile(50)), us(r.latency.percentile(90)), us(r.latency.percentile(99)),
                     us(r.latency.percentile(99.9)), us(r.latency.max()));
  const auto n = r.requests + r.errors;
  const auto cell = [&](const std::optional<app::process_stats>& s, auto value) -> std::string {
    if (!s) return "n/a";
    return value(*s);
  };
  const std::optional<app::process_stats> client = r.client;
  const auto row = [&](const char* name, auto value) {
    out += fmt::format("  {:<26}{:>14}{:>14}\n", name, cell(r.server, value), cell(client, value));
  };
  out += fmt::format("  {:<26}{:>14}{:>14}\n", "per " + r.unit, "server", "client");
  row("CPU user (µs)", [&](const auto& s) { return fmt::format("{:.2f}", per_request(s.cpu_user_us, n)); });
  row("CPU system (µs)", [&](const auto& s) { return fmt::format("{:.2f}", per_request(s.cpu_system_us, n)); });
  row("CPU total (µs)",
      [&](const auto& s) { return fmt::format("{:.2f}", per_request(s.cpu_user_us + s.cpu_system_us, n)); });
  row("heap allocations", [&](const auto& s) {
    return s.allocations_counted ? fmt::format("{:.2f}", per_request(s.allocations, n)) : std::string("not counted");
  });
  row("bytes allocated", [&](const auto& s) {
    return s.allocations_counted ? fmt::format("{:.0f}", per_request(s.allocated_bytes, n)) : std::string("not counted");
  });
  row("voluntary ctx switches", [&](const auto& s) { return fmt::format("{:.3f}", per_request(s.voluntary_switches, n)); });
  row("involuntary ctx switches",
      [&](const auto& s) { return fmt::format("{:.3f}", per_request(s.involuntary_switches, n)); });
  if (r.server_syscalls)
    out += fmt::format("  {:<26}{:>14}{:>14}\n", "system calls (strace)", fmt::format("{:.2f}", per_request(*r.server_syscalls, n)), "");
  row("peak RSS (MB, whole run)", [&](const auto& s) { return fmt::format("{:.1f}", static_cast<double>(s.peak_rss_kb) / 1024.0); });
  return out;
}

std::string to_json(const load_result& r) {
  const auto n = r.requests + r.errors;
  std::string out = "{";
  out += fmt::format(R"("scenario":{},"sessions":{},"inflight":{},"nodes":{},"items":{},"client":{},"security":{},)",
                     json_string(r.scenario), r.sessions, r.inflight, r.nodes, json_string(r.items),
                     json_string(r.client_kind), json_string(r.security));
  out += fmt::format(R"("unit":{},)", json_string(r.unit));
  out += fmt::format(R"("target":{},"request_bytes":{},"response_bytes":{},"warmup_s":{:.3f},"window_s":{:.3f},)",
                     json_string(r.target), r.request_bytes, r.response_bytes, r.warmup_s, r.window_s);
  out += fmt::format(R"("requests":{},"errors":{},"requests_per_s":{:.1f},"values_per_s":{:.1f},)", r.requests,
                     r.errors, r.requests_per_s(), r.values_per_s());
  out += fmt::format(R"("latency_p50_us":{:.2f},"latency_p90_us":{:.2f},"latency_p99_us":{:.2f},)"
                     R"("latency_p999_us":{:.2f},"latency_max_us":{:.2f},)",
                     us(r.latency.percentile(50)), us(r.latency.percentile(90)), us(r.latency.percentile(99)),
                     us(r.latency.percentile(99.9)), us(r.latency.max()));
  if (r.server) out += process_json("server", *r.server, n) + ",";
  out += process_json("client", r.client, n);
  if (r.server_syscalls) out += fmt::format(R"(,"server_syscalls_per_req":{:.3f})", per_request(*r.server_syscalls, n));
  if (r.lost_changes)
    out += fmt::format(R"(,"lost_changes":{},"items_behind":{},"repeated_changes":{},"overflows":{})", *r.lost_changes,
                       r.items_behind, r.repeated_changes, r.overflows);
  if (r.faults) {
    const auto& f = *r.faults;
    out += fmt::format(R"(,"faults":{},"faults_injected":{},"faults_cut":{},"faults_stall":{},)"
                       R"("lost_notifications":{},"duplicate_notifications":{},)"
                       R"("recovery_n":{},"recovery_p50_ms":{:.2f},"recovery_p99_ms":{:.2f},"recovery_max_ms":{:.2f},)"
                       R"("unrecovered":{},"connection_losses":{},"reconnects":{},)"
                       R"("requests_sent":{},"requests_failed":{},"requests_failed_connection_closed":{},"data_lost_events":{})",
                       json_string(f.plan), f.cuts + f.stalls, f.cuts, f.stalls, r.lost_changes.value_or(0),
                       r.repeated_changes, f.recovery_ms.size(), f.recovery_percentile(50), f.recovery_percentile(99),
                       f.recovery_percentile(100), f.unrecovered, f.losses, f.reconnects, f.requests_sent,
                       f.requests_failed, f.requests_connection_closed, f.data_lost_events);
  }
  return out + "}";
}

}  // namespace uactor::scenarios
