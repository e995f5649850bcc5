// The messages between `uactor load --agents` (the coordinator) and `uactor agent`, over CAF's
// middleman (docs/distributed-load.md, docs/decisions/0021). Only CAF's built-in types travel:
// atoms, integers, booleans and strings; a job and a report are strings in agent_wire.hpp's
// bounded encoding, so there is no type to announce and nothing for CAF to build from a peer's
// bytes but strings.
//
//   coordinator -> agent                     agent -> coordinator
//   (ag_hello, nonce)                        (version, nonce, proof, system_now_ns, secret_required)
//   (ag_auth, mac)                           ok, or an error naming the refusal
//   (ag_clock)                               system_now_ns           (clock offset, NTP-style)
//   (ag_prep, job)                           ok once every session is connected, or an error
//   (ag_start, start_at_ns)                  ok                      (the agent's clock)
//   (ag_prog)                                completions so far      (progress line, heartbeat)
//   (ag_stop)                                ok                      (a report follows)
//                                            (ag_report, report)     after the window, or a stop
//                                            (ag_stopped)            sessions closed
#pragma once

#include <caf/atom.hpp>

#include <chrono>
#include <cstdint>
#include <optional>
#include <string>

namespace uactor::scenarios {

using ag_hello_atom = caf::atom_constant<caf::atom("ag_hello")>;
using ag_auth_atom = caf::atom_constant<caf::atom("ag_auth")>;
using ag_clock_atom = caf::atom_constant<caf::atom("ag_clock")>;
using ag_prep_atom = caf::atom_constant<caf::atom("ag_prep")>;
using ag_start_atom = caf::atom_constant<caf::atom("ag_start")>;
using ag_prog_atom = caf::atom_constant<caf::atom("ag_prog")>;
using ag_stop_atom = caf::atom_constant<caf::atom("ag_stop")>;
using ag_report_atom = caf::atom_constant<caf::atom("ag_report")>;
using ag_stopped_atom = caf::atom_constant<caf::atom("ag_stopped")>;
using ag_ok_atom = caf::atom_constant<caf::atom("ag_ok")>;

inline constexpr std::size_t agent_nonce_size = 32;

// What both sides must run: the program's version and the wire protocol's.
std::string agent_version();

// The shared secret of --secret-file: at least 16 bytes, at most 4 KiB, trailing whitespace
// dropped. nullopt and `error` set otherwise.
std::optional<std::string> read_secret_file(const std::string& path, std::string& error);

// The two proofs of the challenge (HMAC-SHA256 keyed with the secret, each over both nonces
// with its own label, so that neither can be replayed as the other).
std::string agent_proof(const std::string& secret, const std::string& coordinator_nonce, const std::string& agent_nonce);
std::string coordinator_proof(const std::string& secret, const std::string& agent_nonce,
                              const std::string& coordinator_nonce);
// Constant-time equality of two proofs.
bool same_proof(const std::string& a, const std::string& b);
std::string random_nonce();
// HOST:PORT (the last colon splits; the port 0 to 65535).
bool split_host_port(const std::string& s, std::string& host, std::uint16_t& port);

inline std::int64_t system_now_ns() {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(std::chrono::system_clock::now().time_since_epoch())
      .count();
}

}  // namespace uactor::scenarios
