// Two scenarios of many sessions against our server in a child process (docs/performance.md "Many sessions"):
// - sessions: ramps to N concurrent sessions (each its own connection and secure channel with the
//   chosen policy and mode, one subscription with one monitored item at 1 s, optional Reads),
//   holds them for the window and reports the establish rate, failures by status code,
//   notification loss, and the server's and the client's memory and CPU per session.
// - storm: an established Read load (--sessions x --inflight) measured in two windows of the
//   same run, quiet and then while new SignAndEncrypt + UserName sessions arrive at --rate per
//   second (each connects, activates, closes): p50/p99/max of the established latency in both,
//   and what became of the newcomers.
// Both raise this process's open-file limit to its hard limit (the child inherits it) and say so.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

namespace uactor::scenarios {

struct session_scenario_options {
  std::string scenario = "sessions";  // sessions | storm
  std::size_t sessions = 100;         // sessions: how many to hold; storm: the established load's sessions
  std::size_t inflight = 1;           // storm: Reads outstanding per established session
  std::size_t nodes = 1;              // values per Read
  std::string security = "encrypt";   // none | sign | encrypt: sessions: every session's; storm: the established load's
  std::string policy = "Basic256Sha256";
  double rate = 0;              // sessions: new sessions/s while ramping (0: as fast as the connectors go); storm: newcomers/s
  std::size_t connectors = 8;   // threads that open sessions at once
  double read_interval_s = 0;   // sessions: each session reads one value every interval (0: none)
  double duration_s = 10;       // sessions: the hold; storm: each window
  double warmup_s = 2;
  std::vector<std::string> server_args;  // more arguments for the child `uactor run`
  bool json = false;
  std::string out;  // append the result to FILE
};

// Runs the scenario against a child `uactor run` found in `own_dir`; the exit status of the run
// (0: it measured what it should and the goals' preconditions held: no failed session, no lost
// notification, no established request failed).
int run_session_scenario(const session_scenario_options& options, const std::string& own_dir);

}  // namespace uactor::scenarios
