// The result block of a load run (docs/performance.md "The load harness"): what ran, throughput,
// latency percentiles, and per request the figures of each process (server = the child, client =
// the harness), as text for people and as one JSON object per run for scripts (bench/ab.sh).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/process_stats.hpp"
#include "scenarios/latency_histogram.hpp"

namespace uactor::scenarios {

struct load_result {
  // What ran.
  std::string scenario;
  std::size_t sessions = 0;
  std::size_t inflight = 0;
  std::size_t nodes = 0;
  std::string items;        // what each item of a request names
  std::string client_kind;  // classic | shared
  std::string security;
  std::string unit = "request";  // what one completion is: a request, or (sub) a data change notification
  std::string target;       // where the load went
  std::size_t request_bytes = 0;   // floor and read: the bytes of one request and its response
  std::size_t response_bytes = 0;
  double warmup_s = 0;
  // The window.
  double window_s = 0;
  std::uint64_t requests = 0;  // completed with a good status
  std::uint64_t errors = 0;
  latency_histogram latency;   // ns
  app::process_stats client;
  std::optional<app::process_stats> server;  // none when the target is not our child
  std::optional<std::uint64_t> server_syscalls;   // --syscalls: strace -c -f over the window
  // sub --variables: every change the writer made must reach every item (consecutive ticks).
  std::optional<std::uint64_t> lost_changes;      // ticks missing per item, summed
  std::uint64_t repeated_changes = 0;             // a value not above the item's last one
  std::uint64_t overflows = 0;                    // values with the Overflow InfoBit
  std::uint64_t items_behind = 0;                 // items short of the window's last tick after the grace time
  // sub --faults (docs/decisions/0042): what the proxy injected and how the clients came back.
  struct fault_figures {
    std::string plan;                 // canonical: cut:2s:rst:both,stall:3s:6s
    std::uint64_t cuts = 0;
    std::uint64_t stalls = 0;
    std::vector<double> recovery_ms;  // per session and fault: link back to the first notification after it
    std::uint64_t unrecovered = 0;    // sessions that had not notified again within the bound (15 s)
    std::uint64_t losses = 0;         // connection losses the clients noticed
    std::uint64_t reconnects = 0;
    std::uint64_t requests_sent = 0;  // the Reads made beside the subscriptions
    std::uint64_t requests_failed = 0;
    std::uint64_t requests_connection_closed = 0;  // of those failed: in flight when a link went
    std::uint64_t data_lost_events = 0;
    // Nearest rank over the sorted samples, 0 without any.
    double recovery_percentile(double p) const;
  };
  std::optional<fault_figures> faults;

  double requests_per_s() const { return window_s > 0 ? static_cast<double>(requests) / window_s : 0; }
  double values_per_s() const {
    return unit == "request" ? requests_per_s() * static_cast<double>(nodes) : requests_per_s();  // a notification is one value
  }
};

std::string to_text(const load_result& r);
// One line of JSON (no trailing newline).
std::string to_json(const load_result& r);

}  // namespace uactor::scenarios
