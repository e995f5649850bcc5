// `uactor load --agents HOST:PORT,...` (docs/distributed-load.md): the coordinator. It reaches
// every agent through CAF's middleman before anything starts (same version, the shared secret,
// each agent's clock offset), splits the scenario's sessions over them, gives them one start time
// in the near future, sums their progress, and merges what they measured (the log-linear
// histograms bucket by bucket, counts, errors, client figures) into one result with a row per
// agent. An agent lost mid-run is named and the result marked partial. CAF stays in the .cpp.
#pragma once

#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "runtime/process_stats.hpp"
#include "scenarios/agent_wire.hpp"
#include "scenarios/result.hpp"

namespace uactor::scenarios {

struct coordinator_options {
  std::vector<std::string> agents;  // HOST:PORT each
  std::string secret_file;
  std::string cert, key, cafile;    // TLS to the agents (all three, as the agents')
  bool json = false;
  std::string out;                  // --out: append the result here too
};

class coordinator {
public:
  explicit coordinator(coordinator_options options);
  ~coordinator();
  coordinator(const coordinator&) = delete;
  coordinator& operator=(const coordinator&) = delete;

  // Reaches every agent: "" or what is wrong (an unreachable agent, another version, a refused
  // secret), before any load or server starts.
  std::string connect();
  std::size_t agents() const;

  // Runs `whole` (every session of the scenario) split over the agents, prints the result block
  // (or JSON) and returns the exit status: 0 for a complete run without errors, else 1.
  // `server_stats` samples the child server at the window's edges (empty: no child).
  int run(const agent_job& whole, load_result result,
          const std::function<std::optional<app::process_stats>()>& server_stats);

private:
  struct impl;
  std::unique_ptr<impl> impl_;
};

// The files of the client's PKI folder (--security), for the agents' sessions.
std::string collect_pki_files(const std::string& dir, std::vector<pki_file>& out);

// The share of `sessions` that agent `index` of `agents` runs: as even as it gets, the first
// agents one more.
std::uint32_t sessions_of_agent(std::uint32_t sessions, std::size_t agents, std::size_t index);

}  // namespace uactor::scenarios
