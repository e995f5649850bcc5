// The Prometheus text exposition of what `uactor run` counts (docs/configuration.md "Metrics"),
// written by prometheus-cpp's TextSerializer from plain samples taken at the scrape: no
// prometheus-cpp registry or counter on any service path (docs/decisions/0019).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "uactor/metrics.hpp"
#include "uactor/scripts.hpp"

namespace uactor::app {

// One server: `endpoint` labels its samples (its first endpoint's URL, as before a server had
// several); the per-endpoint connection counts are labelled with each endpoint's own URL.
struct endpoint_sample {
  std::string endpoint;  // opc.tcp://host:port, the `endpoint` label
  server_metrics metrics;
  script_metrics scripts;  // server::scripts_metrics() (docs/scripts.md)
  std::vector<std::string> endpoint_urls;  // server::endpoint_urls(), for server_metrics::endpoints
};

struct process_sample {
  double cpu_seconds = 0;        // user + system
  std::uint64_t resident_bytes = 0;
  std::uint64_t writer_cycles = 0;  // ticks of the plant's [[writers]]
  std::uint64_t writer_wait_ns = 0;  // plant_runner::writer_wait_ns
  std::uint64_t writer_waits = 0;
};

// This process now: CPU (getrusage) and resident set (/proc/self/statm).
process_sample sample_process();

std::string prometheus_text(const std::vector<endpoint_sample>& endpoints, const process_sample& process);

}  // namespace uactor::app
