#include "cli/config_cli.hpp"

#include <unistd.h>

#include <algorithm>
#include <cstdio>
#include <iostream>

#include <CLI/CLI.hpp>

#include "cli/client_cli.hpp"
#include "security/password_hash.hpp"

namespace uactor::config {

namespace {

[[noreturn]] void finish(int code) { throw CLI::RuntimeError(code); }

bool report(const load_result& r) {
  for (const auto& e : r.errors) std::fprintf(stderr, "%s\n", e.to_string().c_str());
  if (!r.ok()) std::fprintf(stderr, "uactor: %zu error(s); nothing started\n", r.errors.size());
  return r.ok();
}

}  // namespace

void add_config_commands(CLI::App& app) {
  auto file = std::make_shared<std::string>();
  auto* check = app.add_subcommand("check-config", "check a plant file (every error with its line and column; exit 2)");
  check->add_option("file", *file, "the TOML file")->required();
  check->callback([file] {
    const auto r = load_file(*file);
    if (!report(r)) finish(2);
    std::size_t nodes = r.value.nodes.size();
    const std::size_t alarms = r.value.limit_alarms.size() + r.value.off_normal_alarms.size() +
                                 r.value.discrete_alarms.size() + r.value.deviation_alarms.size() +
                                 r.value.rate_of_change_alarms.size() + r.value.trip_alarms.size() +
                                 r.value.discrepancy_alarms.size();
    const std::string alarm_count = alarms ? ", " + std::to_string(alarms) + " alarm(s)" : std::string();
    std::printf("%s: ok (%zu endpoint(s), %zu namespace(s), %zu node(s), %zu writer(s)%s)\n", file->c_str(),
                r.value.server.endpoints.size(), r.value.namespaces.size(), nodes, r.value.writers.size(), alarm_count.c_str());
    finish(0);
  });

  auto* config = app.add_subcommand("config", "the embedded configuration");
  config->require_subcommand(1);
  auto* def = config->add_subcommand("default", "print the embedded default plant file (what `uactor run` serves)");
  def->callback([] {
    std::fwrite(default_toml().data(), 1, default_toml().size(), stdout);
    finish(0);
  });

  auto user = std::make_shared<std::string>();
  auto* hash = app.add_subcommand("hash-password",
                                  "read a password (one line on stdin) and print its PBKDF2 hash for [[users]] or a users file");
  hash->add_option("user", *user, "print USER:HASH (a users-file line) instead of the hash alone");
  hash->callback([user] {
    if (isatty(STDIN_FILENO)) std::fprintf(stderr, "password: ");
    std::string password;
    if (!std::getline(std::cin, password) || password.empty()) {
      std::fprintf(stderr, "uactor: hash-password: no password on stdin\n");
      finish(2);
    }
    const auto h = security::hash_password(password);
    std::printf("%s%s%s\n", user->c_str(), user->empty() ? "" : ":", h.c_str());
    finish(0);
  });
}

std::optional<plant> plant_for_run(const std::string& file, const server_plan& flags, const CLI::App& run,
                                   std::span<const nodeset_file> nodesets, bool reloading) {
  auto given = [&](const char* name) { return run.count(name) > 0; };
  // A --port on the command line replaces the file's: the file's port is not checked then.
  const bool check_ports = !given("--port") && !reloading;
  // Nor the store when --pki or --security replaces what the file says (a running server has one).
  const bool check_store = !given("--pki") && !given("--security") && !reloading;
  auto r = file.empty() ? load(default_toml(), "(default)", ".", check_ports, check_store, nodesets)
                        : load_file(file, check_ports, check_store, nodesets);
  if (!report(r)) return std::nullopt;
  plant p = std::move(r.value);
  auto& s = p.server;
  // Flags about an endpoint act on each endpoint (--port on the first only).
  for (std::size_t i = 0; i < s.endpoints.size(); ++i) {
    auto& e = s.endpoints[i];
    if (given("--port") && i == 0) e.port = flags.port;
    if (given("--host")) {
      e.host_name = flags.host_name;
      e.listen_address = flags.listen_address;
    }
    if (given("--security")) e.security = flags.security;
    if (given("--no-anonymous") && !flags.anonymous) std::erase(e.user_tokens, "anonymous");
  }
  if (given("--port")) s.port = flags.port;
  if (given("--host")) {
    s.host_name = flags.host_name;
    s.listen_address = flags.listen_address;
    s.application_uri = flags.application_uri;
  }
  if (given("--writer-interval")) s.writer_interval = flags.writer_interval;
  if (given("--load-variables")) s.load_variables = flags.load_variables;
  if (given("--session-host")) s.session_host = flags.session_host;
  if (given("--reverse-connect")) s.reverse_connect.insert(s.reverse_connect.end(), flags.reverse_connect.begin(), flags.reverse_connect.end());
  if (given("--wss-port")) {
    if (!s.wss) s.wss.emplace();
    s.wss->port = flags.wss->port;
  }
  if (given("--wss-allow-origin")) {
    if (!s.wss) s.wss.emplace();  // the origins apply to an endpoint --wss-port or the file makes
    s.wss->allowed_origins.insert(s.wss->allowed_origins.end(), flags.wss->allowed_origins.begin(), flags.wss->allowed_origins.end());
  }
  if (given("--max-connections")) s.max_connections = flags.max_connections;
  if (given("--max-sessions")) s.max_sessions = flags.max_sessions;
  if (given("--crypto-workers")) s.crypto_workers = flags.crypto_workers;
  if (given("--crypto-queue")) s.crypto_queue = flags.crypto_queue;
  if (given("--crypto-nice")) s.crypto_nice = flags.crypto_nice;
  if (given("--profile")) s.profile = flags.profile;
  if (given("--security")) s.security = flags.security;
  if (given("--pki")) s.pki_dir = flags.pki_dir;
  if (given("--users")) s.users_file = flags.users_file;
  if (given("--no-anonymous")) s.anonymous = flags.anonymous;
  // --redundancy and its flags replace the file's [redundancy] (the file's delay unless one is given).
  if (given("--redundancy")) {
    s.redundancy.support = flags.redundancy.support;
    if (!given("--shutdown-delay"))
      s.redundancy.shutdown_delay = flags.redundancy.support == redundancy_support::none ? std::chrono::milliseconds(0)
                                                                                          : flags.redundancy.shutdown_delay;
  }
  if (given("--redundant-server")) s.redundancy.server_uris = flags.redundancy.server_uris;
  if (given("--service-level")) s.redundancy.service_level = flags.redundancy.service_level;
  if (given("--shutdown-delay")) s.redundancy.shutdown_delay = flags.redundancy.shutdown_delay;
  if (s.redundancy.support != redundancy_support::none && s.redundancy.server_uris.empty()) {
    std::fprintf(stderr, "uactor: --redundancy %s needs --redundant-server (or [redundancy] server_uris)\n",
                 std::string(to_string(s.redundancy.support)).c_str());
    return std::nullopt;
  }
  s.trust.insert(s.trust.end(), flags.trust.begin(), flags.trust.end());
  s.users.insert(s.users.end(), flags.users.begin(), flags.users.end());
  return p;
}

bool add_cli_mirrors(plant& p, const std::vector<std::string>& flags) {
  bool ok = true;
  for (std::size_t k = 0; k < flags.size(); ++k) {
    const auto& flag = flags[k];
    auto bad = [&](const std::string& why) {
      std::fprintf(stderr, "uactor: --mirror %s: %s\n", flag.c_str(), why.c_str());
      ok = false;
    };
    app::mirror_spec m;
    m.name = "mirror" + std::to_string(k + 1);
    std::size_t at = flag.find(',');
    m.endpoint = flag.substr(0, at);
    if (!m.endpoint.starts_with("opc.tcp://") || m.endpoint.size() <= 10) {
      bad("\"" + m.endpoint + "\" is not an opc.tcp://host:port endpoint");
      continue;
    }
    bool nodes_ok = true;
    while (at != std::string::npos) {
      const auto next = flag.find(',', at + 1);
      const auto text = flag.substr(at + 1, next == std::string::npos ? std::string::npos : next - at - 1);
      at = next;
      auto id = ua::parse_node_id(text);
      if (!id) {
        bad("\"" + text + "\" is not a NodeId (e.g. ns=2;s=Line1.Speed or i=2258)");
        nodes_ok = false;
        continue;
      }
      if (std::find(m.nodes.begin(), m.nodes.end(), *id) != m.nodes.end()) {
        bad(id->to_string() + " is listed twice");
        nodes_ok = false;
        continue;
      }
      m.nodes.push_back(*id);
    }
    if (!nodes_ok) continue;
    if (m.nodes.empty()) {
      bad("no NodeId after the endpoint (ENDPOINT,NODE[,NODE...]: browsing a whole server is not supported yet)");
      continue;
    }
    for (const auto& other : p.mirrors)
      if (other.name == m.name) bad("its name " + m.name + " is a [[mirrors]] name of the file");
    p.mirrors.push_back(std::move(m));
  }
  return ok;
}

}  // namespace uactor::config
