// The plant file (docs/configuration.md): TOML read into the plain structures the embedding API
// takes (the server_plan with its endpoints, node descriptions, writer descriptions). No CAF, no sockets
// beyond the port check: tests use it directly. The caller owns what it returns.
#pragma once

#include <chrono>
#include <cstdint>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/mirror.hpp"
#include "uactor/nodes.hpp"
#include "uactor/scripts.hpp"
#include "uactor/server.hpp"
#include "uactor/server_plan.hpp"

namespace uactor::config {

// One mistake in a file: `plant.toml:12:7: server.endpoints[0].port: 70000 is out of range 0..65535`.
struct diagnostic {
  std::string file;
  std::uint32_t line = 0;    // 1-based; 0 when the mistake has no place (an unreadable file)
  std::uint32_t column = 0;
  std::string key;           // the dotted path of the key, e.g. variables[3].type
  std::string message;
  std::string to_string() const;
};

// A simulated signal (docs/architecture.md, "Writers"): one actor, one batch per tick for all its targets.
struct writer_spec {
  std::string kind;  // counter | ramp | sine | square | random_walk | steps
  std::chrono::milliseconds interval{1000};
  double min = 0;
  double max = 100;
  double step = 1;                            // counter, ramp, random_walk: the change per tick
  std::chrono::milliseconds period{10'000};   // sine, square
  std::vector<double> values;                 // steps: one per tick, round and round
  std::uint64_t seed = 1;                     // random_walk
  std::vector<node_id> targets;
  std::vector<ua::builtin_type> target_types; // the DataType of each target, for the conversion
};

// [[methods]]: a Method bound to a built-in handler (docs/configuration.md). set: no inputs, the
// targets get `values` (the file's value in each target's type); reset: the same with each
// target's initial value; write: one input per target, each written to its target.
struct method_spec {
  node_id id;
  std::string handler;  // set | reset | write
  std::vector<node_id> targets;
  std::vector<ua::variant> values;  // set, reset: one per target
};

struct logging_spec {
  std::string level = "info";     // trace | debug | info | warn | error | critical | off
  std::string format = "text";    // text | json (one JSON object a line)
  std::string file;               // empty: stderr
  std::uint64_t max_size = 10u << 20;  // rotation: bytes per file
  std::uint32_t max_files = 5;
};

// [metrics]: the HTTP listener of /metrics and /health (docs/configuration.md "Metrics").
struct metrics_spec {
  bool enabled = false;  // the section is present
  std::string listen_address = "127.0.0.1";
  std::uint16_t port = 9464;
  std::uint32_t max_connections = 16;  // HTTP connections at once; more are closed at accept
};

// [[nodesets]] and `uactor run --nodeset`: a NodeSet2 XML file, loaded before the plant's nodes.
struct nodeset_file {
  std::string path;
  nodeset_options options;  // accept_older_models: a warning instead of an error
};

// Everything a file says: one server, its [[server.endpoints]] in server.endpoints (always at
// least one: the default endpoint when the file names none).
struct plant {
  server_plan server;
  std::vector<std::string> namespaces;  // [[namespaces]] in order: indices 2, 3, ... (1 is the server's)
  std::vector<node_change> nodes;       // parents before children
  // Where each of `nodes` is defined (same order; the message empty): a node the server still
  // refuses at start is reported at its line and column, as the checker reports.
  std::vector<diagnostic> node_places;
  std::vector<method_spec> methods;      // their nodes are in `nodes`
  std::vector<writer_spec> writers;
  std::vector<app::mirror_spec> mirrors; // [[mirrors]] (docs/gateway.md), then `uactor run --mirror`
  script_plan scripts;                  // [scripts], [[virtual_tags]], [[calculations]], [[alarms]]
  std::vector<limit_alarm> limit_alarms; // [[limit_alarms]] (docs/events.md), after the nodes
  std::vector<off_normal_alarm> off_normal_alarms;  // [[off_normal_alarms]]
  std::vector<discrete_alarm> discrete_alarms;      // [[discrete_alarms]]
  std::vector<alarm_group> alarm_groups;            // [[alarm_groups]], added before the alarms
  std::vector<deviation_alarm> deviation_alarms;    // [[deviation_alarms]]
  std::vector<rate_of_change_alarm> rate_of_change_alarms;  // [[rate_of_change_alarms]]
  std::vector<trip_alarm> trip_alarms;                      // [[trip_alarms]]
  std::vector<discrepancy_alarm> discrepancy_alarms;        // [[discrepancy_alarms]]
  std::vector<file_node> files;                     // [[files]] (docs/files.md)
  // HasEventSource from an alarm's `notifier` to its input (deduplicated), so that the notifier's
  // event subscribers see the alarm's events (Part 3 §7.16).
  std::vector<reference_node> event_sources;
  // [[nodesets]] in order, then the --nodeset files: each parsed and checked against namespace 0
  // and the ones before it, and the plant's nodes against them (docs/configuration.md "NodeSets").
  std::vector<nodeset_file> nodesets;
  logging_spec logging;
  metrics_spec metrics;
  std::size_t threads = 2;              // [actors] threads
  // [actors] writers: on CAF's scheduler (its `threads`) or each on a thread of its own, so that a
  // writer of many targets never holds a worker the session host (session_host = "scheduler") or
  // in-process scripts wait for.
  std::string writer_placement = "scheduler";
};

struct load_result {
  plant value;
  std::vector<diagnostic> errors;  // every error of the file, in file order
  bool ok() const noexcept { return errors.empty(); }
};

// Parses and checks `text` (named `file_name` in the diagnostics; relative paths in it are taken
// relative to `base_dir`). `check_ports`: also refuse a port some other socket holds. `check_store`:
// also refuse a secured policy when the certificate store can neither give nor make the server
// certificate (security::own_identity_problem; the default store is $UACTOR_PKI or ./pki).
// `more_nodesets` (`uactor run --nodeset`) are checked and loaded after the file's [[nodesets]].
load_result load(std::string_view text, std::string_view file_name, std::string_view base_dir = ".",
                 bool check_ports = true, bool check_store = true, std::span<const nodeset_file> more_nodesets = {});
// Reads the file first (an unreadable file is one diagnostic without a line).
load_result load_file(const std::string& path, bool check_ports = true, bool check_store = true,
                      std::span<const nodeset_file> more_nodesets = {});

// The NodeId a node change adds or references from, as text ("?" for none): what messages name.
std::string node_change_id(const node_change& change);

// The embedded default (runtime/config/default.toml): today's `uactor run`.
std::string_view default_toml();

// Every key the parser knows, dotted, arrays of tables as `name[]` (server.endpoints[].port):
// docs/configuration.md documents each one (tests/runtime/config_doc_test.cpp).
std::span<const std::string_view> known_keys();

}  // namespace uactor::config
