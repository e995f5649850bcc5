// What the coordinator and its load agents say to each other, beyond CAF's atoms and integers:
// the job an agent runs and the report it sends back, each one byte string in our own bounded
// encoding (docs/decisions/0021). Pure: no CAF, no sockets. The decoders take bytes that may come
// from anyone who reached the agent's port: every length, count and range is checked, and a
// blob that fails a check is refused whole with a sentence saying which check.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/process_stats.hpp"
#include "scenarios/latency_histogram.hpp"

namespace uactor::scenarios {

// Bumped when a field changes; the hello exchange compares it with the program's version.
inline constexpr std::uint32_t agent_protocol_version = 2;  // 2: no request-copy count in the report

// Limits of the wire form (a job is a few hundred bytes, a report at most ~30 KB).
inline constexpr std::size_t max_agent_blob = 1u << 20;
inline constexpr std::size_t max_pki_files = 16;
inline constexpr std::size_t max_pki_file_bytes = 32 * 1024;

// One file of the client's PKI folder (own certificate and key, the trusted server certificate),
// by its path relative to the folder: the agent recreates the folder for its sessions.
struct pki_file {
  std::string path;
  std::string content;
  friend bool operator==(const pki_file&, const pki_file&) = default;
};

// The share of a scenario one agent runs.
struct agent_job {
  std::string scenario;       // read | write | browse | sub | floor
  std::string client_kind;    // classic | shared
  std::uint32_t sessions = 1;
  std::uint32_t inflight = 1;
  std::uint32_t nodes = 1;
  std::string endpoint;       // opc.tcp://... (floor: tcp://host:port)
  // sub
  std::uint32_t subs = 1;
  std::uint32_t publishing_ms = 100;
  std::uint64_t sampling_us = 0;
  bool per_item = false;
  std::uint64_t variables = 0;
  std::uint64_t first_item = 0;   // the number of this agent's first monitored item over all agents
  std::uint32_t queue_size = 1;
  std::uint32_t write_interval_ms = 100;
  // floor
  std::uint64_t request_bytes = 0;
  std::uint64_t response_bytes = 0;
  // the OPC UA channel's security
  std::uint8_t security_mode = 0;  // 0 none, 1 sign, 2 sign and encrypt
  std::string policy;
  std::string application_uri;
  std::vector<pki_file> pki;
  // the timeline after the start time
  std::int64_t warmup_ns = 0;
  std::int64_t duration_ns = 0;
  friend bool operator==(const agent_job&, const agent_job&) = default;
};

// What one agent measured.
struct agent_report {
  bool complete = false;     // false: stopped early (asked to, or the coordinator was lost)
  std::string failure;       // why, when not complete
  std::uint64_t requests = 0;
  std::uint64_t errors = 0;
  latency_histogram latency;
  app::process_stats client;
  std::int64_t window_open_ns = 0;   // the agent's system clock, ns since the epoch
  std::int64_t window_close_ns = 0;
  bool has_completeness = false;     // sub --variables
  std::uint64_t lost_changes = 0;
  std::uint64_t repeated_changes = 0;
  std::uint64_t overflows = 0;
  std::uint64_t items_behind = 0;
};

// The scenarios an agent runs (a scenario added to the harness is refused by --agents until its
// driver is added to the agent's make_driver).
bool agent_runs_scenario(std::string_view scenario);

std::string encode(const agent_job& job);
std::string encode(const agent_report& report);
// nullopt and `error` set when the bytes are not a well-formed job / report within the limits.
std::optional<agent_job> decode_job(std::string_view bytes, std::string& error);
std::optional<agent_report> decode_report(std::string_view bytes, std::string& error);

}  // namespace uactor::scenarios
