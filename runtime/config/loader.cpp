// The plant file's parser and checker (docs/configuration.md). Every key is read through one
// section object that knows the key table, so that an unknown key is reported (with the closest
// known one) and the key table is what the documentation test reads.
#include "runtime/config/config.hpp"

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cctype>
#include <cerrno>
#include <cmath>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <map>
#include <optional>
#include <set>
#include <sstream>
#include <stdexcept>
#include <unordered_map>
#include <variant>

#include <fmt/format.h>
#include <toml++/toml.h>

#include "actors/client/endpoint_url.hpp"
#include "engine/server/access/roles.hpp"
#include "engine/server/ip_network.hpp"
#include "engine/server/node_builder.hpp"
#include "runtime/namespaces/demo_namespace.hpp"
#include "runtime/namespaces/load_namespace.hpp"
#include "nodeset/importer.hpp"
#include "protocol/address_space.hpp"
#include "protocol/node_id_text.hpp"
#include "protocol/value_text.hpp"
#include "pubsub/pubsub_config.hpp"
#include "pubsub/uadp_messages.hpp"
#include "scripting/engine.hpp"
#include "security/password_hash.hpp"
#include "security/pki_store.hpp"
#include "security/policy.hpp"

namespace uactor::config {

namespace {

// The key table: what the parser reads and docs/configuration.md documents, one line each.
constexpr std::string_view key_table[] = {
    "server",
    "server.host_name",
    "server.application_uri",
    "server.application_name",
    "server.product_uri",
    "server.product_name",
    "server.manufacturer_name",
    "server.namespace_uri",
    "server.demo",
    "server.demo_writer_interval_ms",
    "server.load_variables",
    "server.profile",
    "server.security",
    "server.anonymous",
    "server.user_tokens",
    "server.users_file",
    "server.max_connections",
    "server.max_sessions",
    "server.receive_buffer_size",
    "server.send_buffer_size",
    "server.max_message_size",
    "server.max_chunk_count",
    "server.max_nodes_per_operation",
    "server.audit_events",
    "server.alarm_chattering_count",
    "server.alarm_chattering_window_ms",
    "server.hello_timeout_ms",
    "server.max_token_lifetime_ms",
    "server.max_session_timeout_ms",
    "server.max_browse_continuation_points",
    "server.max_string_length",
    "server.max_array_length",
    "server.max_nesting_depth",
    "server.reverse_connect[]",
    "server.reverse_connect[].client_url",
    "server.reverse_connect[].endpoint_url",
    "server.reverse_connect[].max_connections",
    "server.reverse_connect[].backoff_min_ms",
    "server.reverse_connect[].backoff_max_ms",
    "server.wss_port",
    "server.wss_listen_address",
    "server.wss_security",
    "server.wss_allowed_origins",
    "server.wss_certificate",
    "server.wss_private_key",
    "server.wss_handshake_timeout_ms",
    "server.wss_max_pending_handshakes",
    "server.wss_transport",
    "server.endpoints[]",
    "server.endpoints[].port",
    "server.endpoints[].listen_address",
    "server.endpoints[].host_name",
    "server.endpoints[].security",
    "server.endpoints[].anonymous",
    "server.endpoints[].user_tokens",
    "pki",
    "pki.dir",
    "pki.trust",
    "pki.san",
    "pki.max_trust_list_size",
    "users[]",
    "users[].name",
    "users[].hash",
    "users[].roles",
    "roles[]",
    "roles[].name",
    "roles[].identities",
    "roles[].default_identities",
    "roles[].applications",
    "roles[].applications_exclude",
    "roles[].endpoints",
    "roles[].endpoints_exclude",
    "permissions[]",
    "permissions[].node",
    "permissions[].namespace",
    "permissions[].roles",
    "permissions[].restrictions",
    "namespaces[]",
    "namespaces[].uri",
    "nodesets[]",
    "nodesets[].path",
    "nodesets[].accept_older_models",
    "folders[]",
    "folders[].id",
    "folders[].parent",
    "folders[].browse_name",
    "folders[].display_name",
    "folders[].description",
    "folders[].count",
    "folders[].start",
    "objects[]",
    "objects[].id",
    "objects[].parent",
    "objects[].reference_type",
    "objects[].browse_name",
    "objects[].display_name",
    "objects[].description",
    "objects[].type",
    "objects[].event_notifier",
    "objects[].count",
    "objects[].start",
    "variables[]",
    "variables[].id",
    "variables[].parent",
    "variables[].reference_type",
    "variables[].browse_name",
    "variables[].display_name",
    "variables[].description",
    "variables[].type",
    "variables[].value",
    "variables[].access",
    "variables[].write_status",
    "variables[].write_timestamps",
    "variables[].historize",
    "variables[].minimum_sampling_interval",
    "variables[].eu_range",
    "variables[].units",
    "variables[].units.id",
    "variables[].units.name",
    "variables[].units.description",
    "variables[].count",
    "variables[].start",
    "methods[]",
    "methods[].id",
    "methods[].parent",
    "methods[].browse_name",
    "methods[].display_name",
    "methods[].description",
    "methods[].handler",
    "methods[].targets",
    "methods[].value",
    "writers[]",
    "writers[].kind",
    "writers[].interval_ms",
    "writers[].targets",
    "writers[].count",
    "writers[].start",
    "writers[].min",
    "writers[].max",
    "writers[].step",
    "writers[].period_ms",
    "writers[].values",
    "writers[].seed",
    "mirrors[]",
    "mirrors[].name",
    "mirrors[].endpoint",
    "mirrors[].nodes",
    "mirrors[].subtrees",
    "mirrors[].max_nodes",
    "mirrors[].security",
    "mirrors[].sampling_interval_ms",
    "mirrors[].publishing_interval_ms",
    "mirrors[].on_loss",
    "scripts",
    "scripts.runner",
    "scripts.workers",
    "scripts.memory_mb",
    "scripts.max_instructions",
    "scripts.soft_deadline_ms",
    "scripts.grace_ms",
    "scripts.strikes",
    "scripts.worker_address_space_mb",
    "scripts.shadow_queue",
    "virtual_tags[]",
    "virtual_tags[].name",
    "virtual_tags[].output",
    "virtual_tags[].inputs",
    "virtual_tags[].expression",
    "calculations[]",
    "calculations[].name",
    "calculations[].output",
    "calculations[].inputs",
    "calculations[].script",
    "calculations[].period_ms",
    "calculations[].schedule",
    "alarms[]",
    "alarms[].name",
    "alarms[].output",
    "alarms[].inputs",
    "alarms[].predicate",
    "alarms[].on_delay_ms",
    "alarms[].off_delay_ms",
    "alarms[].hysteresis",
    "limit_alarms[]",
    "limit_alarms[].id",
    "limit_alarms[].input",
    "limit_alarms[].name",
    "limit_alarms[].notifier",
    "limit_alarms[].enabled",
    "limit_alarms[].max_time_shelved_ms",
    "limit_alarms[].suppressed_by",
    "limit_alarms[].max_branches",
    "limit_alarms[].on_delay_ms",
    "limit_alarms[].off_delay_ms",
    "limit_alarms[].re_alarm_time_ms",
    "limit_alarms[].re_alarm_max_count",
    "limit_alarms[].latching",
    "limit_alarms[].high_high",
    "limit_alarms[].high",
    "limit_alarms[].low",
    "limit_alarms[].low_low",
    "limit_alarms[].deadband",
    "limit_alarms[].high_high_deadband",
    "limit_alarms[].high_deadband",
    "limit_alarms[].low_deadband",
    "limit_alarms[].low_low_deadband",
    "limit_alarms[].severity_high_high",
    "limit_alarms[].severity_high",
    "limit_alarms[].severity_low",
    "limit_alarms[].severity_low_low",
    "limit_alarms[].exclusive",
    "off_normal_alarms[]",
    "off_normal_alarms[].id",
    "off_normal_alarms[].input",
    "off_normal_alarms[].name",
    "off_normal_alarms[].notifier",
    "off_normal_alarms[].enabled",
    "off_normal_alarms[].max_time_shelved_ms",
    "off_normal_alarms[].suppressed_by",
    "off_normal_alarms[].max_branches",
    "off_normal_alarms[].on_delay_ms",
    "off_normal_alarms[].off_delay_ms",
    "off_normal_alarms[].re_alarm_time_ms",
    "off_normal_alarms[].re_alarm_max_count",
    "off_normal_alarms[].latching",
    "off_normal_alarms[].normal",
    "off_normal_alarms[].severity",
    "files[]",
    "files[].id",
    "files[].name",
    "files[].parent",
    "files[].path",
    "files[].writable",
    "files[].max_size",
    "deviation_alarms[]",
    "deviation_alarms[].id",
    "deviation_alarms[].input",
    "deviation_alarms[].name",
    "deviation_alarms[].notifier",
    "deviation_alarms[].enabled",
    "deviation_alarms[].max_time_shelved_ms",
    "deviation_alarms[].suppressed_by",
    "deviation_alarms[].max_branches",
    "deviation_alarms[].on_delay_ms",
    "deviation_alarms[].off_delay_ms",
    "deviation_alarms[].re_alarm_time_ms",
    "deviation_alarms[].re_alarm_max_count",
    "deviation_alarms[].latching",
    "deviation_alarms[].high_high",
    "deviation_alarms[].high",
    "deviation_alarms[].low",
    "deviation_alarms[].low_low",
    "deviation_alarms[].deadband",
    "deviation_alarms[].high_high_deadband",
    "deviation_alarms[].high_deadband",
    "deviation_alarms[].low_deadband",
    "deviation_alarms[].low_low_deadband",
    "deviation_alarms[].severity_high_high",
    "deviation_alarms[].severity_high",
    "deviation_alarms[].severity_low",
    "deviation_alarms[].severity_low_low",
    "deviation_alarms[].exclusive",
    "deviation_alarms[].setpoint",
    "deviation_alarms[].base_setpoint",
    "rate_of_change_alarms[]",
    "rate_of_change_alarms[].id",
    "rate_of_change_alarms[].input",
    "rate_of_change_alarms[].name",
    "rate_of_change_alarms[].notifier",
    "rate_of_change_alarms[].enabled",
    "rate_of_change_alarms[].max_time_shelved_ms",
    "rate_of_change_alarms[].suppressed_by",
    "rate_of_change_alarms[].max_branches",
    "rate_of_change_alarms[].on_delay_ms",
    "rate_of_change_alarms[].off_delay_ms",
    "rate_of_change_alarms[].re_alarm_time_ms",
    "rate_of_change_alarms[].re_alarm_max_count",
    "rate_of_change_alarms[].latching",
    "rate_of_change_alarms[].high_high",
    "rate_of_change_alarms[].high",
    "rate_of_change_alarms[].low",
    "rate_of_change_alarms[].low_low",
    "rate_of_change_alarms[].deadband",
    "rate_of_change_alarms[].high_high_deadband",
    "rate_of_change_alarms[].high_deadband",
    "rate_of_change_alarms[].low_deadband",
    "rate_of_change_alarms[].low_low_deadband",
    "rate_of_change_alarms[].severity_high_high",
    "rate_of_change_alarms[].severity_high",
    "rate_of_change_alarms[].severity_low",
    "rate_of_change_alarms[].severity_low_low",
    "rate_of_change_alarms[].exclusive",
    "rate_of_change_alarms[].window_ms",
    "rate_of_change_alarms[].units",
    "rate_of_change_alarms[].units.id",
    "rate_of_change_alarms[].units.name",
    "rate_of_change_alarms[].units.description",
    "alarm_groups[]",
    "alarm_groups[].id",
    "alarm_groups[].name",
    "alarm_groups[].parent",
    "limit_alarms[].groups",
    "off_normal_alarms[].groups",
    "discrete_alarms[].groups",
    "deviation_alarms[].groups",
    "rate_of_change_alarms[].groups",
    "discrete_alarms[]",
    "discrete_alarms[].id",
    "discrete_alarms[].input",
    "discrete_alarms[].name",
    "discrete_alarms[].notifier",
    "discrete_alarms[].enabled",
    "discrete_alarms[].max_time_shelved_ms",
    "discrete_alarms[].suppressed_by",
    "discrete_alarms[].max_branches",
    "discrete_alarms[].on_delay_ms",
    "discrete_alarms[].off_delay_ms",
    "discrete_alarms[].re_alarm_time_ms",
    "discrete_alarms[].re_alarm_max_count",
    "discrete_alarms[].latching",
    "discrete_alarms[].active",
    "discrete_alarms[].severity",
    "trip_alarms[]",
    "trip_alarms[].id",
    "trip_alarms[].input",
    "trip_alarms[].name",
    "trip_alarms[].notifier",
    "trip_alarms[].enabled",
    "trip_alarms[].max_time_shelved_ms",
    "trip_alarms[].suppressed_by",
    "trip_alarms[].max_branches",
    "trip_alarms[].on_delay_ms",
    "trip_alarms[].off_delay_ms",
    "trip_alarms[].re_alarm_time_ms",
    "trip_alarms[].re_alarm_max_count",
    "trip_alarms[].latching",
    "trip_alarms[].groups",
    "trip_alarms[].normal",
    "trip_alarms[].severity",
    "discrepancy_alarms[]",
    "discrepancy_alarms[].id",
    "discrepancy_alarms[].input",
    "discrepancy_alarms[].name",
    "discrepancy_alarms[].notifier",
    "discrepancy_alarms[].enabled",
    "discrepancy_alarms[].max_time_shelved_ms",
    "discrepancy_alarms[].suppressed_by",
    "discrepancy_alarms[].max_branches",
    "discrepancy_alarms[].on_delay_ms",
    "discrepancy_alarms[].off_delay_ms",
    "discrepancy_alarms[].re_alarm_time_ms",
    "discrepancy_alarms[].re_alarm_max_count",
    "discrepancy_alarms[].latching",
    "discrepancy_alarms[].groups",
    "discrepancy_alarms[].target",
    "discrepancy_alarms[].expected_time_ms",
    "discrepancy_alarms[].tolerance",
    "discrepancy_alarms[].severity",
    "logging",
    "logging.level",
    "logging.format",
    "logging.file",
    "logging.max_size",
    "logging.max_files",
    "metrics",
    "metrics.listen_address",
    "metrics.port",
    "metrics.max_connections",
    "redundancy",
    "redundancy.support",
    "redundancy.server_uris",
    "redundancy.service_level",
    "redundancy.shutdown_delay_ms",
    "discovery",
    "discovery.register_with",
    "discovery.security",
    "discovery.policy",
    "discovery.period_s",
    "discovery.capabilities",
    "discovery.lds",
    "discovery.max_registrations",
    "discovery.expiry_s",
    "history",
    "history.backend",
    "history.path",
    "history.connection",
    "history.retention_days",
    "history.max_values_per_node",
    "history.historize",
    "history.updates",
    "history.events",
    "history.spool",
    "history.spool_max_mb",
    "history.defaults",
    "history.defaults.stepped",
    "history.defaults.definition",
    "history.defaults.treat_uncertain_as_bad",
    "history.defaults.percent_data_bad",
    "history.defaults.percent_data_good",
    "history.defaults.use_sloped_extrapolation",
    "history.defaults.min_time_interval_ms",
    "history.defaults.max_time_interval_ms",
    "history.defaults.exception_deviation",
    "history.defaults.exception_deviation_format",
    "history.configurations[]",
    "history.configurations[].nodes",
    "history.configurations[].stepped",
    "history.configurations[].definition",
    "history.configurations[].treat_uncertain_as_bad",
    "history.configurations[].percent_data_bad",
    "history.configurations[].percent_data_good",
    "history.configurations[].use_sloped_extrapolation",
    "history.configurations[].min_time_interval_ms",
    "history.configurations[].max_time_interval_ms",
    "history.configurations[].exception_deviation",
    "history.configurations[].exception_deviation_format",
    "pubsub",
    "pubsub.connections[]",
    "pubsub.connections[].name",
    "pubsub.connections[].url",
    "pubsub.connections[].publisher_id",
    "pubsub.connections[].publisher_id_type",
    "pubsub.connections[].encoding",
    "pubsub.connections[].multicast_interface",
    "pubsub.connections[].multicast_ttl",
    "pubsub.connections[].multicast_loop",
    "pubsub.connections[].max_datagram",
    "pubsub.connections[].receive_buffer",
    "pubsub.connections[].max_chunked_message_size",
    "pubsub.connections[].chunk_timeout_ms",
    "pubsub.connections[].chunks_in_flight",
    "pubsub.connections[].client_id",
    "pubsub.connections[].username",
    "pubsub.connections[].password",
    "pubsub.connections[].topic_prefix",
    "pubsub.connections[].keep_alive_ms",
    "pubsub.connections[].reconnect_min_ms",
    "pubsub.connections[].reconnect_max_ms",
    "pubsub.connections[].queue_limit",
    "pubsub.connections[].writer_groups[]",
    "pubsub.connections[].writer_groups[].name",
    "pubsub.connections[].writer_groups[].id",
    "pubsub.connections[].writer_groups[].publishing_interval_ms",
    "pubsub.connections[].writer_groups[].keep_alive_ms",
    "pubsub.connections[].writer_groups[].max_network_message_size",
    "pubsub.connections[].writer_groups[].qos",
    "pubsub.connections[].writer_groups[].writers[]",
    "pubsub.connections[].writer_groups[].writers[].name",
    "pubsub.connections[].writer_groups[].writers[].id",
    "pubsub.connections[].writer_groups[].writers[].key_frame_count",
    "pubsub.connections[].writer_groups[].writers[].encoding",
    "pubsub.connections[].writer_groups[].writers[].variables",
    "pubsub.connections[].writer_groups[].writers[].dataset_name",
    "pubsub.connections[].readers[]",
    "pubsub.connections[].readers[].name",
    "pubsub.connections[].readers[].publisher_id",
    "pubsub.connections[].readers[].writer_group",
    "pubsub.connections[].readers[].writer_group_id",
    "pubsub.connections[].readers[].fields",
    "pubsub.connections[].readers[].writer_id",
    "pubsub.connections[].readers[].message_receive_timeout_ms",
    "pubsub.connections[].readers[].targets[]",
    "pubsub.connections[].readers[].targets[].field",
    "pubsub.connections[].readers[].targets[].node",
    "actors",
    "actors.session_host",
    "actors.writers",
    "actors.threads",
    "actors.crypto_workers",
    "actors.crypto_queue",
    "security",
    "security.login",
    "security.login.enabled",
    "security.login.max_failures",
    "security.login.backoff_ms",
    "security.login.address_max_failures",
    "security.login.lockout_seconds",
    "security.login.table_size",
    "security.login.exempt_addresses",
};

bool is_known(std::string_view pattern) {
  return std::find(std::begin(key_table), std::end(key_table), pattern) != std::end(key_table);
}

std::size_t edit_distance(std::string_view a, std::string_view b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

// "server.endpoints[0].port" -> "server.endpoints[].port".
std::string pattern_of(std::string_view path) {
  std::string out;
  bool in_index = false;
  for (char c : path) {
    if (c == '[') in_index = true, out += c;
    else if (c == ']') in_index = false, out += c;
    else if (!in_index) out += c;
  }
  return out;
}

std::string type_name(const toml::node& n) {
  switch (n.type()) {
    case toml::node_type::table: return "a table";
    case toml::node_type::array: return "an array";
    case toml::node_type::string: return "a string";
    case toml::node_type::integer: return "an integer";
    case toml::node_type::floating_point: return "a float";
    case toml::node_type::boolean: return "a boolean";
    case toml::node_type::date: return "a date";
    case toml::node_type::time: return "a time";
    case toml::node_type::date_time: return "a date-time";
    default: return "nothing";
  }
}

std::string join(std::initializer_list<std::string_view> items) {
  std::string s;
  for (auto i : items) s += (s.empty() ? "" : ", ") + std::string(i);
  return s;
}

std::string substitute(std::string_view text, std::int64_t i) {
  std::string out(text);
  const std::string value = std::to_string(i);
  for (std::size_t at = out.find("{i}"); at != std::string::npos; at = out.find("{i}", at + value.size()))
    out.replace(at, 3, value);
  return out;
}

class checker;

// One table of the file and the keys read from it.
class section {
public:
  section(checker& c, const toml::table& t, std::string path) : c_(c), t_(t), path_(std::move(path)) {}
  section(const section&) = delete;
  ~section() noexcept(false);

  const std::string& path() const { return path_; }
  std::string key(std::string_view name) const { return path_.empty() ? std::string(name) : path_ + "." + std::string(name); }
  const toml::table& table() const { return t_; }
  toml::source_region where() const { return t_.source(); }

  // The node under `name` (marked as known), or null.
  const toml::node* get(std::string_view name) {
    const auto k = key(name);
    if (!is_known(pattern_of(k)) && !is_known(pattern_of(k) + "[]")) throw std::logic_error("config key missing from the key table: " + pattern_of(k));
    used_.insert(std::string(name));
    return t_.get(name);
  }

  bool string(std::string_view name, std::string& out);
  bool boolean(std::string_view name, bool& out);
  bool number(std::string_view name, double min, double max, double& out);
  template <class T>
  bool integer(std::string_view name, std::int64_t min, std::int64_t max, T& out);
  bool choice(std::string_view name, std::initializer_list<std::string_view> choices, std::string& out);
  bool strings(std::string_view name, std::vector<std::string>& out);
  bool numbers(std::string_view name, std::vector<double>& out);

private:
  checker& c_;
  const toml::table& t_;
  std::string path_;
  std::set<std::string, std::less<>> used_;
};

class checker {
public:
  checker(std::string file, std::filesystem::path base) : file_(std::move(file)), base_(std::move(base)) {}

  void error(const toml::source_region& at, std::string key, std::string message) {
    errors_.push_back({file_, at.begin.line, at.begin.column, std::move(key), std::move(message)});
  }
  void error(const toml::node& at, std::string key, std::string message) { error(at.source(), std::move(key), std::move(message)); }
  // A mistake at a place kept from an earlier pass (place() below).
  void error(diagnostic at, std::string message) {
    at.message = std::move(message);
    errors_.push_back(std::move(at));
  }
  // A mistake outside the file (a --nodeset flag's file): `what` instead of the file, no line.
  void error(std::string what, std::string message) { errors_.push_back({std::move(what), 0, 0, "", std::move(message)}); }

  std::filesystem::path resolve(const std::string& p) const {
    std::filesystem::path path(p);
    return path.is_relative() ? base_ / path : path;
  }
  std::string where(const toml::source_region& at) const {
    return fmt::format("{}:{}:{}", file_, at.begin.line, at.begin.column);
  }

  // A place in the file with its key and no message yet.
  diagnostic place(const toml::source_region& at, std::string key) const {
    return {file_, at.begin.line, at.begin.column, std::move(key), {}};
  }
  std::size_t error_count() const noexcept { return errors_.size(); }

  std::vector<diagnostic> take() {
    std::stable_sort(errors_.begin(), errors_.end(), [](const diagnostic& a, const diagnostic& b) {
      return a.line != b.line ? a.line < b.line : a.column < b.column;
    });
    return std::move(errors_);
  }

private:
  std::string file_;
  std::filesystem::path base_;
  std::vector<diagnostic> errors_;
};

// Unknown keys are reported when the section is done with (its reader has asked for every key
// it knows by then).
section::~section() noexcept(false) {
  for (auto&& [k, v] : t_) {
    if (used_.count(k.str())) continue;
    const auto pattern = pattern_of(key(k.str()));
    const auto prefix = pattern_of(path_).empty() ? std::string() : pattern_of(path_) + ".";
    std::string best;
    std::size_t best_distance = std::numeric_limits<std::size_t>::max();
    for (auto known : key_table) {
      if (!known.starts_with(prefix)) continue;
      auto leaf = known.substr(prefix.size());
      if (leaf.find('.') != std::string_view::npos) continue;
      if (leaf.ends_with("[]")) leaf.remove_suffix(2);
      const auto d = edit_distance(k.str(), leaf);
      if (d < best_distance) best_distance = d, best = std::string(leaf);
    }
    std::string message = "unknown key";
    if (!best.empty() && best_distance <= std::max<std::size_t>(2, k.str().size() / 3))
      message += " (did you mean " + key(best) + "?)";
    c_.error(k.source(), key(k.str()), message);
  }
}

bool section::string(std::string_view name, std::string& out) {
  const auto* n = get(name);
  if (!n) return false;
  if (!n->is_string()) {
    c_.error(*n, key(name), "expected a string, got " + type_name(*n));
    return false;
  }
  out = n->as_string()->get();
  return true;
}

bool section::boolean(std::string_view name, bool& out) {
  const auto* n = get(name);
  if (!n) return false;
  if (!n->is_boolean()) {
    c_.error(*n, key(name), "expected a boolean (true or false), got " + type_name(*n));
    return false;
  }
  out = n->as_boolean()->get();
  return true;
}

bool section::number(std::string_view name, double min, double max, double& out) {
  const auto* n = get(name);
  if (!n) return false;
  if (!n->is_number()) {
    c_.error(*n, key(name), "expected a number, got " + type_name(*n));
    return false;
  }
  const double v = n->is_integer() ? static_cast<double>(n->as_integer()->get()) : n->as_floating_point()->get();
  if (!(v >= min && v <= max)) {
    c_.error(*n, key(name), fmt::format("{} is out of range {}..{}", v, min, max));
    return false;
  }
  out = v;
  return true;
}

template <class T>
bool section::integer(std::string_view name, std::int64_t min, std::int64_t max, T& out) {
  const auto* n = get(name);
  if (!n) return false;
  if (!n->is_integer()) {
    c_.error(*n, key(name), "expected an integer, got " + type_name(*n));
    return false;
  }
  const auto v = n->as_integer()->get();
  if (v < min || v > max) {
    c_.error(*n, key(name), fmt::format("{} is out of range {}..{}", v, min, max));
    return false;
  }
  out = static_cast<T>(v);
  return true;
}

bool section::choice(std::string_view name, std::initializer_list<std::string_view> choices, std::string& out) {
  std::string v;
  if (!string(name, v)) return false;
  if (std::find(choices.begin(), choices.end(), v) == choices.end()) {
    c_.error(*t_.get(name), key(name), fmt::format("\"{}\" is not one of {}", v, join(choices)));
    return false;
  }
  out = v;
  return true;
}

bool section::strings(std::string_view name, std::vector<std::string>& out) {
  const auto* n = get(name);
  if (!n) return false;
  if (!n->is_array()) {
    c_.error(*n, key(name), "expected an array of strings, got " + type_name(*n));
    return false;
  }
  std::vector<std::string> items;
  bool ok = true;
  const auto& a = *n->as_array();
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!a[i].is_string()) {
      c_.error(a[i], fmt::format("{}[{}]", key(name), i), "expected a string, got " + type_name(a[i]));
      ok = false;
      continue;
    }
    items.push_back(a[i].as_string()->get());
  }
  if (ok) out = std::move(items);
  return ok;
}

bool section::numbers(std::string_view name, std::vector<double>& out) {
  const auto* n = get(name);
  if (!n) return false;
  if (!n->is_array()) {
    c_.error(*n, key(name), "expected an array of numbers, got " + type_name(*n));
    return false;
  }
  std::vector<double> items;
  bool ok = true;
  const auto& a = *n->as_array();
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (!a[i].is_number()) {
      c_.error(a[i], fmt::format("{}[{}]", key(name), i), "expected a number, got " + type_name(a[i]));
      ok = false;
      continue;
    }
    items.push_back(a[i].is_integer() ? static_cast<double>(a[i].as_integer()->get()) : a[i].as_floating_point()->get());
  }
  if (ok) out = std::move(items);
  return ok;
}

// An array of tables ([[name]]); a key of another type is an error.
// A PublisherId, WriterGroup or DataSetWriter name: one MQTT topic level (Part 14 §7.3.5.7).
bool pubsub_topic_level_ok(std::string_view s) {
  return !s.empty() && s.find_first_of("/+#") == std::string_view::npos;
}

const toml::array* table_array(section& s, std::string_view name, checker& c) {
  const auto* n = s.get(name);
  if (!n) return nullptr;
  const auto* a = n->as_array();
  if (!a || !a->is_array_of_tables()) {
    c.error(*n, s.key(name), fmt::format("expected an array of tables ([[{}]]), got {}", s.key(name), type_name(*n)));
    return nullptr;
  }
  return a;
}

const toml::table* sub_table(section& s, std::string_view name, checker& c) {
  const auto* n = s.get(name);
  if (!n) return nullptr;
  if (!n->is_table()) {
    c.error(*n, s.key(name), fmt::format("expected a table ([{}]), got {}", s.key(name), type_name(*n)));
    return nullptr;
  }
  return n->as_table();
}

bool readable_file(const std::filesystem::path& p, std::string& why) {
  std::error_code ec;
  if (!std::filesystem::exists(p, ec)) return why = "no such file", false;
  if (std::filesystem::is_directory(p, ec)) return why = "is a directory", false;
  std::ifstream in(p);
  if (!in) return why = std::strerror(errno), false;
  return true;
}

bool valid_security(const std::string& item) {
  auto same = [](std::string_view a, std::string_view b) {
    return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
             return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
           });
  };
  if (same(item, "all") || same(item, "none") || same(item, "secure") || same(item, "ecc")) return true;
  const auto colon = item.find(':');
  if (colon == std::string::npos) return false;
  const std::string_view policy = std::string_view(item).substr(0, colon);
  const std::string_view mode = std::string_view(item).substr(colon + 1);
  bool known = false;
  for (const auto& p : security::all_policies())
    if (!p.is_none() && same(p.name, policy)) known = true;
  return known && (same(mode, "Sign") || same(mode, "SignAndEncrypt") || same(mode, "Encrypt"));
}

// A port some other socket holds: the listener would fail after the check said yes.
std::string port_taken(const std::string& address, std::uint16_t port) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return {};
  const int one = 1;
  ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &one, sizeof one);  // as the listener does
  sockaddr_in a{};
  a.sin_family = AF_INET;
  a.sin_port = htons(port);
  ::inet_pton(AF_INET, address.c_str(), &a.sin_addr);
  std::string why;
  if (::bind(fd, reinterpret_cast<sockaddr*>(&a), sizeof a) != 0) why = std::strerror(errno);
  ::close(fd);
  return why;
}

struct node_entry {
  toml::source_region at;
  std::string key;           // folders[3].id
  bool variable = false;
  bool event_notifier = false;  // an object with objects[].event_notifier = true
  ua::builtin_type type = ua::builtin_type::null;
  std::string parent;        // node id text, empty: none to check
  toml::source_region parent_at;
  std::string parent_key;
  std::size_t index = 0;     // in the plant's node list
};

class plant_reader {
public:
  plant_reader(checker& c, bool check_ports, bool check_store, std::span<const nodeset_file> more_nodesets)
      : c_(c), check_ports_(check_ports), check_store_(check_store), more_nodesets_(more_nodesets) {}

  plant read(const toml::table& root) {
    section top(c_, root, "");
    read_server(top);
    read_pki(top);
    read_users(top);
    read_login(top);
    read_roles(top);
    read_namespaces(top);
    read_permissions(top);
    read_nodesets(top);
    read_nodes(top, "folders");
    read_nodes(top, "objects");
    read_nodes(top, "variables");
    read_methods(top);
    check_parents();
    read_writers(top);
    read_mirrors(top);
    read_scripts(top);
    read_alarm_groups(top);
    read_limit_alarms(top);
    read_off_normal_alarms(top, "off_normal_alarms", "an off-normal alarm", p_.off_normal_alarms);
    read_discrete_alarms(top);
    read_deviation_alarms(top);
    read_rate_of_change_alarms(top);
    read_off_normal_alarms(top, "trip_alarms", "a trip alarm", p_.trip_alarms);
    read_discrepancy_alarms(top);
    read_files(top);
    read_logging(top);
    read_metrics(top);
    read_redundancy(top);
    read_history(top);
    read_discovery(top);
    read_pubsub(top);
    read_actors(top);
    finish();
    return std::move(p_);
  }

private:
  // [[server.reverse_connect]]: clients the server dials (Part 6 §7.1.3, docs/reverse-connect.md).
  void read_reverse_connect(section& s) {
    const auto* targets = table_array(s, "reverse_connect", c_);
    if (!targets) return;
    for (std::size_t i = 0; i < targets->size(); ++i) {
      const auto& rt = *(*targets)[i].as_table();
      section r(c_, rt, fmt::format("server.reverse_connect[{}]", i));
      reverse_connect_plan plan;
      if (!r.string("client_url", plan.client_url) || plan.client_url.empty()) {
        c_.error(r.where(), r.key("client_url"), "a reverse_connect entry needs client_url = \"opc.tcp://host:port\"");
      } else if (!actors::parse_endpoint_url(plan.client_url)) {
        c_.error(*rt.get("client_url"), r.key("client_url"), fmt::format("\"{}\" is not opc.tcp://host:port", plan.client_url));
      }
      if (r.string("endpoint_url", plan.endpoint_url) && !plan.endpoint_url.empty() &&
          !actors::parse_endpoint_url(plan.endpoint_url))
        c_.error(*rt.get("endpoint_url"), r.key("endpoint_url"), fmt::format("\"{}\" is not opc.tcp://host:port", plan.endpoint_url));
      r.integer("max_connections", 1, 100, plan.max_connections);
      read_milliseconds(r, "backoff_min_ms", 10, 3'600'000, plan.backoff_min);
      read_milliseconds(r, "backoff_max_ms", 10, 86'400'000, plan.backoff_max);
      if (plan.backoff_max < plan.backoff_min && rt.get("backoff_max_ms"))
        c_.error(*rt.get("backoff_max_ms"), r.key("backoff_max_ms"), "backoff_max_ms is below backoff_min_ms");
      server_.reverse_connect.push_back(std::move(plan));
    }
  }

  // [server] wss_*: the opc.wss endpoint (Part 6 §7.5, docs/wss.md); wss_port makes it.
  void read_wss(section& s) {
    wss_plan w;
    if (!s.integer("wss_port", 0, 65535, w.port)) {
      for (const char* k : {"wss_listen_address", "wss_security", "wss_allowed_origins", "wss_certificate", "wss_private_key",
                            "wss_handshake_timeout_ms", "wss_max_pending_handshakes", "wss_transport"})
        if (const auto* n = s.get(k)) c_.error(*n, s.key(k), fmt::format("{} without wss_port: no opc.wss endpoint to apply it to", k));
      return;
    }
    if (s.string("wss_listen_address", w.listen_address)) {
      in_addr a{};
      if (inet_pton(AF_INET, w.listen_address.c_str(), &a) != 1)
        c_.error(*s.table().get("wss_listen_address"), s.key("wss_listen_address"),
                 fmt::format("\"{}\" is not an IPv4 address", w.listen_address));
    }
    read_security(s, "wss_security", w.security);
    if (s.strings("wss_allowed_origins", w.allowed_origins)) {
      const auto& a = *s.table().get("wss_allowed_origins")->as_array();
      for (std::size_t i = 0; i < w.allowed_origins.size(); ++i)
        if (!wss_origin_form(w.allowed_origins[i]))
          c_.error(a[i], fmt::format("{}[{}]", s.key("wss_allowed_origins"), i),
                   fmt::format("\"{}\" is not an origin: \"*\", \"null\" or scheme://host[:port] without a path", w.allowed_origins[i]));
    }
    const bool cert = s.string("wss_certificate", w.certificate) && !w.certificate.empty();
    const bool key = s.string("wss_private_key", w.private_key) && !w.private_key.empty();
    if (cert != key) {
      const char* given = cert ? "wss_certificate" : "wss_private_key";
      c_.error(*s.table().get(given), s.key(given), "wss_certificate and wss_private_key go together (PEM files)");
    }
    for (auto [k, v] : {std::pair{"wss_certificate", &w.certificate}, std::pair{"wss_private_key", &w.private_key}}) {
      if (v->empty()) continue;
      const auto path = c_.resolve(*v);
      std::string why;
      if (!readable_file(path, why))
        c_.error(*s.table().get(k), s.key(k), fmt::format("cannot read {}: {}", path.string(), why));
      *v = path.string();
    }
    read_milliseconds(s, "wss_handshake_timeout_ms", 100, 600'000, w.handshake_timeout);
    s.integer("wss_max_pending_handshakes", 1, 100'000, w.max_pending_handshakes);
    if (s.string("wss_transport", w.transport) && w.transport != "door" && w.transport != "native")
      c_.error(*s.table().get("wss_transport"), s.key("wss_transport"),
               fmt::format("\"{}\" is not a transport: \"door\" or \"native\"", w.transport));
    server_.wss = std::move(w);
  }

  // "*", "null", or scheme://host[:port] (RFC 6454's serialisation: no path, no trailing slash).
  static bool wss_origin_form(std::string_view o) {
    if (o == "*" || o == "null") return true;
    const auto sep = o.find("://");
    if (sep == std::string_view::npos || sep == 0) return false;
    const auto rest = o.substr(sep + 3);
    return !rest.empty() && rest.find('/') == std::string_view::npos && rest.find(' ') == std::string_view::npos;
  }

  void read_server(section& top) {
    server_ = default_server_plan();
    const toml::table* t = sub_table(top, "server", c_);
    toml::table empty;
    section s(c_, t ? *t : empty, "server");
    std::string host;
    // Given, it is each endpoint's (even when it is the machine's own name); not given, each
    // endpoint's listen address decides what its URL names (runtime/advertised_host.hpp).
    std::string server_host;
    if (s.string("host_name", host) && !host.empty()) server_.host_name = server_host = host;
    application_uri_set_ = s.string("application_uri", server_.application_uri) && !server_.application_uri.empty();
    s.string("application_name", server_.application_name);
    s.string("product_uri", server_.product_uri);
    s.string("product_name", server_.product_name);
    s.string("manufacturer_name", server_.manufacturer_name);
    s.string("namespace_uri", server_.demo_namespace_uri);
    s.boolean("demo", server_.demo);
    unsigned writer_ms = 1000;
    if (s.integer("demo_writer_interval_ms", 1, 86'400'000, writer_ms)) server_.writer_interval = std::chrono::milliseconds(writer_ms);
    s.integer("load_variables", 0, 1'000'000, server_.load_variables);
    s.choice("profile", {"default", "interop"}, server_.profile);
    const auto server_secured = read_security(s, "security", server_.security);
    s.boolean("anonymous", server_.anonymous);  // server.user_tokens below: refused together
    if (s.string("users_file", server_.users_file) && !server_.users_file.empty()) {
      const auto path = c_.resolve(server_.users_file);
      std::string why;
      if (!readable_file(path, why)) {
        c_.error(*s.table().get("users_file"), s.key("users_file"), fmt::format("cannot read {}: {}", path.string(), why));
      } else {
        std::string refused;
        auto loaded = security::user_store::load(path, &refused);
        if (!loaded)
          c_.error(*s.table().get("users_file"), s.key("users_file"),
                   fmt::format("{}: {} (a file of user:hash lines, uactor hash-password)", path.string(), refused));
        else server_.users_file = path.string();
      }
    }
    constexpr std::int64_t u32 = std::numeric_limits<std::uint32_t>::max();
    s.integer("max_connections", 1, 1'000'000, server_.max_connections);
    s.integer("max_sessions", 1, 1'000'000, server_.max_sessions);
    s.integer("receive_buffer_size", 8192, u32, server_.receive_buffer_size);
    s.integer("send_buffer_size", 8192, u32, server_.send_buffer_size);
    s.integer("max_message_size", 8192, u32, server_.max_message_size);
    s.integer("max_chunk_count", 1, u32, server_.max_chunk_count);
    s.integer("max_nodes_per_operation", 1, u32, server_.max_nodes_per_operation);
    s.boolean("audit_events", server_.audit_events);
    // Part 9 §8 (docs/events.md "Alarm groups and metrics"): chattering counted past this many
    // activations of one alarm within the window.
    s.integer("alarm_chattering_count", 0, 1'000, server_.alarm_chattering_count);
    if (std::int64_t ms = 0; s.integer("alarm_chattering_window_ms", 1'000, 86'400'000, ms))
      server_.alarm_chattering_window = std::chrono::milliseconds(ms);
    read_milliseconds(s, "hello_timeout_ms", 100, 3'600'000, server_.hello_timeout);
    read_milliseconds(s, "max_token_lifetime_ms", 10'000, 86'400'000, server_.max_token_lifetime);
    read_milliseconds(s, "max_session_timeout_ms", 10'000, 86'400'000, server_.max_session_timeout);
    s.integer("max_browse_continuation_points", 1, 65535, server_.max_browse_continuation_points);
    s.integer("max_string_length", 1024, u32, server_.max_string_length);
    s.integer("max_array_length", 1, u32, server_.max_array_length);
    s.integer("max_nesting_depth", 1, 1000, server_.max_nesting_depth);
    if (!application_uri_set_) server_.application_uri = "urn:" + server_.host_name + ":uactor:server";

    // The server's user token types, the default of every endpoint (docs/configuration.md).
    std::vector<std::string> server_tokens = default_user_tokens(server_.anonymous);
    const bool server_tokens_given = read_user_tokens(s, server_tokens);

    read_reverse_connect(s);
    read_wss(s);

    const auto* endpoints = table_array(s, "endpoints", c_);
    if (!endpoints || endpoints->empty()) {
      // The default endpoint, 0.0.0.0:4840: checked as a written one would be.
      if (check_ports_ && server_.port != 0) {
        if (auto why = port_taken(server_.listen_address, server_.port); !why.empty())
          c_.error(s.where(), "server.endpoints",
                   fmt::format("the default endpoint's port {} cannot be bound on {}: {}", server_.port,
                               server_.listen_address, why));
      }
      endpoint_plan e;
      e.host_name = server_host;
      e.listen_address = server_.listen_address;
      e.port = server_.port;
      e.security = server_.security;
      e.user_tokens = std::move(server_tokens);
      if (server_tokens_given) check_tokens_secured(s, e);
      note_secured(e, server_secured, {s.where(), "server.security", false});
      server_.endpoints.push_back(std::move(e));
      p_.server = server_;
      return;
    }
    // [[server.endpoints]]: the endpoints of the one server, each with its own listener.
    std::map<std::uint16_t, std::string> ports;
    for (std::size_t i = 0; i < endpoints->size(); ++i) {
      const auto& et = *(*endpoints)[i].as_table();
      section e(c_, et, fmt::format("server.endpoints[{}]", i));
      endpoint_plan plan;
      plan.host_name = server_host;
      plan.listen_address = server_.listen_address;
      plan.port = server_.port;
      plan.security = server_.security;
      if (e.integer("port", 0, 65535, plan.port)) {
        const auto* at = et.get("port");
        if (plan.port != 0) {
          if (auto [it, fresh] = ports.emplace(plan.port, c_.where(at->source())); !fresh)
            c_.error(*at, e.key("port"), fmt::format("{} is already the port of the endpoint at {}", plan.port, it->second));
        }
      }
      if (e.string("listen_address", plan.listen_address)) {
        in_addr a{};
        if (inet_pton(AF_INET, plan.listen_address.c_str(), &a) != 1)
          c_.error(*et.get("listen_address"), e.key("listen_address"),
                   fmt::format("\"{}\" is not an IPv4 address", plan.listen_address));
      }
      if (e.string("host_name", host) && !host.empty()) plan.host_name = host;
      const auto secured = read_security(e, "security", plan.security);
      // An endpoint's own user_tokens win; else its `anonymous` changes the server's list.
      bool anonymous = true;
      const bool anonymous_given = e.boolean("anonymous", anonymous);
      plan.user_tokens = server_tokens;
      if (read_user_tokens(e, plan.user_tokens)) {
        check_tokens_secured(e, plan);
      } else if (anonymous_given) {
        std::erase(plan.user_tokens, "anonymous");
        if (anonymous) plan.user_tokens.insert(plan.user_tokens.begin(), "anonymous");
        if (plan.user_tokens.empty())
          c_.error(*et.get("anonymous"), e.key("anonymous"),
                   "false leaves this endpoint no user token type (server.user_tokens has only anonymous)");
      }
      if (check_ports_ && plan.port != 0 && et.get("port") && et.get("port")->is_integer()) {
        if (auto why = port_taken(plan.listen_address, plan.port); !why.empty())
          c_.error(*et.get("port"), e.key("port"),
                   fmt::format("{} cannot be bound on {}: {}", plan.port, plan.listen_address, why));
      }
      note_secured(plan, secured ? secured : server_secured, {e.where(), e.key("security"), false});
      server_.endpoints.push_back(std::move(plan));
    }
    p_.server = server_;
  }

  static std::vector<std::string> default_user_tokens(bool anonymous) {
    std::vector<std::string> t{"anonymous", "username", "x509"};
    if (!anonymous) t.erase(t.begin());
    return t;
  }

  // `user_tokens` of this table into `out` (true when given and valid): anonymous, username, x509,
  // each at most once, at least one. With `anonymous` in the same table: an error (which would win
  // is not obvious; docs/configuration.md).
  bool read_user_tokens(section& s, std::vector<std::string>& out) {
    std::vector<std::string> items;
    if (!s.strings("user_tokens", items)) return false;
    const auto& a = *s.table().get("user_tokens")->as_array();
    if (const auto* anon = s.table().get("anonymous")) {
      c_.error(*anon, s.key("anonymous"),
               fmt::format("give either anonymous or user_tokens (at {}), not both: list \"anonymous\" in user_tokens "
                           "or leave it out",
                           c_.where(a.source())));
      return false;
    }
    if (items.empty()) {
      c_.error(a, s.key("user_tokens"), "expected at least one of anonymous, username or x509");
      return false;
    }
    bool ok = true;
    std::set<std::string> seen;
    for (std::size_t i = 0; i < items.size(); ++i) {
      const auto key = fmt::format("{}[{}]", s.key("user_tokens"), i);
      if (items[i] != "anonymous" && items[i] != "username" && items[i] != "x509") {
        c_.error(a[i], key, fmt::format("\"{}\" is not anonymous, username or x509", items[i]));
        ok = false;
      } else if (!seen.insert(items[i]).second) {
        c_.error(a[i], key, fmt::format("\"{}\" is listed twice", items[i]));
        ok = false;
      }
    }
    if (ok) out = std::move(items);
    return ok;
  }

  // UserName and X509 need a secured channel (the password encrypted, the token signed): an
  // endpoint that offers None only cannot offer them (Part 4 §7.42, §5.7.3).
  void check_tokens_secured(section& s, const endpoint_plan& e) {
    if (!std::ranges::all_of(e.security, is_none)) return;
    const auto& a = *s.table().get("user_tokens")->as_array();
    for (std::size_t i = 0; i < e.user_tokens.size(); ++i) {
      if (e.user_tokens[i] == "anonymous") continue;
      c_.error(a[i], fmt::format("{}[{}]", s.key("user_tokens"), i),
               fmt::format("\"{}\" needs a secured endpoint, and this one offers SecurityPolicy None only ({} "
                           "would travel unprotected): add a policy to security or leave it out",
                           e.user_tokens[i], e.user_tokens[i] == "username" ? "the password" : "the token"));
    }
  }

  static void read_milliseconds(section& s, std::string_view name, std::int64_t min, std::int64_t max,
                                std::chrono::milliseconds& out) {
    std::int64_t ms = out.count();
    if (s.integer(name, min, max, ms)) out = std::chrono::milliseconds(ms);
  }

  // Where a policy needs the server certificate: the first secured endpoint's first policy other
  // than None, or (when it comes from the defaults) its table.
  struct place {
    toml::source_region at;
    std::string key;
    bool written = true;  // false: the default policies, `at` is the table
  };
  static bool is_none(const std::string& item) {
    return item.size() == 4 && std::equal(item.begin(), item.end(), "none", [](char x, char y) {
             return std::tolower(static_cast<unsigned char>(x)) == y;
           });
  }
  void note_secured(const endpoint_plan& e, const std::optional<place>& given, place fallback) {
    if (secured_at_ || std::ranges::all_of(e.security, is_none)) return;
    secured_at_ = given ? *given : std::move(fallback);
  }

  // Reads `name` into `out`; returns where its first secured item is.
  std::optional<place> read_security(section& s, std::string_view name, std::vector<std::string>& out) {
    std::vector<std::string> items;
    if (!s.strings(name, items)) return std::nullopt;
    const auto& a = *s.table().get(name)->as_array();
    bool ok = !items.empty();
    if (items.empty())
      c_.error(a, s.key(name), "expected at least one of all, none, secure, ecc or POLICY:MODE");
    for (std::size_t i = 0; i < items.size(); ++i) {
      if (valid_security(items[i])) continue;
      ok = false;
      c_.error(a[i], fmt::format("{}[{}]", s.key(name), i),
               fmt::format("\"{}\" is not all, none, secure, ecc or POLICY:MODE (POLICY Basic256Sha256, "
                           "Aes128_Sha256_RsaOaep, Aes256_Sha256_RsaPss, ECC_nistP256, ECC_nistP384, "
                           "ECC_brainpoolP256r1, ECC_brainpoolP384r1, ECC_curve25519, ECC_curve448; MODE Sign or "
                           "SignAndEncrypt)",
                           items[i]));
    }
    if (!ok) return std::nullopt;
    out = std::move(items);
    for (std::size_t i = 0; i < out.size(); ++i)
      if (!is_none(out[i])) return place{a[i].source(), fmt::format("{}[{}]", s.key(name), i)};
    return std::nullopt;
  }

  void read_pki(section& top) {
    const toml::table* t = sub_table(top, "pki", c_);
    toml::table empty;
    section s(c_, t ? *t : empty, "pki");
    std::string dir;
    if (s.string("dir", dir) && !dir.empty()) {
      const auto path = c_.resolve(dir);
      std::error_code ec;
      std::string why;
      if (std::filesystem::exists(path, ec) && !std::filesystem::is_directory(path, ec))
        why = fmt::format("{} is not a directory", path.string());
      else if (std::filesystem::exists(path, ec) ? ::access(path.c_str(), R_OK | W_OK | X_OK) != 0
                                                 : ::access(path.parent_path().empty() ? "." : path.parent_path().c_str(), W_OK) != 0)
        why = fmt::format("{} cannot be used as the certificate store (read, write): {}", path.string(), std::strerror(errno));
      pki_dir_refused_ = !why.empty();
      if (pki_dir_refused_) c_.error(*s.table().get("dir"), s.key("dir"), why);
      pki_dir_ = path.string();
      pki_dir_at_ = place{s.table().get("dir")->source(), s.key("dir")};
    }
    std::vector<std::string> trust;
    if (s.strings("trust", trust)) {
      const auto& a = *s.table().get("trust")->as_array();
      for (std::size_t i = 0; i < trust.size(); ++i) {
        const auto path = c_.resolve(trust[i]);
        std::string why;
        if (!readable_file(path, why))
          c_.error(a[i], fmt::format("pki.trust[{}]", i), fmt::format("cannot read {}: {}", path.string(), why));
        trust_.push_back(path.string());
      }
    }
    // ServerConfiguration's MaxTrustListSize (docs/security.md "Remote certificate management").
    s.integer("max_trust_list_size", 1024, std::int64_t{64} << 20, max_trust_list_size_);
    // Extra subjectAltName entries for the certificate the server makes: names and addresses
    // clients reach it by that the endpoints do not show (a DNS alias, a NAT address).
    std::vector<std::string> san;
    if (s.strings("san", san)) {
      const auto& a = *s.table().get("san")->as_array();
      for (std::size_t i = 0; i < san.size(); ++i) {
        if (san[i].empty() || san[i].find_first_of(" \t/") != std::string::npos)
          c_.error(a[i], fmt::format("pki.san[{}]", i),
                   fmt::format("'{}' is not a host name or an IP address", san[i]));
        else
          san_.push_back(san[i]);
      }
    }
  }

  void read_users(section& top) {
    const auto* users = table_array(top, "users", c_);
    if (!users) return;
    std::map<std::string, std::string> seen;
    for (std::size_t i = 0; i < users->size(); ++i) {
      const auto& ut = *(*users)[i].as_table();
      section u(c_, ut, fmt::format("users[{}]", i));
      std::string name, hash;
      const bool has_name = u.string("name", name);
      const bool has_hash = u.string("hash", hash);
      if (!has_name && !ut.get("name")) c_.error(ut.source(), u.key("name"), "missing (a user needs a name)");
      if (!has_hash && !ut.get("hash"))
        c_.error(ut.source(), u.key("hash"), "missing (a PBKDF2 hash from uactor hash-password; never a password)");
      if (has_name && (name.empty() || name.find(':') != std::string::npos)) {
        c_.error(*ut.get("name"), u.key("name"), "a user name is not empty and has no ':'");
        continue;
      }
      if (has_name) {
        if (auto [it, fresh] = seen.emplace(name, c_.where(ut.get("name")->source())); !fresh) {
          c_.error(*ut.get("name"), u.key("name"), fmt::format("user \"{}\" is defined twice (first at {})", name, it->second));
          continue;
        }
      }
      std::vector<std::string> roles;
      if (u.strings("roles", roles) && has_name) {
        const auto& a = *ut.get("roles")->as_array();
        for (std::size_t k = 0; k < roles.size(); ++k)
          user_roles_.push_back({roles[k], name, c_.place(a[k].source(), fmt::format("users[{}].roles[{}]", i, k))});
      }
      if (has_name && has_hash) {
        if (!security::is_password_hash(hash)) {
          c_.error(*ut.get("hash"), u.key("hash"),
                   "not a PBKDF2 hash as uactor hash-password makes (clear-text passwords are not accepted)");
          continue;
        }
        user_hashes_.push_back(name + ":" + hash);
      }
    }
  }

  // [[roles]] (docs/security.md "Roles and permissions"): the plant's own roles and the identities
  // of any role; `[[users]] roles` (read before) adds UserName identities. Names are checked here,
  // the rules' syntax with the engine's parser.
  void read_roles(section& top) {
    const auto* roles = table_array(top, "roles", c_);
    std::map<std::string, std::string> seen;
    std::size_t own = 0;
    for (std::size_t i = 0; roles && i < roles->size(); ++i) {
      const auto& rt = *(*roles)[i].as_table();
      section r(c_, rt, fmt::format("roles[{}]", i));
      role_plan plan;
      // Every key is read first: a role refused for its name still has its other keys checked.
      const bool has_name = r.string("name", plan.name);
      r.boolean("default_identities", plan.keep_default_identities);
      if (const toml::node* ids = r.get("identities")) {
        if (const auto* a = ids->as_array()) {
          for (std::size_t k = 0; k < a->size(); ++k) {
            const std::string key = fmt::format("{}[{}]", r.key("identities"), k);
            const auto* str = (*a)[k].as_string();
            std::string why;
            if (!str) c_.error((*a)[k], key, "expected a string, got " + type_name((*a)[k]));
            else if (!actors::authz::parse_identity_rule(str->get(), &why)) c_.error((*a)[k], key, why);
            else plan.identities.push_back(str->get());
          }
        } else {
          c_.error(*ids, r.key("identities"), "expected an array of strings, got " + type_name(*ids));
        }
      }
      // Part 18 §4.4.1: without a list the role is not limited; a list is an include list unless
      // its *_exclude says otherwise.
      const auto read_list = [&](std::string_view name, std::vector<std::string>& out, bool& exclude, bool urls) {
        const toml::node* n = r.get(name);
        exclude = n == nullptr;
        if (!n) return;
        const auto* a = n->as_array();
        if (!a) {
          c_.error(*n, r.key(name), "expected an array of strings, got " + type_name(*n));
          return;
        }
        for (std::size_t k = 0; k < a->size(); ++k) {
          const std::string key = fmt::format("{}[{}]", r.key(name), k);
          const auto* str = (*a)[k].as_string();
          if (!str) c_.error((*a)[k], key, "expected a string, got " + type_name((*a)[k]));
          else if (str->get().empty()) c_.error((*a)[k], key, urls ? "an endpoint URL may not be empty" : "an ApplicationUri may not be empty");
          else if (urls && !str->get().starts_with("opc.tcp://") && !str->get().starts_with("opc.wss://"))
            c_.error((*a)[k], key, fmt::format("\"{}\" is not an endpoint URL (opc.tcp://host:port or opc.wss://...)", str->get()));
          else out.push_back(str->get());
        }
      };
      read_list("applications", plan.applications, plan.applications_exclude, false);
      r.boolean("applications_exclude", plan.applications_exclude);
      read_list("endpoints", plan.endpoints, plan.endpoints_exclude, true);
      r.boolean("endpoints_exclude", plan.endpoints_exclude);
      if (!has_name) {
        if (!rt.get("name")) c_.error(rt.source(), r.key("name"), "missing (a role needs a name)");
        continue;
      }
      const auto& name_at = *rt.get("name");
      if (plan.name.empty() || plan.name.find_first_of(" \t./;") != std::string::npos) {
        c_.error(name_at, r.key("name"), fmt::format("\"{}\" is not a role name (no spaces, '.', '/' or ';')", plan.name));
        continue;
      }
      if (auto [it, fresh] = seen.emplace(plan.name, c_.where(name_at.source())); !fresh) {
        c_.error(name_at, r.key("name"), fmt::format("role \"{}\" is defined twice (first at {})", plan.name, it->second));
        continue;
      }
      const bool well_known = actors::authz::role_registry().find(plan.name).has_value();
      if (!well_known && ++own > actors::authz::max_roles - actors::authz::well_known::count) {
        c_.error(name_at, r.key("name"), fmt::format("more than {} roles of the plant's own",
                                                     actors::authz::max_roles - actors::authz::well_known::count));
        continue;
      }
      role_names_.insert(plan.name);
      roles_.push_back(std::move(plan));
    }
    // [[users]] roles: each a role this file knows, granted to that user name.
    for (const auto& ur : user_roles_) {
      if (!known_role(ur.role)) {
        c_.error(ur.at, unknown_role_message(ur.role));
        continue;
      }
      auto it = std::find_if(roles_.begin(), roles_.end(), [&](const role_plan& r) { return r.name == ur.role; });
      if (it == roles_.end()) {
        role_plan plan;
        plan.name = ur.role;
        it = roles_.insert(roles_.end(), std::move(plan));
      }
      it->identities.push_back("UserName:" + ur.user);
    }
  }

  bool known_role(const std::string& name) const {
    return role_names_.count(name) > 0 || actors::authz::role_registry().find(name).has_value();
  }
  static std::string unknown_role_message(const std::string& name) {
    return fmt::format("\"{}\" is no role (a well-known one: Anonymous, AuthenticatedUser, Observer, Operator, Engineer, "
                       "Supervisor, ConfigureAdmin, SecurityAdmin; or a [[roles]] name)", name);
  }

  // [[permissions]]: a subtree (node = NodeId or /browse/path) or a namespace's default, each
  // role's permissions by their Part 3 §8.55 names.
  void read_permissions(section& top) {
    const auto* rules = table_array(top, "permissions", c_);
    for (std::size_t i = 0; rules && i < rules->size(); ++i) {
      const auto& pt = *(*rules)[i].as_table();
      section s(c_, pt, fmt::format("permissions[{}]", i));
      permission_plan plan;
      const bool has_node = s.string("node", plan.node);
      const bool has_ns = s.string("namespace", plan.namespace_uri);
      if (has_node && has_ns) {
        c_.error(*pt.get("namespace"), s.key("namespace"), "a rule is for a node or for a namespace, not both");
      } else if (!has_node && !has_ns) {
        if (!pt.get("node") && !pt.get("namespace"))
          c_.error(pt.source(), s.key("node"), "missing (a rule needs node = \"ns=..;s=..\" or a browse path, or namespace = \"uri\")");
      } else if (has_node) {
        std::string why;
        if (plan.node.empty() || (plan.node.front() != '/' && !ua::parse_node_id(plan.node, &why)))
          c_.error(*pt.get("node"), s.key("node"),
                   fmt::format("\"{}\" is neither a NodeId nor a browse path from the Root (/Objects/2:Plant){}", plan.node,
                               why.empty() ? "" : ": " + why));
      } else {
        const bool declared = plan.namespace_uri == "http://opcfoundation.org/UA/" ||
                              plan.namespace_uri == server_.demo_namespace_uri ||
                              std::find(p_.namespaces.begin(), p_.namespaces.end(), plan.namespace_uri) != p_.namespaces.end();
        if (!declared)
          c_.error(*pt.get("namespace"), s.key("namespace"),
                   fmt::format("\"{}\" is not a namespace of this file ([[namespaces]], server.namespace_uri)", plan.namespace_uri));
      }
      const toml::node* roles_node = s.get("roles");
      if (!roles_node) {
        c_.error(pt.source(), s.key("roles"), "missing (roles = { Operator = [\"Browse\", \"Read\", \"Write\"], ... })");
      } else if (!roles_node->is_table()) {
        c_.error(*roles_node, s.key("roles"), "expected a table of role = [permissions], got " + type_name(*roles_node));
      } else {
        for (auto&& [k, v] : *roles_node->as_table()) {
          const std::string role(k.str());
          const std::string key = s.key("roles") + "." + role;
          if (!known_role(role)) {
            c_.error(v, key, unknown_role_message(role));
            continue;
          }
          const auto* a = v.as_array();
          if (!a) {
            c_.error(v, key, "expected an array of permission names, got " + type_name(v));
            continue;
          }
          std::vector<std::string> names;
          for (std::size_t k2 = 0; k2 < a->size(); ++k2) {
            const auto* str = (*a)[k2].as_string();
            if (!str) {
              c_.error((*a)[k2], fmt::format("{}[{}]", key, k2), "expected a string, got " + type_name((*a)[k2]));
              continue;
            }
            if (!actors::authz::permission_of(str->get()))
              c_.error((*a)[k2], fmt::format("{}[{}]", key, k2),
                       fmt::format("\"{}\" is not a permission (Browse, ReadRolePermissions, WriteAttribute, Read, Write, "
                                   "ReadHistory, ReceiveEvents, Call, ... or All: Part 3 §8.55)", str->get()));
            else
              names.push_back(str->get());
          }
          plan.roles.emplace_back(role, std::move(names));
        }
      }
      std::vector<std::string> restrictions;
      if (s.strings("restrictions", restrictions)) {
        const auto& a = *pt.get("restrictions")->as_array();
        for (std::size_t k = 0; k < restrictions.size(); ++k) {
          if (actors::authz::restriction_of(restrictions[k])) plan.restrictions.push_back(restrictions[k]);
          else
            c_.error(a[k], fmt::format("{}[{}]", s.key("restrictions"), k),
                     fmt::format("\"{}\" is not an AccessRestriction (SigningRequired, EncryptionRequired, SessionRequired, "
                                 "ApplyRestrictionsToBrowse)", restrictions[k]));
        }
      }
      permissions_.push_back(std::move(plan));
    }
  }

  // [security.login]: failed logins per user name and source address (docs/security.md "Login
  // attempts").
  void read_login(section& top) {
    const toml::table* t = sub_table(top, "security", c_);
    if (!t) return;
    section sec(c_, *t, "security");
    const toml::table* lt = sub_table(sec, "login", c_);
    if (!lt) return;
    section s(c_, *lt, "security.login");
    auto& l = p_.server.login;  // read_server has filled p_.server already
    s.boolean("enabled", l.enabled);
    s.integer("max_failures", 1, 1000, l.max_failures);
    s.integer("backoff_ms", 0, 60'000, l.backoff_ms);
    s.integer("address_max_failures", 1, 1'000'000, l.address_max_failures);
    s.integer("lockout_seconds", 1, 86'400, l.lockout_seconds);
    s.integer("table_size", 16, 1'000'000, l.table_size);
    if (s.strings("exempt_addresses", l.exempt_addresses)) {
      const auto* a = lt->get("exempt_addresses")->as_array();
      for (std::size_t k = 0; k < l.exempt_addresses.size(); ++k) {
        std::string why;
        if (!actors::ip_network::parse(l.exempt_addresses[k], why))
          c_.error((*a)[k], fmt::format("{}[{}]", s.key("exempt_addresses"), k), why);
      }
    }
  }

  void read_namespaces(section& top) {
    const auto* ns = table_array(top, "namespaces", c_);
    if (!ns) return;
    std::map<std::string, std::string> seen;
    seen.emplace(server_.demo_namespace_uri, "server.namespace_uri");
    for (std::size_t i = 0; i < ns->size(); ++i) {
      const auto& nt = *(*ns)[i].as_table();
      section n(c_, nt, fmt::format("namespaces[{}]", i));
      std::string uri;
      if (!n.string("uri", uri)) {
        if (!nt.get("uri")) c_.error(nt.source(), n.key("uri"), "missing (a namespace needs its URI)");
        p_.namespaces.emplace_back();
        continue;
      }
      if (uri.empty()) c_.error(*nt.get("uri"), n.key("uri"), "a namespace URI is not empty");
      else if (auto [it, fresh] = seen.emplace(uri, c_.where(nt.get("uri")->source())); !fresh)
        c_.error(*nt.get("uri"), n.key("uri"), fmt::format("\"{}\" is already declared ({})", uri, it->second));
      p_.namespaces.push_back(uri);
    }
  }

  void read_nodesets(section& top) {
    const auto* sets = table_array(top, "nodesets", c_);
    for (std::size_t i = 0; sets && i < sets->size(); ++i) {
      const auto& st = *(*sets)[i].as_table();
      section n(c_, st, fmt::format("nodesets[{}]", i));
      std::string path;
      if (!n.string("path", path)) {
        if (!st.get("path")) c_.error(st.source(), n.key("path"), "missing (the NodeSet2 XML file to load)");
        continue;
      }
      nodeset_file file{c_.resolve(path).string(), {}};
      n.boolean("accept_older_models", file.options.accept_older_models);
      check_nodeset(file, [&](std::string message) { c_.error(*st.get("path"), n.key("path"), std::move(message)); });
      p_.nodesets.push_back(std::move(file));
    }
    for (const auto& file : more_nodesets_) {
      check_nodeset(file, [&](std::string message) { c_.error("--nodeset " + file.path, std::move(message)); });
      p_.nodesets.push_back(file);
    }
  }

  // A NodeSet parsed and checked as the server will load it (nodeset/importer.hpp): against namespace
  // 0, the [[namespaces]] and the files before it, applied to the scratch address space of this
  // check (server_space) so that the plant's nodes are checked against its nodes. After a file is refused, the ones after
  // it are not checked (the server never gets that far), nor the plant's nodes below theirs.
  template <class Report>
  void check_nodeset(const nodeset_file& file, Report&& report) {
    auto& check = server_space();
    if (!check.ok) return;
    if (std::string why; !readable_file(file.path, why)) {
      report(fmt::format("cannot read {}: {}", file.path, why));
      check.ok = false;
      return;
    }
    const auto doc = nodeset::document::load(file.path);
    nodeset::import_result result;
    if (doc.ok()) {
      const nodeset::server_state state{check.namespaces, check.models, {}, file.options.accept_older_models};
      result = nodeset::import(doc, check.space, state);
    }
    const auto& errors = doc.ok() ? result.errors : doc.errors();
    for (const auto& e : errors) report("the NodeSet is refused: " + e.to_string());
    check.ok = errors.empty();
    if (!check.ok) return;
    check.namespaces.insert(check.namespaces.end(), result.new_namespaces.begin(), result.new_namespaces.end());
    check.models.insert(check.models.end(), result.models.begin(), result.models.end());
  }

  // A NodeId of the file: its namespace declared (0, 1 the server's, 2.. [[namespaces]]).
  std::optional<node_id> node(const std::string& text, const toml::node& at, const std::string& key) {
    auto id = ua::parse_node_id(text);
    if (!id) {
      c_.error(at, key, fmt::format("\"{}\" is not a NodeId (e.g. ns=2;s=Plant.Tag1 or i=85)", text));
      return std::nullopt;
    }
    const std::size_t declared = 1 + p_.namespaces.size();
    const std::size_t last = space_ ? space_->namespaces.size() - 1 : declared;  // the NodeSets' own after them
    const bool refused = space_ && !space_->ok;  // the namespaces of a refused NodeSet are unknown
    if (id->namespace_index() > last && !refused) {
      c_.error(at, key,
               fmt::format("{}: namespace {} is not declared (0, 1 = server.namespace_uri{}{})", text,
                           id->namespace_index(),
                           p_.namespaces.empty() ? std::string(", [[namespaces]] give 2, 3, ...")
                                                 : fmt::format(", 2..{} = [[namespaces]]", declared),
                           last > declared ? fmt::format(", {}..{} = the NodeSets' namespaces", declared + 1, last) : ""));
      return std::nullopt;
    }
    return *id;
  }

  std::optional<ua::builtin_type> data_type(const std::string& name) {
    for (int t = 1; t <= 21; ++t)
      if (ua::builtin_type_name(static_cast<ua::builtin_type>(t)) == name) return static_cast<ua::builtin_type>(t);
    if (name == "Variant" || name == "BaseDataType") return ua::builtin_type::variant;
    return std::nullopt;
  }

  // A node's BrowseName when the file gives none: a String id's last `.` part, else the id.
  static std::string default_browse_name(const node_id& id) {
    if (id.type() != ua::node_id_type::string) return id.to_string();
    const std::string text(id.text());
    const auto dot = text.rfind('.');
    return dot == std::string::npos ? text : text.substr(dot + 1);
  }

  static std::string value_text(const toml::node& n, bool quote_strings) {
    if (n.is_string()) {
      if (!quote_strings) return n.as_string()->get();
      std::string s = "\"";
      for (char ch : n.as_string()->get()) s += ch == '"' ? std::string("\\\"") : std::string(1, ch);
      return s + "\"";
    }
    if (n.is_integer()) return std::to_string(n.as_integer()->get());
    if (n.is_floating_point()) return fmt::format("{}", n.as_floating_point()->get());
    if (n.is_boolean()) return n.as_boolean()->get() ? "true" : "false";
    std::ostringstream o;
    if (n.is_date_time()) o << *n.as_date_time();
    return o.str();
  }

  void read_nodes(section& top, std::string_view kind) {
    const auto* items = table_array(top, kind, c_);
    if (!items) return;
    const bool is_variable = kind == "variables";
    for (std::size_t i = 0; i < items->size(); ++i) {
      const auto& nt = *(*items)[i].as_table();
      section s(c_, nt, fmt::format("{}[{}]", kind, i));
      std::int64_t count = 1, start = 0;
      const bool templated = s.integer("count", 1, 1'000'000, count);
      s.integer("start", 0, std::numeric_limits<std::uint32_t>::max(), start);
      std::string id_text, parent_text = "i=85", browse, display, description, reference, type_text, access = "read";
      const bool has_id = s.string("id", id_text);
      if (!has_id && !nt.get("id")) c_.error(nt.source(), s.key("id"), fmt::format("missing (every node needs its NodeId)"));
      s.string("parent", parent_text);
      s.string("browse_name", browse);
      s.string("display_name", display);
      s.string("description", description);
      if (kind != "folders") s.string("reference_type", reference);
      if (kind == "objects") s.string("type", type_text);
      bool event_notifier = false, write_status = false, write_timestamps = false, historize = false;
      if (kind == "objects") s.boolean("event_notifier", event_notifier);
      variable_node var;
      ua::builtin_type vtype = ua::builtin_type::double_;
      const toml::node* value = nullptr;
      bool bad = false;
      if (is_variable) {
        std::string t = "Double";
        if (s.string("type", t)) {
          if (auto bt = data_type(t)) vtype = *bt;
          else {
            c_.error(*nt.get("type"), s.key("type"),
                     fmt::format("\"{}\" is not a built-in DataType (Boolean, SByte, Byte, Int16, UInt16, Int32, UInt32, "
                                 "Int64, UInt64, Float, Double, String, DateTime, Guid, ByteString, ..., Variant)",
                                 t));
            bad = true;
          }
        }
        value = s.get("value");
        s.choice("access", {"read", "read_write", "write"}, access);
        s.boolean("write_status", write_status);
        s.boolean("write_timestamps", write_timestamps);
        s.boolean("historize", historize);  // Part 11 §5.2: Historizing, and the HistoryRead access bit
        s.number("minimum_sampling_interval", 0, 86'400'000, var.minimum_sampling_interval);
        std::vector<double> range;
        if (s.numbers("eu_range", range)) {
          if (range.size() != 2 || !(range[0] <= range[1]))
            c_.error(*nt.get("eu_range"), s.key("eu_range"), "expected [low, high] with low <= high");
          else var.range = eu_range{range[0], range[1]};
        }
        if (const auto* units = sub_table(s, "units", c_)) {
          section u(c_, *units, s.key("units"));
          engineering_units eu;
          std::string name, desc;
          u.integer("id", std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max(), eu.unit_id);
          if (u.string("name", name)) eu.display_name = ua::localized_text{ua::ua_string(""), ua::ua_string(name)};
          if (u.string("description", desc)) eu.description = ua::localized_text{ua::ua_string(""), ua::ua_string(desc)};
          var.units = std::move(eu);
        }
      }
      if (!has_id || bad) continue;
      if (templated && id_text.find("{i}") == std::string::npos) {
        c_.error(*nt.get("id"), s.key("id"), fmt::format("a template (count = {}) needs {{i}} in its id", count));
        continue;
      }
      // Check the id, the parent, the types once with the first index; the template repeats them.
      const auto first_id = node(substitute(id_text, start), *nt.get("id"), s.key("id"));
      if (!first_id) continue;
      if (first_id->type() != ua::node_id_type::string && templated) {
        c_.error(*nt.get("id"), s.key("id"), "a template's id is a String NodeId (s=...{i}...)");
        continue;
      }
      const toml::node& parent_at = nt.get("parent") ? *nt.get("parent") : static_cast<const toml::node&>(nt);
      if (!node(substitute(parent_text, start), parent_at, s.key("parent"))) continue;
      std::optional<node_id> ref_type, obj_type;
      if (!reference.empty() && !(ref_type = node(reference, *nt.get("reference_type"), s.key("reference_type")))) continue;
      if (!type_text.empty() && !(obj_type = node(type_text, *nt.get("type"), s.key("type")))) continue;
      std::optional<ua::variant> initial;
      if (is_variable) {
        std::string text;
        bool array = false;
        if (value) {
          if (value->is_table()) {
            c_.error(*value, s.key("value"), "expected a value or an array of values, got a table");
            continue;
          }
          if (const auto* arr = value->as_array()) {
            array = true;
            text = "[";
            for (std::size_t k = 0; k < arr->size(); ++k) text += (k ? ", " : "") + value_text((*arr)[k], true);
            text += "]";
          } else {
            text = value_text(*value, false);
          }
        } else {
          text = vtype == ua::builtin_type::boolean ? "false" : "0";
        }
        if (value || (vtype >= ua::builtin_type::sbyte && vtype <= ua::builtin_type::double_) ||
            vtype == ua::builtin_type::boolean) {
          auto v = ua::parse_value(vtype == ua::builtin_type::variant ? ua::builtin_type::string : vtype, array, text);
          if (!v) {
            c_.error(value ? *value : nt, s.key("value"),
                     fmt::format("{} is not a value of type {}{}",
                                 value ? (value->is_array() ? text : value_text(*value, true)) : std::string("(none)"),
                                 ua::builtin_type_name(vtype), array ? "[]" : ""));
            continue;
          }
          initial = std::move(*v);
        } else if (vtype == ua::builtin_type::string) {
          initial = ua::variant(ua::ua_string(""));
        }
        var.value_rank = array ? 1 : -1;
        if (array) var.array_dimensions = {0};
        var.data_type = node_id(0, vtype == ua::builtin_type::variant ? 24u : static_cast<std::uint32_t>(vtype));
        var.access_level = access == "read" ? access::read : access == "write" ? access::write : access::read_write;
        if (write_status) var.access_level |= access::status_write;
        if (write_timestamps) var.access_level |= access::timestamp_write;
        if (historize) {
          var.historizing = true;
          var.access_level |= access::history_read;
        }
      }
      for (std::int64_t k = start; k < start + count; ++k) {
        const auto id_k = templated ? *ua::parse_node_id(substitute(id_text, k)) : *first_id;
        const auto parent_k = *ua::parse_node_id(substitute(parent_text, k));
        const auto key = templated ? fmt::format("{}[{}].id ({{i}} = {})", kind, i, k) : s.key("id");
        const auto id_string = id_k.to_string();
        if (auto it = ids_.find(id_string); it != ids_.end()) {
          c_.error(*nt.get("id"), s.key("id"),
                   fmt::format("{} is defined twice (first at {}, {})", id_string, c_.where(it->second.at), it->second.key));
          break;  // one error per definition, not one per generated node
        }
        std::string name = browse.empty() ? std::string() : substitute(browse, k);
        if (name.empty()) name = default_browse_name(id_k);
        node_base base;
        base.id = id_k;
        base.parent = parent_k;
        if (ref_type) base.reference_type = *ref_type;
        base.browse_name = qualified_name{id_k.namespace_index(), ua::ua_string(name)};
        if (!display.empty()) base.display_name = ua::localized_text{ua::ua_string(""), ua::ua_string(substitute(display, k))};
        if (!description.empty()) base.description = ua::localized_text{ua::ua_string(""), ua::ua_string(substitute(description, k))};
        node_entry entry;
        entry.at = nt.get("id")->source();
        entry.key = key;
        entry.variable = is_variable;
        entry.event_notifier = event_notifier;
        entry.type = vtype;
        entry.index = p_.nodes.size();
        if (parent_k.namespace_index() != 0) {
          entry.parent = parent_k.to_string();
          entry.parent_at = parent_at.source();
          entry.parent_key = s.key("parent");
        }
        ids_.emplace(id_string, std::move(entry));
        if (kind == "folders") {
          object_node f = folder(id_k, parent_k, name);
          static_cast<node_base&>(f) = base;
          f.type_definition = ns0::folder_type;
          p_.nodes.push_back(std::move(f));
        } else if (kind == "objects") {
          object_node o;
          static_cast<node_base&>(o) = base;
          if (obj_type) o.type_definition = *obj_type;
          o.event_notifier = event_notifier ? 1 : 0;  // SubscribeToEvents (Part 3 §8.59)
          p_.nodes.push_back(std::move(o));
        } else {
          variable_node v = var;
          static_cast<node_base&>(v) = base;
          if (initial) v.value.set_value(*initial);
          p_.nodes.push_back(std::move(v));
        }
      }
    }
  }

  // [[methods]]: a Method under an object, bound to a built-in handler over variables of the file
  // (docs/configuration.md). Read before check_parents: the node joins the file's nodes, and the
  // targets' indices in p_.nodes are still those read_nodes gave.
  void read_methods(section& top) {
    const auto* items = table_array(top, "methods", c_);
    if (!items) return;
    for (std::size_t i = 0; i < items->size(); ++i) {
      const auto& mt = *(*items)[i].as_table();
      section s(c_, mt, fmt::format("methods[{}]", i));
      std::string id_text, parent_text = "i=85", browse, display, description, handler;
      const bool has_id = s.string("id", id_text);
      if (!has_id && !mt.get("id")) c_.error(mt.source(), s.key("id"), "missing (every node needs its NodeId)");
      s.string("parent", parent_text);
      s.string("browse_name", browse);
      s.string("display_name", display);
      s.string("description", description);
      const bool has_handler = s.choice("handler", {"set", "reset", "write"}, handler);
      if (!has_handler && !mt.get("handler")) c_.error(mt.source(), s.key("handler"), "missing (set, reset or write)");
      const toml::node* value = s.get("value");
      std::vector<std::string> targets;
      const bool has_targets = s.strings("targets", targets);
      if (!has_targets && !mt.get("targets"))
        c_.error(mt.source(), s.key("targets"), "missing (the variables the method sets)");
      if (has_handler && handler == "set" && !value)
        c_.error(mt.source(), s.key("value"), "missing (handler = \"set\" sets its targets to this value)");
      if (has_handler && handler != "set" && value)
        c_.error(*value, s.key("value"), fmt::format("only handler = \"set\" takes a value (this one is \"{}\")", handler));
      if (!has_id || !has_handler || !has_targets) continue;

      const auto id = node(id_text, *mt.get("id"), s.key("id"));
      const toml::node& parent_at = mt.get("parent") ? *mt.get("parent") : static_cast<const toml::node&>(mt);
      const auto parent = node(parent_text, parent_at, s.key("parent"));
      if (!id || !parent) continue;
      if (auto it = ids_.find(parent->to_string()); it != ids_.end() && it->second.variable) {
        c_.error(parent_at, s.key("parent"),
                 fmt::format("{} is a variable: a method is a component of an object (Part 3 §5.7)", parent->to_string()));
        continue;
      }
      method_spec m;
      m.id = *id;
      m.handler = handler;
      method_node node_def;
      const auto& arr = *mt.get("targets")->as_array();
      if (targets.empty()) c_.error(arr, s.key("targets"), "expected at least one variable");
      bool ok = !targets.empty();
      for (std::size_t t = 0; t < targets.size(); ++t) {
        const auto key = fmt::format("methods[{}].targets[{}]", i, t);
        const auto target = node(targets[t], arr[t], key);
        if (!target) { ok = false; continue; }
        auto it = ids_.find(target->to_string());
        const auto* var = it != ids_.end() && it->second.variable ? std::get_if<variable_node>(&p_.nodes[it->second.index]) : nullptr;
        if (!var) {
          c_.error(arr[t], key, fmt::format("{} is not a variable of this file", target->to_string()));
          ok = false;
          continue;
        }
        if (var->value_rank != -1) {
          c_.error(arr[t], key, fmt::format("{} is an array: a method sets scalar variables", target->to_string()));
          ok = false;
          continue;
        }
        m.targets.push_back(*target);
        const auto type = it->second.type;
        if (handler == "reset") {
          m.values.push_back(var->value.value);
        } else if (handler == "set" && value) {
          auto v = value->is_array() || value->is_table()
                       ? ua::expected<ua::variant>(ua::status::bad_type_mismatch)
                       : ua::parse_value(type == ua::builtin_type::variant ? ua::builtin_type::string : type, false,
                                          value_text(*value, false));
          if (!v) {
            c_.error(*value, s.key("value"),
                     fmt::format("{} is not a value of type {} (the type of {})", value_text(*value, true),
                                 ua::builtin_type_name(type), target->to_string()));
            ok = false;
            continue;
          }
          m.values.push_back(std::move(*v));
        } else if (handler == "write") {
          // One input per target, named as the target, of its DataType (the server checks the
          // arguments against it, Part 4 §5.11.2).
          node_def.inputs.push_back(method_argument(var->browse_name.name.view(), var->data_type));
        }
      }
      if (!ok) continue;
      const auto id_string = id->to_string();
      if (auto it = ids_.find(id_string); it != ids_.end()) {
        c_.error(*mt.get("id"), s.key("id"),
                 fmt::format("{} is defined twice (first at {}, {})", id_string, c_.where(it->second.at), it->second.key));
        continue;
      }
      node_def.id = *id;
      node_def.parent = *parent;
      const std::string name = browse.empty() ? default_browse_name(*id) : browse;
      node_def.browse_name = qualified_name{id->namespace_index(), ua::ua_string(name)};
      if (!display.empty()) node_def.display_name = ua::localized_text{ua::ua_string(""), ua::ua_string(display)};
      if (!description.empty()) node_def.description = ua::localized_text{ua::ua_string(""), ua::ua_string(description)};
      node_entry entry;
      entry.at = mt.get("id")->source();
      entry.key = s.key("id");
      entry.index = p_.nodes.size();
      if (parent->namespace_index() != 0) {
        entry.parent = parent->to_string();
        entry.parent_at = parent_at.source();
        entry.parent_key = s.key("parent");
      }
      ids_.emplace(id_string, std::move(entry));
      p_.nodes.push_back(std::move(node_def));
      p_.methods.push_back(std::move(m));
    }
  }

  // Parents in the file must exist; parents come before children in the plant's list.
  void check_parents() {
    std::vector<std::size_t> depth(p_.nodes.size(), 0);
    std::set<std::string> reported;
    for (auto& [id, e] : ids_) {
      if (const auto self = ua::parse_node_id(id))
        if (auto taken = taken_by_server(*self)) c_.error(e.at, e.key, std::move(*taken));
      if (e.parent.empty()) continue;
      if (const auto parent = ua::parse_node_id(e.parent); parent && left_to_server(*parent)) continue;
      if (!ids_.count(e.parent)) {
        if (reported.insert(c_.where(e.parent_at) + e.parent).second)
          c_.error(e.parent_at, e.parent_key, fmt::format("{} is not a node of this file (folders, objects, variables){}",
                                                          e.parent, p_.nodesets.empty() ? "" : " or of its NodeSets"));
      }
    }
    // Depth by walking up (bounded: a cycle is reported once).
    for (auto& [id, e] : ids_) {
      std::size_t d = 0;
      const node_entry* at = &e;
      while (!at->parent.empty()) {
        auto it = ids_.find(at->parent);
        if (it == ids_.end()) break;
        at = &it->second;
        if (++d > ids_.size()) {
          c_.error(e.at, e.key, fmt::format("{} is its own ancestor (the parents form a cycle)", id));
          break;
        }
      }
      depth[e.index] = d;
    }
    std::vector<diagnostic> places(p_.nodes.size());
    for (const auto& [id, e] : ids_) places[e.index] = c_.place(e.at, e.key);
    std::vector<std::size_t> order(p_.nodes.size());
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::stable_sort(order.begin(), order.end(), [&](std::size_t a, std::size_t b) { return depth[a] < depth[b]; });
    std::vector<node_change> sorted;
    sorted.reserve(order.size());
    p_.node_places.reserve(order.size());
    for (auto i : order) {
      sorted.push_back(std::move(p_.nodes[i]));
      p_.node_places.push_back(std::move(places[i]));
    }
    p_.nodes = std::move(sorted);
    apply_nodes_as_the_server_will();
  }

  // The plant's nodes applied to server_space() as the server applies them at start
  // (engine/server/node_builder), so that what only the address space decides (a type definition
  // or reference type that is no such node, an instance's copied children that collide) is
  // refused at the node's line before anything starts. Only on a file without other errors so
  // far: a node refused above would be refused here a second time.
  void apply_nodes_as_the_server_will() {
    if (p_.nodes.empty() || c_.error_count() != 0) return;
    auto& space = server_space();
    if (!space.ok) return;
    for (std::size_t i = 0; i < p_.nodes.size(); ++i) {
      const auto sc = actors::apply_node_change(space.space, p_.nodes[i], ua::date_time{});
      if (sc.is_bad())
        c_.error(p_.node_places[i], fmt::format("the server would refuse {}: {}", node_change_id(p_.nodes[i]), sc.to_string()));
    }
  }

  void read_writers(section& top) {
    const auto* writers = table_array(top, "writers", c_);
    if (!writers) return;
    for (std::size_t i = 0; i < writers->size(); ++i) {
      const auto& wt = *(*writers)[i].as_table();
      section s(c_, wt, fmt::format("writers[{}]", i));
      writer_spec w;
      if (!s.choice("kind", {"counter", "ramp", "sine", "square", "random_walk", "steps"}, w.kind) && !wt.get("kind"))
        c_.error(wt.source(), s.key("kind"), "missing (counter, ramp, sine, square, random_walk or steps)");
      unsigned ms = 1000;
      if (s.integer("interval_ms", 1, 86'400'000, ms)) w.interval = std::chrono::milliseconds(ms);
      std::int64_t count = 1, start = 0;
      const bool templated = s.integer("count", 1, 1'000'000, count);
      s.integer("start", 0, std::numeric_limits<std::uint32_t>::max(), start);
      constexpr double big = 1e300;
      s.number("min", -big, big, w.min);
      s.number("max", -big, big, w.max);
      s.number("step", -big, big, w.step);
      unsigned period = 10'000;
      if (s.integer("period_ms", 1, 86'400'000, period)) w.period = std::chrono::milliseconds(period);
      s.numbers("values", w.values);
      s.integer("seed", 0, std::numeric_limits<std::int64_t>::max(), w.seed);
      if (wt.get("min") && wt.get("max") && w.min > w.max)
        c_.error(*wt.get("max"), s.key("max"), fmt::format("{} is below min ({})", w.max, w.min));
      if (w.kind == "steps" && w.values.empty() && !wt.get("values"))
        c_.error(wt.source(), s.key("values"), "missing (a steps writer needs its values)");
      std::vector<std::string> targets;
      if (!s.strings("targets", targets)) {
        if (!wt.get("targets")) c_.error(wt.source(), s.key("targets"), "missing (the variables the writer sets)");
        continue;
      }
      const auto& arr = *wt.get("targets")->as_array();
      if (targets.empty()) c_.error(arr, s.key("targets"), "expected at least one variable");
      for (std::size_t t = 0; t < targets.size(); ++t) {
        const auto key = fmt::format("writers[{}].targets[{}]", i, t);
        const bool target_template = targets[t].find("{i}") != std::string::npos;
        if (target_template && !templated) {
          c_.error(arr[t], key, "{i} in a target needs count (and start) in the writer");
          continue;
        }
        const std::int64_t n = target_template ? count : 1;
        for (std::int64_t k = start; k < start + n; ++k) {
          const auto text = target_template ? substitute(targets[t], k) : targets[t];
          const auto id = node(text, arr[t], key);
          if (!id) break;
          auto it = ids_.find(id->to_string());
          // A variable of the file, or one the server holds (the demo's, the load namespace's, a
          // NodeSet's) with its DataType.
          const auto server_type = it == ids_.end() ? server_variable(*id) : std::nullopt;
          if (it == ids_.end() ? !server_type : !it->second.variable) {
            c_.error(arr[t], key,
                     fmt::format("{} is not a variable of this file{}", id->to_string(),
                                 target_template ? fmt::format(" ({{i}} = {})", k) : std::string()));
            break;
          }
          const auto type = it == ids_.end() ? *server_type : it->second.type;
          if (!(type >= ua::builtin_type::boolean && type <= ua::builtin_type::double_)) {
            c_.error(arr[t], key,
                     fmt::format("{} is of type {}: a writer sets Boolean and numeric variables", id->to_string(),
                                 ua::builtin_type_name(type)));
            break;
          }
          w.targets.push_back(*id);
          w.target_types.push_back(type);
        }
      }
      p_.writers.push_back(std::move(w));
    }
  }

  // [[mirrors]] (docs/gateway.md): remote servers whose variables the gateway mirrors. The remote's
  // NodeIds use the remote's namespace indices: they are checked as NodeIds, not against this file.
  void read_mirrors(section& top) {
    const auto* mirrors = table_array(top, "mirrors", c_);
    if (!mirrors) return;
    std::map<std::string, std::string> names;
    for (std::size_t i = 0; i < mirrors->size(); ++i) {
      const auto& mt = *(*mirrors)[i].as_table();
      section s(c_, mt, fmt::format("mirrors[{}]", i));
      app::mirror_spec m;
      if (s.string("name", m.name)) {
        const bool valid = !m.name.empty() && m.name.size() <= 64 &&
                           std::all_of(m.name.begin(), m.name.end(), [](char ch) {
                             return std::isalnum(static_cast<unsigned char>(ch)) || ch == '_' || ch == '-' || ch == '.';
                           });
        if (!valid)
          c_.error(*mt.get("name"), s.key("name"),
                   fmt::format("\"{}\" is not a mirror name (1 to 64 of A-Z a-z 0-9 _ - .)", m.name));
        else if (auto [it, fresh] = names.emplace(m.name, c_.where(mt.get("name")->source())); !fresh)
          c_.error(*mt.get("name"), s.key("name"), fmt::format("mirror \"{}\" is defined twice (first at {})", m.name, it->second));
      } else if (!mt.get("name")) {
        c_.error(mt.source(), s.key("name"), "missing (a mirror needs a name: Objects/Mirrors/<name>)");
      }
      if (s.string("endpoint", m.endpoint)) {
        if (!m.endpoint.starts_with("opc.tcp://") || m.endpoint.size() <= 10)
          c_.error(*mt.get("endpoint"), s.key("endpoint"),
                   fmt::format("\"{}\" is not an opc.tcp://host:port endpoint", m.endpoint));
      } else if (!mt.get("endpoint")) {
        c_.error(mt.source(), s.key("endpoint"), "missing (the remote server's opc.tcp:// endpoint)");
      }
      // One subscription per mirror: more items than this is a second mirror's job.
      constexpr std::size_t max_mirrored = 100'000;
      const auto node_ids = [&](const char* key, std::vector<ua::node_id>& into) {
        std::vector<std::string> texts;
        if (!s.strings(key, texts)) return;
        const auto& arr = *mt.get(key)->as_array();
        if (texts.size() > max_mirrored)
          c_.error(arr, s.key(key), fmt::format("{} NodeIds: at most {} per mirror", texts.size(), max_mirrored));
        std::set<std::string> seen;
        for (std::size_t k = 0; k < texts.size(); ++k) {
          const auto where = fmt::format("{}[{}]", s.key(key), k);
          auto id = ua::parse_node_id(texts[k]);
          if (!id) {
            c_.error(arr[k], where, fmt::format("\"{}\" is not a NodeId (e.g. ns=2;s=Line1.Speed or i=2258)", texts[k]));
            continue;
          }
          if (!seen.insert(id->to_string()).second) {
            c_.error(arr[k], where, fmt::format("{} is listed twice", id->to_string()));
            continue;
          }
          into.push_back(*id);
        }
      };
      node_ids("nodes", m.nodes);
      node_ids("subtrees", m.subtrees);
      const auto listed = [&](const char* key) {
        const auto* a = mt.get(key) ? mt.get(key)->as_array() : nullptr;
        return a ? a->size() : 0;
      };
      if (!mt.get("nodes") && !mt.get("subtrees"))
        c_.error(mt.source(), s.key("nodes"), "missing (the remote NodeIds to mirror, or subtrees of the remote to mirror)");
      else if (listed("nodes") + listed("subtrees") == 0 && (!mt.get("nodes") || mt.get("nodes")->is_array()) &&
               (!mt.get("subtrees") || mt.get("subtrees")->is_array()))
        c_.error(mt.get("nodes") ? *mt.get("nodes") : *mt.get("subtrees"), s.key(mt.get("nodes") ? "nodes" : "subtrees"),
                 "expected at least one remote NodeId");
      if (std::int64_t n = 0; s.integer("max_nodes", 1, static_cast<std::int64_t>(max_mirrored), n))
        m.max_nodes = static_cast<std::size_t>(n);
      std::string security = "none";
      s.choice("security", {"none"}, security);  // secured mirrors: not yet (docs/gateway.md)
      std::int64_t ms = 0;
      if (s.integer("sampling_interval_ms", 0, 86'400'000, ms)) m.sampling_interval = std::chrono::milliseconds(ms);
      if (s.integer("publishing_interval_ms", 1, 86'400'000, ms)) m.publishing_interval = std::chrono::milliseconds(ms);
      std::string loss = "bad";
      if (s.choice("on_loss", {"bad", "last_usable"}, loss))
        m.on_loss = loss == "last_usable" ? app::mirror_loss::last_usable : app::mirror_loss::bad;
      p_.mirrors.push_back(std::move(m));
    }
  }

  // [scripts] and the three script sections (docs/scripts.md). Each script is compiled here, so a
  // syntax error is reported at its source's line; inputs and outputs are variables of this file
  // (checked for their type too) or of the server (namespace 0, the demo and load namespaces, the
  // NodeSets).
  void read_scripts(section& top) {
    auto& plan = p_.scripts;
    if (const toml::table* t = sub_table(top, "scripts", c_)) {
      section s(c_, *t, "scripts");
      std::string runner = "in_process";
      if (s.choice("runner", {"in_process", "out_of_process", "shadow"}, runner))
        plan.runner = runner == "out_of_process" ? script_runner::out_of_process
                      : runner == "shadow"       ? script_runner::shadow
                                                 : script_runner::in_process;
      s.integer("workers", 1, 64, plan.workers);
      std::int64_t mb = 64;
      if (s.integer("memory_mb", 1, 65536, mb)) plan.limits.memory_bytes = static_cast<std::size_t>(mb) << 20;
      s.integer("max_instructions", 0, std::numeric_limits<std::int64_t>::max(), plan.limits.max_instructions);
      std::int64_t ms = 0;
      if (s.integer("soft_deadline_ms", 1, 3'600'000, ms)) plan.limits.soft_deadline = std::chrono::milliseconds(ms);
      if (s.integer("grace_ms", 0, 3'600'000, ms)) plan.limits.grace = std::chrono::milliseconds(ms);
      s.integer("strikes", 1, 1000, plan.limits.strikes);
      if (s.integer("worker_address_space_mb", 16, 1 << 20, mb))
        plan.limits.worker_address_space = static_cast<std::size_t>(mb) << 20;
      if (s.integer("shadow_queue", 1, 1'000'000, plan.shadow_queue) && plan.runner != script_runner::shadow)
        c_.error(*t->get("shadow_queue"), s.key("shadow_queue"),
                 "only with runner = \"shadow\" (the runs a shadow may hold back)");
    }
    scripting::engine_limits limits;
    limits.memory_bytes = plan.limits.memory_bytes;
    scripting::engine compile(limits);
    read_script_section(top, "virtual_tags", "expression", script_kind::virtual_tag, compile);
    read_script_section(top, "calculations", "script", script_kind::calculation, compile);
    read_script_section(top, "alarms", "predicate", script_kind::alarm, compile);
  }

  void read_script_section(section& top, const char* name, const char* source_key, script_kind kind,
                           scripting::engine& compile) {
    const auto* entries = table_array(top, name, c_);
    if (!entries) return;
    for (std::size_t i = 0; i < entries->size(); ++i) {
      const auto& t = *(*entries)[i].as_table();
      section s(c_, t, fmt::format("{}[{}]", name, i));
      script_definition d;
      d.kind = kind;
      s.string("name", d.name);
      std::string output;
      if (!s.string("output", output)) {
        if (!t.get("output")) c_.error(t.source(), s.key("output"), "missing (the variable the script writes)");
      } else if (auto id = node(output, *t.get("output"), s.key("output"))) {
        d.output = *id;
        if (auto it = ids_.find(id->to_string()); it != ids_.end()) {
          if (!it->second.variable)
            c_.error(*t.get("output"), s.key("output"), fmt::format("{} is not a variable", output));
          else if (kind == script_kind::alarm && it->second.type != ua::builtin_type::boolean)
            c_.error(*t.get("output"), s.key("output"),
                     fmt::format("{} is of type {}: an alarm writes a Boolean", output, ua::builtin_type_name(it->second.type)));
        } else if (!left_to_server(*id)) {
          c_.error(*t.get("output"), s.key("output"), fmt::format("{} is not a variable of this file", id->to_string()));
        } else if (server_space().ok && !server_variable(*id)) {
          c_.error(*t.get("output"), s.key("output"), fmt::format("{} is not a variable", output));
        }
      }
      if (const toml::node* in = s.get("inputs")) {
        const auto* inputs = in->as_table();
        if (!inputs) c_.error(*in, s.key("inputs"), fmt::format("expected a table of name = \"NodeId\", not {}", type_name(*in)));
        else
          for (auto&& [k, v] : *inputs) {
            const auto key = s.key("inputs") + "." + std::string(k.str());
            const auto* text = v.as_string();
            if (!text) {
              c_.error(v, key, fmt::format("expected a NodeId string, not {}", type_name(v)));
              continue;
            }
            if (auto id = node(text->get(), v, key)) {
              if (auto it = ids_.find(id->to_string()); it != ids_.end()) {
                if (!it->second.variable) c_.error(v, key, fmt::format("{} is not a variable", text->get()));
              } else if (!left_to_server(*id)) {
                c_.error(v, key, fmt::format("{} is not a variable of this file", id->to_string()));
              } else if (server_space().ok && !server_variable(*id)) {
                c_.error(v, key, fmt::format("{} is not a variable", text->get()));
              }
              d.inputs.push_back({std::string(k.str()), *id});
            }
          }
      } else if (kind != script_kind::calculation) {
        c_.error(t.source(), s.key("inputs"), "missing (a table of name = \"NodeId\": the values the script reads)");
      }
      if (!s.string(source_key, d.source)) {
        if (!t.get(source_key)) c_.error(t.source(), s.key(source_key), "missing (the Lua source)");
      } else {
        scripting::item_spec spec;
        spec.kind = kind == script_kind::calculation ? scripting::item_kind::calculation
                    : kind == script_kind::alarm     ? scripting::item_kind::alarm
                                                     : scripting::item_kind::virtual_tag;
        spec.name = s.key(source_key);
        spec.source = d.source;
        for (const auto& in : d.inputs) spec.input_names.push_back(in.name);
        if (auto e = compile.load(spec); !e.empty()) c_.error(*t.get(source_key), s.key(source_key), e.substr(spec.name.size() + 2));
      }
      std::int64_t ms = 0;
      if (kind == script_kind::calculation && s.integer("period_ms", 1, 86'400'000, ms))
        d.period = std::chrono::milliseconds(ms);
      if (kind == script_kind::calculation && s.string("schedule", d.schedule)) {
        std::string error;
        if (t.get("period_ms"))
          c_.error(*t.get("schedule"), s.key("schedule"), "a calculation runs on a period_ms or a schedule, not both");
        else if (!scripting::cron_schedule::parse(d.schedule, error))
          c_.error(*t.get("schedule"), s.key("schedule"), "'" + d.schedule + "' " + error);
      }
      if (kind == script_kind::alarm) {
        if (s.integer("on_delay_ms", 0, 86'400'000, ms)) d.on_delay = std::chrono::milliseconds(ms);
        if (s.integer("off_delay_ms", 0, 86'400'000, ms)) d.off_delay = std::chrono::milliseconds(ms);
        s.number("hysteresis", 0, 1e300, d.hysteresis);
      }
      p_.scripts.scripts.push_back(std::move(d));
    }
  }

  // What [[limit_alarms]], [[off_normal_alarms]] and [[discrete_alarms]] share (docs/events.md): the condition's NodeId,
  // its input, name, notifier and Enabled state. Inputs and notifiers of this file are checked
  // here; those of namespace 0, of the demo namespace (server.demo) and of NodeSets when the
  // server starts (add_limit_alarm's status).
  struct alarm_common {
    node_id id;
    node_id input;
    std::string name;
    bool enabled = true;
    std::chrono::milliseconds max_time_shelved{0};  // Part 9 §5.8.2 MaxTimeShelved; 0: none
    node_id suppressed_by;                          // Part 9 §5.8.2 SuppressedState from a Boolean; null: none
    std::uint32_t max_branches = 16;                // Part 9 §5.5.2: earlier states kept at once
    alarm_parameters parameters;                    // Part 9 §5.8.2 (1.05) OnDelay, OffDelay, ReAlarmTime
    std::vector<node_id> groups;                    // Part 9 §8.1: [[alarm_groups]] of this file
    bool ok = false;                                // id and input are usable
    const node_entry* input_entry = nullptr;        // null: not a node of this file
    const toml::node* input_at = nullptr;

    // What every kind of alarm (uactor::limit_alarm, off_normal_alarm, ...) takes from these keys.
    template <class Alarm>
    void copy_to(Alarm& a) const {
      a.id = id;
      a.input = input;
      a.name = name;
      a.enabled = enabled;
      a.max_time_shelved = max_time_shelved;
      a.suppressed_by = suppressed_by;
      a.max_branches = max_branches;
      a.parameters = parameters;
      a.groups = groups;
    }
  };

  // The `id` of an alarm or an alarm group: a new node, defined once among the file's nodes, alarms
  // and groups, and none of the server's. `ok` says whether it can be used; the NodeId is returned
  // whenever it parses, so that later checks can name it.
  node_id read_new_alarm_node_id(section& s, const toml::table& t, const char* missing, bool& ok) {
    node_id out;
    std::string text;
    if (!s.string("id", text)) {
      if (!t.get("id")) c_.error(t.source(), s.key("id"), missing);
    } else if (auto id = node(text, *t.get("id"), s.key("id"))) {
      const auto key = id->to_string();
      if (auto it = ids_.find(key); it != ids_.end())
        c_.error(*t.get("id"), s.key("id"),
                 fmt::format("{} is defined twice (first at {}, {})", key, c_.where(it->second.at), it->second.key));
      else if (auto [at, fresh] = alarm_ids_.emplace(key, c_.where(t.get("id")->source()) + ", " + s.key("id")); !fresh)
        c_.error(*t.get("id"), s.key("id"), fmt::format("{} is defined twice (first at {})", key, at->second));
      else if (auto taken = taken_by_server(*id)) c_.error(*t.get("id"), s.key("id"), std::move(*taken));
      else ok = true;
      out = *id;
    }
    return out;
  }

  alarm_common read_alarm_common(section& s, const toml::table& t) {
    alarm_common a;
    std::string input_text, notifier_text;
    bool id_ok = false, input_ok = false;
    a.id = read_new_alarm_node_id(s, t, "missing (the condition's NodeId, a new node)", id_ok);
    if (!s.string("input", input_text)) {
      if (!t.get("input")) c_.error(t.source(), s.key("input"), "missing (the variable whose value the alarm watches)");
    } else if (auto id = node(input_text, *t.get("input"), s.key("input"))) {
      a.input = *id;
      a.input_at = t.get("input");
      if (auto it = ids_.find(id->to_string()); it != ids_.end()) {
        if (!it->second.variable) c_.error(*a.input_at, s.key("input"), fmt::format("{} is not a variable", id->to_string()));
        else a.input_entry = &it->second, input_ok = true;
      } else if (left_to_server(*id)) {
        input_ok = true;
      } else {
        c_.error(*a.input_at, s.key("input"), fmt::format("{} is not a variable of this file", id->to_string()));
      }
    }
    if (s.string("name", a.name) && a.name.empty()) c_.error(*t.get("name"), s.key("name"), "a condition name is not empty");
    if (a.name.empty() && id_ok) {
      // The last dot-separated part of a String id, as a node's default browse name.
      const std::string text = a.id.type() == ua::node_id_type::string ? std::string(a.id.text()) : a.id.to_string();
      a.name = text.substr(text.rfind('.') == std::string::npos ? 0 : text.rfind('.') + 1);
    }
    s.boolean("enabled", a.enabled);
    // The longest shelving an operator may ask for (TimedShelve; a OneShotShelve ends after it too):
    // a second to a year, as condition_manager takes it.
    if (std::int64_t ms = 0; s.integer("max_time_shelved_ms", 1'000, 31'622'400'000, ms))
      a.max_time_shelved = std::chrono::milliseconds(ms);
    s.integer("max_branches", 0, 1'000, a.max_branches);
    // Part 9 §5.8.2 (1.05): the delays up to a day; a re-alarm every second to every day, and a
    // bound on them only with a re-alarm time (as condition_manager takes them).
    bool parameters_ok = true;
    const auto delay = [&](const char* key, std::int64_t min, std::chrono::milliseconds& out) {
      if (std::int64_t ms = 0; s.integer(key, min, 86'400'000, ms)) out = std::chrono::milliseconds(ms);
      else if (t.get(key)) parameters_ok = false;
    };
    delay("on_delay_ms", 0, a.parameters.on_delay);
    delay("off_delay_ms", 0, a.parameters.off_delay);
    delay("re_alarm_time_ms", 1'000, a.parameters.re_alarm_time);
    if (s.integer("re_alarm_max_count", 0, 32'767, a.parameters.re_alarm_max_count) && a.parameters.re_alarm_time.count() == 0 &&
        t.get("re_alarm_time_ms") == nullptr) {
      c_.error(*t.get("re_alarm_max_count"), s.key("re_alarm_max_count"),
               "bounds the re-alarms of re_alarm_time_ms, which this alarm lacks");
      parameters_ok = false;
    }
    s.boolean("latching", a.parameters.latching);  // Part 9 §5.8.2 (1.05) LatchedState, Reset
    bool suppressor_ok = true;
    if (std::string text; s.string("suppressed_by", text)) {
      // A Boolean variable of this file (its true suppresses the alarm), or one the server holds.
      const toml::node& at = *t.get("suppressed_by");
      suppressor_ok = false;
      if (auto n = node(text, at, s.key("suppressed_by"))) {
        a.suppressed_by = *n;
        if (auto it = ids_.find(n->to_string()); it != ids_.end()) {
          if (!it->second.variable)
            c_.error(at, s.key("suppressed_by"), fmt::format("{} is not a variable", n->to_string()));
          else if (it->second.type != ua::builtin_type::boolean)
            c_.error(at, s.key("suppressed_by"),
                     fmt::format("{} is of type {}: suppressed_by names a Boolean variable (true suppresses)",
                                 n->to_string(), ua::builtin_type_name(it->second.type)));
          else suppressor_ok = true;
        } else if (const auto type = server_variable(*n)) {
          if (*type != ua::builtin_type::boolean && *type != ua::builtin_type::null)
            c_.error(at, s.key("suppressed_by"),
                     fmt::format("{} is of type {}: suppressed_by names a Boolean variable (true suppresses)",
                                 n->to_string(), ua::builtin_type_name(*type)));
          else suppressor_ok = true;
        } else if (left_to_server(*n)) {
          c_.error(at, s.key("suppressed_by"), fmt::format("{} is not a variable", n->to_string()));
        } else {
          c_.error(at, s.key("suppressed_by"), fmt::format("{} is not a variable of this file", n->to_string()));
        }
      }
    }
    if (s.string("notifier", notifier_text)) {
      if (auto n = node(notifier_text, *t.get("notifier"), s.key("notifier"))) {
        auto it = ids_.find(n->to_string());
        if (it == ids_.end() && !left_to_server(*n))
          c_.error(*t.get("notifier"), s.key("notifier"), fmt::format("{} is not an object of this file", n->to_string()));
        else if (it != ids_.end() && !it->second.event_notifier)
          c_.error(*t.get("notifier"), s.key("notifier"),
                   fmt::format("{} is no event notifier (objects[].event_notifier = true)", n->to_string()));
        else if (input_ok && event_sources_.insert(n->to_string() + " " + a.input.to_string()).second)
          p_.event_sources.push_back(reference_node{*n, node_id(0, 36), a.input});  // HasEventSource
      }
    }
    bool groups_ok = true;
    if (std::vector<std::string> names; s.strings("groups", names)) {
      // Part 9 §8.1: an alarm in any number of the file's [[alarm_groups]].
      const toml::array& at = *t.get("groups")->as_array();
      for (std::size_t g = 0; g < names.size(); ++g) {
        const std::string where = fmt::format("{}[{}]", s.key("groups"), g);
        auto n = node(names[g], at[g], where);
        if (!n) {
          groups_ok = false;
          continue;
        }
        if (!alarm_groups_.count(n->to_string())) {
          c_.error(at[g], where, fmt::format("{} is no [[alarm_groups]] id of this file", n->to_string()));
          groups_ok = false;
          continue;
        }
        a.groups.push_back(*n);
      }
    } else if (t.get("groups")) {
      groups_ok = false;
    }
    a.ok = id_ok && input_ok && suppressor_ok && parameters_ok && groups_ok;
    return a;
  }

  // A node the file does not define but the server holds when the plant's nodes are added:
  // namespace 0, the demo's, the load namespace's, a NodeSet's (any node when a NodeSet was
  // refused: its errors say enough).
  bool left_to_server(const node_id& id) {
    const auto& space = server_space();
    return !space.ok || find_server_node(id) != ua::no_node;
  }
  // A node of server_space(); a load variable is added to it when first named (the load namespace
  // may hold a million, the file names a few).
  ua::node_index find_server_node(const node_id& id) {
    auto& s = server_space();
    if (const auto n = s.space.find(id); n != ua::no_node) return n;
    const auto i = actors::load_variable_index(id, server_.load_variables);
    if (!i || actors::apply_node_change(s.space, actors::load_variable(*i), ua::date_time{}).is_bad()) return ua::no_node;
    return s.space.find(id);
  }
  // A variable the server holds before the plant's nodes, with the built-in type of its DataType
  // (null when the DataType is no built-in one).
  std::optional<ua::builtin_type> server_variable(const node_id& id) {
    const auto n = find_server_node(id);
    const auto& space = server_space().space;
    if (n == ua::no_node || space.at(n).cls != ua::node_class::variable) return std::nullopt;
    const auto& type = space.variable(n)->data_type;
    const bool builtin = type.ns == 0 && type.type == ua::node_id_type::numeric && type.numeric >= 1 && type.numeric <= 25;
    return builtin ? static_cast<ua::builtin_type>(type.numeric) : ua::builtin_type::null;
  }
  // Where a NodeId the file defines is already the server's, what says so.
  std::optional<std::string> taken_by_server(const node_id& id) {
    if (!server_space().ok || find_server_node(id) == ua::no_node) return std::nullopt;
    if (id.namespace_index() == actors::demo_namespace_index && (server_.demo || server_.load_variables > 0))
      return fmt::format("{} is already a node of the server's demo or load namespace (server.demo, "
                         "server.load_variables)", id.to_string());
    return fmt::format("{} is already a node of the server (namespace 0 or a NodeSet file)", id.to_string());
  }

  // The address space the plant's nodes meet at start, built as the server builds it
  // (runtime.cpp, start.cpp): namespace 0, the demo's nodes (server.demo) and the load namespace's
  // (server.load_variables: its folder, each variable when named) from the functions that make
  // them, then each NodeSet as it is checked.
  // Made when first asked, after [server] and [[namespaces]] are read.
  struct server_nodes {
    ua::address_space space;
    std::vector<std::string> namespaces;
    std::vector<nodeset::model> models;
    bool ok = true;  // false: a NodeSet was refused, the space is incomplete
  };
  server_nodes& server_space() {
    if (space_) return *space_;
    space_ = std::make_unique<server_nodes>();
    auto& s = *space_;
    ua::load_namespace0(s.space);
    s.namespaces = {nodeset::namespace0_model().uri, server_.demo_namespace_uri};
    s.namespaces.insert(s.namespaces.end(), p_.namespaces.begin(), p_.namespaces.end());
    s.models.push_back(nodeset::namespace0_model());
    const auto add = [&](const std::vector<node_change>& nodes) {
      for (const auto& n : nodes)
        if (actors::apply_node_change(s.space, n, ua::date_time{}).is_bad())
          throw std::logic_error("the server's built-in nodes do not apply to namespace 0");
    };
    if (server_.demo) add(actors::demo_nodes(ua::date_time{}));
    if (server_.load_variables > 0) add({actors::load_folder()});
    return s;
  }

  // [[alarm_groups]]: AlarmGroupType folders (Part 9 §8.1, uactor::alarm_group) that alarms name in
  // their `groups`; each has its AlarmMetrics.
  void read_alarm_groups(section& top) {
    const auto* entries = table_array(top, "alarm_groups", c_);
    if (!entries) return;
    for (std::size_t i = 0; i < entries->size(); ++i) {
      const auto& t = *(*entries)[i].as_table();
      section s(c_, t, fmt::format("alarm_groups[{}]", i));
      alarm_group g;
      bool ok = false;
      g.id = read_new_alarm_node_id(s, t, "missing (the group's NodeId, a new node)", ok);
      s.string("name", g.name);
      if (std::string parent; s.string("parent", parent)) {
        if (auto n = node(parent, *t.get("parent"), s.key("parent"))) {
          g.parent = *n;
          auto it = ids_.find(n->to_string());
          if (it != ids_.end() ? it->second.variable : !left_to_server(*n)) {
            c_.error(*t.get("parent"), s.key("parent"), fmt::format("{} is not an object of this file", n->to_string()));
            ok = false;
          }
        } else {
          ok = false;
        }
      }
      if (!ok) continue;
      alarm_groups_.insert(g.id.to_string());
      p_.alarm_groups.push_back(std::move(g));
    }
  }

  // [[limit_alarms]]: ExclusiveLimitAlarmType (or, exclusive = false, NonExclusiveLimitAlarmType)
  // conditions (uactor::limit_alarm).
  void read_limit_alarms(section& top) {
    const auto* entries = table_array(top, "limit_alarms", c_);
    if (!entries) return;
    for (std::size_t i = 0; i < entries->size(); ++i) {
      const auto& t = *(*entries)[i].as_table();
      section s(c_, t, fmt::format("limit_alarms[{}]", i));
      limit_alarm a;
      if (read_limit_alarm(s, t, a)) p_.limit_alarms.push_back(std::move(a));
    }
  }

  struct named_limit {
    const char* key;
    std::optional<double>* value;
  };

  // Part 9 1.05 §5.8.18: `<limit>_deadband`, a limit's own deadband (`deadband` where unset), for a
  // limit the alarm has, not reaching the next limit inward. `limits`: low_low, low, high, high_high.
  bool read_limit_deadbands(section& s, const toml::table& t, limit_alarm& a, const named_limit (&limits)[4]) {
    constexpr double huge = 1e300;
    std::optional<double>* own[] = {&a.low_low_deadband, &a.low_deadband, &a.high_deadband, &a.high_high_deadband};
    constexpr std::size_t inward[] = {1, 2, 1, 2};  // low_low -> low, low -> high, high -> low, high_high -> high
    bool ok = true;
    for (std::size_t i = 0; i < 4; ++i) {
      const std::string key = std::string(limits[i].key) + "_deadband";
      double v = 0;
      if (s.number(key.c_str(), 0, huge, v)) {
        if (!*limits[i].value) {
          c_.error(*t.get(key), s.key(key.c_str()), fmt::format("{} without {}", key, limits[i].key));
          ok = false;
          continue;
        }
        *own[i] = v;
      }
      else if (t.get(key)) ok = false;
      const double db = own[i]->value_or(a.deadband);
      const auto& lim = *limits[i].value;
      const auto& next = *limits[inward[i]].value;
      if (db > 0 && lim && next && !(i < 2 ? *lim + db < *next : *lim - db > *next)) {
        const char* said = t.get(key) ? key.c_str() : "deadband";
        c_.error(*(t.get(key) ? t.get(key) : t.get("deadband")), s.key(said),
                 fmt::format("{} = {} reaches {} = {} from {} = {} (a limit's deadband stays short of the next "
                             "limit inward)",
                             said, db, limits[inward[i]].key, *next, limits[i].key, *lim));
        ok = false;
      }
    }
    return ok;
  }

  // What limit, deviation and rate-of-change alarms share: the common keys, a numeric input, the
  // limits in order, the deadbands, the severities, `exclusive`. False after an error.
  bool read_limit_alarm(section& s, const toml::table& t, limit_alarm& a) {
    alarm_common common = read_alarm_common(s, t);
    bool ok = common.ok;
    if (common.input_entry) {
      const auto type = common.input_entry->type;
      if (!(type >= ua::builtin_type::sbyte && type <= ua::builtin_type::double_)) {
        c_.error(*common.input_at, s.key("input"),
                 fmt::format("{} is of type {}: a limit alarm watches a numeric variable", common.input.to_string(),
                             ua::builtin_type_name(type)));
        ok = false;
      }
    }
    common.copy_to(a);
    // Part 9 §5.8.18: low_low <= low < high <= high_high, each one optional.
    constexpr double huge = 1e300;
    const named_limit limits[] = {{"low_low", &a.low_low}, {"low", &a.low}, {"high", &a.high}, {"high_high", &a.high_high}};
    const named_limit* previous = nullptr;
    bool any = false;
    for (const auto& l : limits) {
      double v = 0;
      if (!s.number(l.key, -huge, huge, v)) {
        if (t.get(l.key)) ok = false, any = true;
        continue;
      }
      any = true;
      *l.value = v;
      if (previous && previous->value->has_value()) {
        const double p = **previous->value;
        const bool strict = std::string_view(l.key) == "high" && std::string_view(previous->key) == "low";
        if (v < p || (strict && v == p)) {
          c_.error(*t.get(l.key), s.key(l.key),
                   fmt::format("{} = {} is {} {} = {} (low_low <= low < high <= high_high)", l.key, v,
                               v < p ? "below" : "not above", previous->key, p));
          ok = false;
        }
      }
      previous = &l;
    }
    if (!any) {
      c_.error(t.source(), s.path(), "no limit (at least one of high_high, high, low, low_low)");
      ok = false;
    }
    s.number("deadband", 0, huge, a.deadband);
    if (!read_limit_deadbands(s, t, a, limits)) ok = false;
    s.integer("severity_high_high", 1, 1000, a.severity_high_high);
    s.integer("severity_high", 1, 1000, a.severity_high);
    s.integer("severity_low", 1, 1000, a.severity_low);
    s.integer("severity_low_low", 1, 1000, a.severity_low_low);
    s.boolean("exclusive", a.exclusive);  // false: NonExclusiveLimitAlarmType
    return ok;
  }

  // A numeric variable named by `key` (a deviation alarm's setpoint): of this file, or one the server
  // holds; `boolean_too`: a Boolean one is good too (a discrepancy alarm's target).
  bool numeric_variable(section& s, const toml::table& t, const char* key, node_id& out, bool boolean_too = false) {
    std::string text;
    if (!s.string(key, text)) return !t.get(key);
    const toml::node& at = *t.get(key);
    auto n = node(text, at, s.key(key));
    if (!n) return false;
    out = *n;
    if (auto it = ids_.find(n->to_string()); it != ids_.end()) {
      if (!it->second.variable) {
        c_.error(at, s.key(key), fmt::format("{} is not a variable", n->to_string()));
        return false;
      }
      const auto first = boolean_too ? ua::builtin_type::boolean : ua::builtin_type::sbyte;
      if (!(it->second.type >= first && it->second.type <= ua::builtin_type::double_)) {
        c_.error(at, s.key(key), fmt::format("{} is of type {}: {} names a {}numeric variable", n->to_string(),
                                             ua::builtin_type_name(it->second.type), key,
                                             boolean_too ? "Boolean or " : ""));
        return false;
      }
      return true;
    }
    if (server_variable(*n)) return true;
    c_.error(at, s.key(key), fmt::format("{} is not a variable{}", n->to_string(), left_to_server(*n) ? "" : " of this file"));
    return false;
  }

  // [[deviation_alarms]]: (Non)ExclusiveDeviationAlarmType conditions (uactor::deviation_alarm, Part 9
  // §5.8.22): the limits of a limit alarm on input - setpoint.
  void read_deviation_alarms(section& top) {
    const auto* entries = table_array(top, "deviation_alarms", c_);
    if (!entries) return;
    for (std::size_t i = 0; i < entries->size(); ++i) {
      const auto& t = *(*entries)[i].as_table();
      section s(c_, t, fmt::format("deviation_alarms[{}]", i));
      deviation_alarm a;
      bool ok = read_limit_alarm(s, t, a);
      if (!t.get("setpoint")) {
        c_.error(t.source(), s.key("setpoint"), "missing (the numeric variable the input should follow)");
        ok = false;
      }
      ok = numeric_variable(s, t, "setpoint", a.setpoint) && ok;
      ok = numeric_variable(s, t, "base_setpoint", a.base_setpoint) && ok;
      if (ok) p_.deviation_alarms.push_back(std::move(a));
    }
  }

  // [[rate_of_change_alarms]]: (Non)ExclusiveRateOfChangeAlarmType conditions (uactor::rate_of_change_alarm,
  // Part 9 §5.8.23): the limits in the input's units per second, measured over window_ms (docs/decisions/0070).
  void read_rate_of_change_alarms(section& top) {
    const auto* entries = table_array(top, "rate_of_change_alarms", c_);
    if (!entries) return;
    for (std::size_t i = 0; i < entries->size(); ++i) {
      const auto& t = *(*entries)[i].as_table();
      section s(c_, t, fmt::format("rate_of_change_alarms[{}]", i));
      rate_of_change_alarm a;
      bool ok = read_limit_alarm(s, t, a);
      if (std::int64_t ms = 0; s.integer("window_ms", 1'000, 3'600'000, ms)) a.window = std::chrono::milliseconds(ms);
      else if (t.get("window_ms")) ok = false;
      if (const auto* units = sub_table(s, "units", c_)) {
        section u(c_, *units, s.key("units"));
        engineering_units eu;
        std::string name, desc;
        u.integer("id", std::numeric_limits<std::int32_t>::min(), std::numeric_limits<std::int32_t>::max(), eu.unit_id);
        if (u.string("name", name)) eu.display_name = ua::localized_text{ua::ua_string(""), ua::ua_string(name)};
        if (u.string("description", desc)) eu.description = ua::localized_text{ua::ua_string(""), ua::ua_string(desc)};
        a.units = std::move(eu);
      }
      if (ok) p_.rate_of_change_alarms.push_back(std::move(a));
    }
  }

  // An off-normal or discrete alarm's input must be Boolean or numeric (`what` names the kind).
  bool two_state_input(section& s, const alarm_common& common, const char* what) {
    if (!common.input_entry) return true;
    const auto type = common.input_entry->type;
    if (type >= ua::builtin_type::boolean && type <= ua::builtin_type::double_) return true;
    c_.error(*common.input_at, s.key("input"),
             fmt::format("{} is of type {}: {} watches a Boolean or numeric variable", common.input.to_string(),
                         ua::builtin_type_name(type), what));
    return false;
  }

  // The value `key` of an off-normal (normal) or discrete (active) alarm: a Boolean for a Boolean
  // input, a Boolean or a number otherwise. False after an error.
  bool read_reference(section& s, const alarm_common& common, const char* key, ua::variant& out) {
    const toml::node* n = s.get(key);
    if (!n) return true;
    const bool boolean_input = common.input_entry && common.input_entry->type == ua::builtin_type::boolean;
    if (n->is_boolean()) {
      out = n->as_boolean()->get();
      return true;
    }
    if (n->is_number() && !boolean_input) {
      const double v = n->is_integer() ? static_cast<double>(n->as_integer()->get()) : n->as_floating_point()->get();
      out = v;
      if (!std::isnan(v)) return true;
      c_.error(*n, s.key(key), fmt::format("nan is not a{} value", std::string_view(key) == "normal" ? " normal" : "n alarm"));
      return false;
    }
    c_.error(*n, s.key(key),
             boolean_input ? fmt::format("expected true or false ({} is Boolean), got {}", common.input.to_string(), type_name(*n))
                           : "expected a boolean or a number, got " + type_name(*n));
    return false;
  }

  // [[off_normal_alarms]]: OffNormalAlarmType conditions (uactor::off_normal_alarm); and
  // [[trip_alarms]], TripAlarmType conditions (uactor::trip_alarm, Part 9 §5.8.24.4): off-normal
  // alarms of that type, the same keys.
  template <class Alarm>
  void read_off_normal_alarms(section& top, const char* table, const char* what, std::vector<Alarm>& out) {
    const auto* entries = table_array(top, table, c_);
    if (!entries) return;
    for (std::size_t i = 0; i < entries->size(); ++i) {
      const auto& t = *(*entries)[i].as_table();
      section s(c_, t, fmt::format("{}[{}]", table, i));
      alarm_common common = read_alarm_common(s, t);
      bool ok = two_state_input(s, common, what) && common.ok;
      Alarm a;
      common.copy_to(a);
      if (common.input_entry && common.input_entry->type != ua::builtin_type::boolean)
        a.normal = 0.0;  // a numeric input's default normal value
      ok = read_reference(s, common, "normal", a.normal) && ok;
      s.integer("severity", 1, 1000, a.severity);
      if (ok) out.push_back(std::move(a));
    }
  }

  // [[discrete_alarms]]: DiscreteAlarmType conditions (uactor::discrete_alarm), active while the
  // input is `active`.
  void read_discrete_alarms(section& top) {
    const auto* entries = table_array(top, "discrete_alarms", c_);
    if (!entries) return;
    for (std::size_t i = 0; i < entries->size(); ++i) {
      const auto& t = *(*entries)[i].as_table();
      section s(c_, t, fmt::format("discrete_alarms[{}]", i));
      alarm_common common = read_alarm_common(s, t);
      bool ok = two_state_input(s, common, "a discrete alarm") && common.ok;
      discrete_alarm a;
      common.copy_to(a);
      ok = read_reference(s, common, "active", a.active) && ok;
      s.integer("severity", 1, 1000, a.severity);
      if (ok) p_.discrete_alarms.push_back(std::move(a));
    }
  }

  // [[discrepancy_alarms]]: DiscrepancyAlarmType conditions (uactor::discrepancy_alarm, Part 9 §5.8.25,
  // docs/decisions/0081): the input should reach the target variable within expected_time_ms.
  void read_discrepancy_alarms(section& top) {
    const auto* entries = table_array(top, "discrepancy_alarms", c_);
    if (!entries) return;
    for (std::size_t i = 0; i < entries->size(); ++i) {
      const auto& t = *(*entries)[i].as_table();
      section s(c_, t, fmt::format("discrepancy_alarms[{}]", i));
      alarm_common common = read_alarm_common(s, t);
      bool ok = two_state_input(s, common, "a discrepancy alarm") && common.ok;
      discrepancy_alarm a;
      common.copy_to(a);
      if (!t.get("target")) {
        c_.error(t.source(), s.key("target"), "missing (TargetValueNode: the variable the input should reach)");
        ok = false;
      }
      ok = numeric_variable(s, t, "target", a.target, true) && ok;
      // ExpectedTime: a second (the housekeeping tick sees it run out) to a day, as the alarm delays.
      if (std::int64_t ms = 0; s.integer("expected_time_ms", 1'000, 86'400'000, ms)) {
        a.expected_time = std::chrono::milliseconds(ms);
      } else {
        if (!t.get("expected_time_ms"))
          c_.error(t.source(), s.key("expected_time_ms"), "missing (ExpectedTime: how long the input may take to reach the target)");
        ok = false;
      }
      if (double tolerance = 0; s.number("tolerance", 0, 1e300, tolerance)) {
        // Tolerance widens a numeric comparison; a Boolean input is at its target or not.
        if (common.input_entry && common.input_entry->type == ua::builtin_type::boolean) {
          c_.error(*t.get("tolerance"), s.key("tolerance"),
                   fmt::format("{} is Boolean: a tolerance applies to a numeric input", common.input.to_string()));
          ok = false;
        }
        a.tolerance = tolerance;
      } else if (t.get("tolerance")) {
        ok = false;
      }
      s.integer("severity", 1, 1000, a.severity);
      if (ok) p_.discrepancy_alarms.push_back(std::move(a));
    }
  }

  // [[files]]: the application's files as FileType Objects (uactor::file_node, docs/files.md).
  void read_files(section& top) {
    const auto* entries = table_array(top, "files", c_);
    if (!entries) return;
    std::map<std::string, std::string> paths;  // resolved path -> where it was first given
    for (std::size_t i = 0; i < entries->size(); ++i) {
      const auto& t = *(*entries)[i].as_table();
      section s(c_, t, fmt::format("files[{}]", i));
      file_node f;
      bool ok = true;
      std::string id_text, parent_text, path_text;
      if (!s.string("id", id_text)) {
        if (!t.get("id")) c_.error(t.source(), s.key("id"), "missing (the file Object's NodeId, a new node)");
        ok = false;
      } else if (auto id = node(id_text, *t.get("id"), s.key("id"))) {
        const auto text = id->to_string();
        if (auto it = ids_.find(text); it != ids_.end()) {
          c_.error(*t.get("id"), s.key("id"),
                   fmt::format("{} is defined twice (first at {}, {})", text, c_.where(it->second.at), it->second.key));
          ok = false;
        } else if (auto [at, fresh] = alarm_ids_.emplace(text, c_.where(t.get("id")->source()) + ", " + s.key("id")); !fresh) {
          c_.error(*t.get("id"), s.key("id"), fmt::format("{} is defined twice (first at {})", text, at->second));
          ok = false;
        } else if (auto taken = taken_by_server(*id)) {
          c_.error(*t.get("id"), s.key("id"), std::move(*taken));
          ok = false;
        }
        f.id = *id;
      } else {
        ok = false;
      }
      if (!s.string("name", f.name)) {
        if (!t.get("name")) c_.error(t.source(), s.key("name"), "missing (the file Object's BrowseName)");
        ok = false;
      } else if (f.name.empty()) {
        c_.error(*t.get("name"), s.key("name"), "a file's name is not empty");
        ok = false;
      }
      if (s.string("parent", parent_text)) {
        if (auto parent = node(parent_text, *t.get("parent"), s.key("parent"))) f.parent = *parent;
        else ok = false;
      }
      if (!s.string("path", path_text)) {
        if (!t.get("path")) c_.error(t.source(), s.key("path"), "missing (the file on disk the Object reads and writes)");
        ok = false;
      } else {
        const auto path = c_.resolve(path_text);
        std::error_code ec;
        if (std::filesystem::is_directory(path, ec)) {
          c_.error(*t.get("path"), s.key("path"), fmt::format("{} is a directory, not a file", path.string()));
          ok = false;
        } else if (!std::filesystem::is_directory(path.parent_path().empty() ? "." : path.parent_path(), ec)) {
          c_.error(*t.get("path"), s.key("path"), fmt::format("{}: the folder {} does not exist", path.string(),
                                                              path.parent_path().string()));
          ok = false;
        } else if (auto [at, fresh] = paths.emplace(path.string(), c_.where(t.get("path")->source())); !fresh) {
          c_.error(*t.get("path"), s.key("path"), fmt::format("{} is exposed twice (first at {})", path.string(), at->second));
          ok = false;
        }
        f.path = path.string();
      }
      s.boolean("writable", f.writable);
      s.integer("max_size", 1, std::int64_t{1} << 30, f.max_size);
      if (ok) p_.files.push_back(std::move(f));
    }
  }

  void read_logging(section& top) {
    const toml::table* t = sub_table(top, "logging", c_);
    toml::table empty;
    section s(c_, t ? *t : empty, "logging");
    auto& l = p_.logging;
    s.choice("level", {"trace", "debug", "info", "warn", "error", "critical", "off"}, l.level);
    s.choice("format", {"text", "json"}, l.format);
    if (s.string("file", l.file) && !l.file.empty() && l.file != "stderr") {
      const auto path = c_.resolve(l.file);
      std::error_code ec;
      const auto dir = path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
      if (std::filesystem::exists(path, ec) ? ::access(path.c_str(), W_OK) != 0 : ::access(dir.c_str(), W_OK) != 0)
        c_.error(*s.table().get("file"), s.key("file"), fmt::format("cannot write {}: {}", path.string(), std::strerror(errno)));
      l.file = path.string();
    }
    if (l.file == "stderr") l.file.clear();
    s.integer("max_size", 4096, std::numeric_limits<std::int64_t>::max(), l.max_size);
    s.integer("max_files", 1, 1000, l.max_files);
  }

  void read_metrics(section& top) {
    const toml::table* t = sub_table(top, "metrics", c_);
    if (!t) return;
    section s(c_, *t, "metrics");
    auto& m = p_.metrics;
    m.enabled = true;
    if (s.string("listen_address", m.listen_address)) {
      in_addr a{};
      if (inet_pton(AF_INET, m.listen_address.c_str(), &a) != 1)
        c_.error(*t->get("listen_address"), s.key("listen_address"),
                 fmt::format("\"{}\" is not an IPv4 address", m.listen_address));
    }
    if (s.integer("port", 0, 65535, m.port) && m.port != 0) {
      const auto* at = t->get("port");
      for (const auto& e : p_.server.endpoints)
        if (e.port == m.port) c_.error(*at, s.key("port"), fmt::format("{} is the port of an OPC UA endpoint", m.port));
      if (check_ports_) {
        if (auto why = port_taken(m.listen_address, m.port); !why.empty())
          c_.error(*at, s.key("port"), fmt::format("{} cannot be bound on {}: {}", m.port, m.listen_address, why));
      }
    }
    s.integer("max_connections", 1, 1024, m.max_connections);
  }

  // [redundancy]: non-transparent redundancy (Part 4 §6.6.2, docs/configuration.md "Redundancy").
  void read_redundancy(section& top) {
    const toml::table* t = sub_table(top, "redundancy", c_);
    if (!t) return;
    section s(c_, *t, "redundancy");
    auto& r = p_.server.redundancy;
    std::string support = "none";
    // A support value refused already says what is wrong: no second error about the URIs.
    const bool support_ok = s.choice("support", {"none", "cold", "warm", "hot"}, support) || !t->get("support");
    r.support = parse_redundancy_support(support).value_or(redundancy_support::none);
    std::vector<std::string> uris;
    const bool uris_ok = s.strings("server_uris", uris);
    if (uris_ok) {
      const auto& a = *t->get("server_uris")->as_array();
      for (std::size_t i = 0; i < uris.size(); ++i) {
        const auto k = fmt::format("{}[{}]", s.key("server_uris"), i);
        if (uris[i].empty()) c_.error(a[i], k, "an empty ServerUri");
        else if (std::find(uris.begin(), uris.begin() + static_cast<std::ptrdiff_t>(i), uris[i]) != uris.begin() + static_cast<std::ptrdiff_t>(i))
          c_.error(a[i], k, fmt::format("\"{}\" is listed twice", uris[i]));
      }
      r.server_uris = uris;
    }
    // Part 5 §6.3.8: a NonTransparentRedundancyType has a ServerUriArray; None has no set.
    if (r.support != redundancy_support::none && r.server_uris.empty() && !(t->get("server_uris") && !uris_ok))
      c_.error(t->get("server_uris") ? t->get("server_uris")->source() : (t->get("support") ? t->get("support")->source() : t->source()),
               s.key(t->get("server_uris") ? "server_uris" : "support"),
               fmt::format("support \"{}\" needs server_uris: the ApplicationUris of the redundant servers, this one's included",
                           support));
    if (support_ok && r.support == redundancy_support::none && !r.server_uris.empty())
      c_.error(*t->get("server_uris"), s.key("server_uris"),
               "server_uris without support = \"cold\", \"warm\" or \"hot\": a server of no redundant set lists none");
    s.integer("service_level", 0, 255, r.service_level);
    // Time for the clients to see ServiceLevel 0 and switch before the sessions close.
    std::int64_t delay = r.support == redundancy_support::none ? 0 : 1000;
    s.integer("shutdown_delay_ms", 0, 60'000, delay);
    r.shutdown_delay = std::chrono::milliseconds(delay);
  }

  // [history] (docs/history.md): the historian's store, its retention, the nodes that historize.
  // [discovery] (docs/discovery.md): registration with an LDS, and acting as one.
  void read_discovery(section& top) {
    const toml::table* t = sub_table(top, "discovery", c_);
    if (!t) return;
    section s(c_, *t, "discovery");
    auto& d = p_.server.discovery;
    if (s.string("register_with", d.register_with) && d.register_with.rfind("opc.tcp://", 0) != 0)
      c_.error(*t->get("register_with"), s.key("register_with"), "the LDS's endpoint: \"opc.tcp://host:port\"");
    s.choice("security", {"sign", "encrypt"}, d.register_security);
    s.choice("policy", {"Basic256Sha256", "Aes128_Sha256_RsaOaep", "Aes256_Sha256_RsaPss"}, d.register_policy);
    std::int64_t period = d.register_period.count();
    if (s.integer("period_s", 1, 86'400, period)) d.register_period = std::chrono::seconds(period);
    s.strings("capabilities", d.capabilities);
    s.boolean("lds", d.lds);
    s.integer("max_registrations", 1, 100'000, d.max_registrations);
    std::int64_t expiry = d.registration_expiry.count();
    if (s.integer("expiry_s", 1, 86'400, expiry)) d.registration_expiry = std::chrono::seconds(expiry);
    if (!d.lds && (t->get("max_registrations") || t->get("expiry_s")))
      c_.error(*(t->get("max_registrations") ? t->get("max_registrations") : t->get("expiry_s")),
               s.key(t->get("max_registrations") ? "max_registrations" : "expiry_s"),
               "applies to an LDS: set lds = true, or leave it out");
  }

  // A HistoricalDataConfiguration (Part 11 §5.2.2): Stepped, Definition, the
  // AggregateConfiguration (Part 13 §4.2.1.2, percentages 0..100), and the collection settings
  // (docs/history.md "Collection"; the bounds of history_configuration_plan).
  void read_history_configuration(section& s, history_configuration_plan& c) {
    s.boolean("stepped", c.stepped);
    s.string("definition", c.definition);
    s.boolean("treat_uncertain_as_bad", c.treat_uncertain_as_bad);
    s.integer("percent_data_bad", 0, 100, c.percent_data_bad);
    s.integer("percent_data_good", 0, 100, c.percent_data_good);
    s.boolean("use_sloped_extrapolation", c.use_sloped_extrapolation);
    constexpr double year_ms = 366.0 * 86'400'000.0;
    s.number("min_time_interval_ms", 0, year_ms, c.min_time_interval_ms);
    if (s.number("max_time_interval_ms", 0, year_ms, c.max_time_interval_ms) && c.max_time_interval_ms > 0) {
      if (c.max_time_interval_ms < 1'000)
        c_.error(*s.get("max_time_interval_ms"), s.key("max_time_interval_ms"),
                 "under 1000: the recorder repeats a held value on its tick of a second (0: never)");
      else if (c.max_time_interval_ms < c.min_time_interval_ms)
        c_.error(*s.get("max_time_interval_ms"), s.key("max_time_interval_ms"),
                 fmt::format("shorter than min_time_interval_ms ({})", c.min_time_interval_ms));
    }
    std::string format = "absolute_value";
    if (s.choice("exception_deviation_format", {"absolute_value", "percent_of_value", "percent_of_range", "percent_of_eu_range"}, format))
      c.exception_deviation_format = format == "percent_of_value"    ? history_deviation_format::percent_of_value
                                     : format == "percent_of_range"    ? history_deviation_format::percent_of_range
                                     : format == "percent_of_eu_range" ? history_deviation_format::percent_of_eu_range
                                                                       : history_deviation_format::absolute_value;
    // A percentage of a value or a range: 0..100; in the value's units: any size.
    s.number("exception_deviation", 0, format == "absolute_value" ? 1e300 : 100.0, c.exception_deviation);
  }

  void read_history(section& top) {
    const toml::table* t = sub_table(top, "history", c_);
    if (!t) return;
    section s(c_, *t, "history");
    auto& h = p_.server.history;
    s.choice("backend", {"sqlite", "postgresql"}, h.backend);
    if (h.backend == "postgresql") {
      // A libpq connection string or URI; the database is reached when the server opens.
      if (std::string file; s.string("path", file))
        c_.error(*t->get("path"), s.key("path"), "a SQLite file: backend \"postgresql\" takes `connection`");
      if (!s.string("connection", h.connection) || h.connection.empty())
        c_.error(t->get("connection") ? t->get("connection")->source() : t->source(), s.key("connection"),
                 "backend \"postgresql\" needs a connection string (\"host=/run/postgresql dbname=plant\" or a postgresql:// URI)");
    } else if (std::string info; s.string("connection", info)) {
      c_.error(*t->get("connection"), s.key("connection"), "a PostgreSQL connection: backend \"sqlite\" takes `path`");
    }
    if (h.backend == "sqlite") h.path = "uactor-history.sqlite";
    if (h.backend == "sqlite" && s.string("path", h.path) && h.path.empty())
      c_.error(*t->get("path"), s.key("path"), "an empty path: leave [history] out to keep no history");
    if (!h.path.empty()) {
      // The embedded default has no folder of its own: its file is in the working folder.
      const auto path = c_.resolve(h.path);
      std::error_code ec;
      const auto dir = path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
      if (std::filesystem::exists(path, ec) ? ::access(path.c_str(), R_OK | W_OK) != 0 : ::access(dir.c_str(), W_OK) != 0)
        c_.error(t->get("path") ? t->get("path")->source() : t->source(), s.key("path"),
                 fmt::format("cannot write {}: {}", path.string(), std::strerror(errno)));
      h.path = path.string();
    }
    // The on-disk spool behind the memory queue while PostgreSQL is unavailable (SQLite's store is
    // a local file: what fails it, a full disk, would fail the spool too).
    if (h.backend == "postgresql") {
      if (s.string("spool", h.spool_path)) {
        if (h.spool_path.empty()) {
          c_.error(*t->get("spool"), s.key("spool"), "an empty path: spool_max_mb = 0 keeps no spool");
        } else {
          const auto path = c_.resolve(h.spool_path);
          std::error_code ec;
          const auto dir = path.parent_path().empty() ? std::filesystem::path(".") : path.parent_path();
          if (std::filesystem::exists(path, ec) ? ::access(path.c_str(), R_OK | W_OK) != 0 : ::access(dir.c_str(), W_OK) != 0)
            c_.error(*t->get("spool"), s.key("spool"), fmt::format("cannot write {}: {}", path.string(), std::strerror(errno)));
          h.spool_path = path.string();
        }
      } else {
        h.spool_path = c_.resolve(h.spool_path).string();
      }
      s.integer("spool_max_mb", 0, 1'048'576, h.spool_max_mb);
    } else {
      for (const char* key : {"spool", "spool_max_mb"})
        if (t->get(key)) c_.error(*s.get(key), s.key(key), "a spool is for backend \"postgresql\" (SQLite is a local file already)");
    }
    s.integer("retention_days", 0, 36'500, h.retention_days);
    s.integer("max_values_per_node", 0, std::numeric_limits<std::int64_t>::max(), h.max_values_per_node);
    s.boolean("updates", h.updates);
    if (s.strings("events", h.events)) {
      const auto& a = *t->get("events")->as_array();
      for (std::size_t i = 0; i < h.events.size(); ++i)
        if (!ua::parse_node_id(h.events[i]))
          c_.error(a[i], fmt::format("{}[{}]", s.key("events"), i), fmt::format("\"{}\" is not a NodeId", h.events[i]));
    }
    if (const toml::table* d = sub_table(s, "defaults", c_)) {
      section ds(c_, *d, s.key("defaults"));
      read_history_configuration(ds, h.defaults);
    }
    if (const auto* configurations = table_array(s, "configurations", c_)) {
      for (std::size_t i = 0; i < configurations->size(); ++i) {
        const auto& ct = *(*configurations)[i].as_table();
        section cs(c_, ct, fmt::format("{}[{}]", s.key("configurations"), i));
        auto& c = h.configurations.emplace_back();
        read_history_configuration(cs, c);
        const bool listed = cs.strings("nodes", c.nodes);
        if (!ct.get("nodes") || (listed && c.nodes.empty()))
          c_.error(ct.get("nodes") ? ct.get("nodes")->source() : ct.source(), cs.key("nodes"),
                   "the variables this configuration is for: NodeIds, or prefixes ending in *");
        if (!listed || c.nodes.empty()) continue;
        const auto& a = *ct.get("nodes")->as_array();
        for (std::size_t k = 0; k < c.nodes.size(); ++k) {
          std::string_view text = c.nodes[k];
          if (!text.empty() && text.back() == '*') continue;
          if (!ua::parse_node_id(text))
            c_.error(a[k], fmt::format("{}[{}]", cs.key("nodes"), k), fmt::format("\"{}\" is not a NodeId (or a prefix ending in *)", text));
        }
      }
    }
    if (s.strings("historize", h.historize)) {
      const auto& a = *t->get("historize")->as_array();
      for (std::size_t i = 0; i < h.historize.size(); ++i) {
        std::string_view text = h.historize[i];
        if (!text.empty() && text.back() == '*') continue;  // a prefix: any text may start a NodeId
        if (!ua::parse_node_id(text))
          c_.error(a[i], fmt::format("{}[{}]", s.key("historize"), i), fmt::format("\"{}\" is not a NodeId (or a prefix ending in *)", text));
      }
    }
  }

  // [pubsub] (docs/pubsub.md): MQTT connections, their writer groups and writers, their readers.
  void read_pubsub(section& top) {
    const toml::table* t = sub_table(top, "pubsub", c_);
    if (!t) return;
    section s(c_, *t, "pubsub");
    const auto* conns = table_array(s, "connections", c_);
    if (!conns) return;
    auto& out = p_.server.pubsub.connections;
    std::set<std::string, std::less<>> names;
    for (std::size_t i = 0; i < conns->size(); ++i) {
      const auto& ct = *(*conns)[i].as_table();
      section cs(c_, ct, fmt::format("pubsub.connections[{}]", i));
      pubsub::connection_config c;
      c.name = fmt::format("connection{}", i + 1);
      cs.string("name", c.name);
      if (!names.insert(c.name).second)
        c_.error(ct.get("name") ? ct.get("name")->source() : ct.source(), cs.key("name"), fmt::format("\"{}\" names another connection too", c.name));
      pubsub::transport_kind transport = pubsub::transport_kind::mqtt;
      if (!cs.string("url", c.url)) {
        if (!ct.get("url")) c_.error(ct.source(), cs.key("url"), "missing (mqtt://host[:port] or opc.udp://host:port)");
      } else {
        std::string host, why;
        std::uint16_t port = 0;
        if (!pubsub::parse_pubsub_url(c.url, transport, host, port, why))
          c_.error(*ct.get("url"), cs.key("url"), fmt::format("\"{}\": {}", c.url, why));
      }
      const bool udp = transport == pubsub::transport_kind::udp;
      // Part 14 §7.3.2: UDP carries UADP; MQTT JSON or UADP (§7.3.5, binary payloads).
      std::string encoding = udp ? "uadp" : "json";
      if (cs.choice("encoding", {"json", "uadp"}, encoding) && udp && encoding == "json")
        c_.error(*ct.get("encoding"), cs.key("encoding"), "opc.udp:// carries UADP (Part 14 §7.3.2), not JSON");
      c.encoding = udp || encoding == "uadp" ? pubsub::message_encoding::uadp : pubsub::message_encoding::json;
      const bool uadp = c.encoding == pubsub::message_encoding::uadp;
      if (uadp && !udp) c.mqtt.topic_prefix = "opcua/uadp";  // §7.3.5.7: <Prefix>/<Encoding>
      // The PublisherId: a String, or a number (Part 14 §6.2.7.1) of the type publisher_id_type names.
      c.publisher_id = "uactor";
      bool numeric_id = false;
      if (const auto* pid = cs.get("publisher_id"); pid && pid->is_integer()) {
        const auto v = pid->as_integer()->get();
        if (v < 0) c_.error(*pid, cs.key("publisher_id"), fmt::format("{} is negative", v));
        c.publisher_id = std::to_string(v);
        numeric_id = true;
        c.publisher_id_kind = pubsub::publisher_id_type::uint64;
      } else if (cs.string("publisher_id", c.publisher_id) && !udp && !pubsub_topic_level_ok(c.publisher_id)) {
        c_.error(*ct.get("publisher_id"), cs.key("publisher_id"), "empty, or holds '/', '+' or '#' (it is a topic level)");
      }
      std::string id_type = numeric_id ? "uint64" : "string";
      if (cs.choice("publisher_id_type", {"byte", "uint16", "uint32", "uint64", "string"}, id_type)) {
        c.publisher_id_kind = id_type == "byte"     ? pubsub::publisher_id_type::byte
                              : id_type == "uint16" ? pubsub::publisher_id_type::uint16
                              : id_type == "uint32" ? pubsub::publisher_id_type::uint32
                              : id_type == "uint64" ? pubsub::publisher_id_type::uint64
                                                    : pubsub::publisher_id_type::string;
        pubsub::uadp_publisher_id probe;
        if (!pubsub::make_publisher_id(c.publisher_id, c.publisher_id_kind, probe))
          c_.error(*ct.get("publisher_id_type"), cs.key("publisher_id_type"),
                   fmt::format("the publisher_id \"{}\" is not a {} number", c.publisher_id, id_type));
        else if (!udp && c.publisher_id_kind != pubsub::publisher_id_type::string && !numeric_id)
          c_.error(*ct.get("publisher_id_type"), cs.key("publisher_id_type"), "a numeric PublisherId is written as a TOML integer");
      }
      auto& u = c.udp;
      const char* udp_keys[] = {"multicast_interface", "multicast_ttl", "multicast_loop", "max_datagram", "receive_buffer"};
      for (const char* k : udp_keys)
        if (!udp && ct.get(k)) c_.error(*ct.get(k), cs.key(k), "a key of opc.udp:// connections");
      for (const char* k : {"max_chunked_message_size", "chunk_timeout_ms", "chunks_in_flight"})
        if (!uadp && ct.get(k)) c_.error(*ct.get(k), cs.key(k), "a key of UADP connections (opc.udp://, or encoding = \"uadp\")");
      if (cs.string("multicast_interface", u.multicast_interface)) {
        in_addr probe{};
        if (::inet_pton(AF_INET, u.multicast_interface.c_str(), &probe) != 1)
          c_.error(*ct.get("multicast_interface"), cs.key("multicast_interface"),
                   fmt::format("\"{}\" is not an IPv4 address (the interface's, e.g. 192.168.1.10)", u.multicast_interface));
      }
      cs.integer("multicast_ttl", 0, 255, u.multicast_ttl);
      cs.boolean("multicast_loop", u.multicast_loop);
      cs.integer("max_datagram", 64, 65'507, u.max_datagram);
      cs.integer("receive_buffer", 0, 1 << 30, u.receive_buffer);
      // Chunked DataSetMessages received (Part 14 §7.2.4.4.4, docs/decisions/0072): bounded.
      cs.integer("max_chunked_message_size", 1'024, 256 << 20, u.max_chunked_message_size);
      std::int64_t chunk_ms = u.chunk_timeout.count();
      if (cs.integer("chunk_timeout_ms", 1, 3'600'000, chunk_ms)) u.chunk_timeout = std::chrono::milliseconds(chunk_ms);
      cs.integer("chunks_in_flight", 1, 64, u.chunks_in_flight);
      auto& m = c.mqtt;
      cs.string("client_id", m.client_id);
      cs.string("username", m.username);
      cs.string("password", m.password);
      if (cs.string("topic_prefix", m.topic_prefix) && (m.topic_prefix.empty() || m.topic_prefix.find_first_of("+#") != std::string::npos))
        c_.error(*ct.get("topic_prefix"), cs.key("topic_prefix"), "empty, or holds '+' or '#'");
      std::int64_t ms = m.keep_alive.count();
      if (cs.integer("keep_alive_ms", 5'000, 3'600'000, ms)) m.keep_alive = std::chrono::milliseconds(ms);
      ms = m.reconnect_min.count();
      if (cs.integer("reconnect_min_ms", 1, 3'600'000, ms)) m.reconnect_min = std::chrono::milliseconds(ms);
      ms = m.reconnect_max.count();
      if (cs.integer("reconnect_max_ms", 1, 3'600'000, ms)) m.reconnect_max = std::chrono::milliseconds(ms);
      if (m.reconnect_max < m.reconnect_min && ct.get("reconnect_max_ms"))
        c_.error(*ct.get("reconnect_max_ms"), cs.key("reconnect_max_ms"), "below reconnect_min_ms");
      cs.integer("queue_limit", 1, 10'000'000, m.queue_limit);
      std::set<std::uint16_t> writer_ids;
      if (const auto* groups = table_array(cs, "writer_groups", c_)) {
        std::set<std::string, std::less<>> group_names;
        for (std::size_t g = 0; g < groups->size(); ++g) {
          const auto& gt = *(*groups)[g].as_table();
          section gs(c_, gt, fmt::format("pubsub.connections[{}].writer_groups[{}]", i, g));
          pubsub::writer_group_config wg;
          wg.name = fmt::format("group{}", g + 1);
          wg.id = static_cast<std::uint16_t>(g + 1);
          if (gs.string("name", wg.name) && !udp && !pubsub_topic_level_ok(wg.name))
            c_.error(*gt.get("name"), gs.key("name"), "empty, or holds '/', '+' or '#' (it is a topic level)");
          if (!group_names.insert(wg.name).second)
            c_.error(gt.get("name") ? gt.get("name")->source() : gt.source(), gs.key("name"), fmt::format("\"{}\" names another writer group too", wg.name));
          gs.integer("id", 1, 65'535, wg.id);
          ms = wg.publishing_interval.count();
          if (gs.integer("publishing_interval_ms", 1, 86'400'000, ms)) wg.publishing_interval = std::chrono::milliseconds(ms);
          ms = 0;
          if (gs.integer("keep_alive_ms", 0, 86'400'000, ms)) wg.keep_alive_time = std::chrono::milliseconds(ms);
          gs.integer("max_network_message_size", 1'024, 256 << 20, wg.max_network_message_size);
          gs.integer("qos", 0, 1, wg.qos);
          const auto* writers = table_array(gs, "writers", c_);
          if (!writers) {
            if (!gt.get("writers")) c_.error(gt.source(), gs.key("writers"), "missing (a writer group needs [[...writers]])");
          } else {
            std::set<std::string, std::less<>> writer_names;
            for (std::size_t w = 0; w < writers->size(); ++w) {
              const auto& wt = *(*writers)[w].as_table();
              section ws(c_, wt, fmt::format("pubsub.connections[{}].writer_groups[{}].writers[{}]", i, g, w));
              pubsub::dataset_writer_config dw;
              dw.name = fmt::format("writer{}", w + 1);
              dw.id = static_cast<std::uint16_t>(writer_ids.size() + 1);
              if (ws.string("name", dw.name) && !udp && !pubsub_topic_level_ok(dw.name))
                c_.error(*wt.get("name"), ws.key("name"), "empty, or holds '/', '+' or '#' (it is a topic level)");
              if (!writer_names.insert(dw.name).second)
                c_.error(wt.get("name") ? wt.get("name")->source() : wt.source(), ws.key("name"), fmt::format("\"{}\" names another writer of the group too", dw.name));
              ws.integer("id", 1, 65'535, dw.id);
              if (!writer_ids.insert(dw.id).second)
                c_.error(wt.get("id") ? wt.get("id")->source() : wt.source(), ws.key("id"),
                         fmt::format("DataSetWriterId {} is taken by another writer of the connection", dw.id));
              ws.integer("key_frame_count", 1, 1'000'000, dw.key_frame_count);
              std::string encoding = "variant";
              ws.choice("encoding", {"variant", "raw", "data_value"}, encoding);
              dw.encoding = encoding == "raw" ? pubsub::field_encoding::raw
                            : encoding == "data_value" ? pubsub::field_encoding::data_value : pubsub::field_encoding::variant;
              ws.string("dataset_name", dw.dataset_name);
              if (!ws.strings("variables", dw.variables)) {
                if (!wt.get("variables")) c_.error(wt.source(), ws.key("variables"), "missing (NodeIds, or prefixes ending in *)");
              } else {
                const auto& a = *wt.get("variables")->as_array();
                if (dw.variables.empty()) c_.error(a, ws.key("variables"), "expected at least one NodeId or prefix");
                for (std::size_t k = 0; k < dw.variables.size(); ++k) {
                  std::string_view text = dw.variables[k];
                  if (!text.empty() && text.back() == '*') continue;
                  if (!ua::parse_node_id(text))
                    c_.error(a[k], fmt::format("{}[{}]", ws.key("variables"), k), fmt::format("\"{}\" is not a NodeId (or a prefix ending in *)", text));
                }
              }
              wg.writers.push_back(std::move(dw));
            }
          }
          c.writer_groups.push_back(std::move(wg));
        }
      }
      if (const auto* readers = table_array(cs, "readers", c_)) {
        for (std::size_t r = 0; r < readers->size(); ++r) {
          const auto& rt = *(*readers)[r].as_table();
          section rs(c_, rt, fmt::format("pubsub.connections[{}].readers[{}]", i, r));
          pubsub::dataset_reader_config dr;
          dr.name = fmt::format("reader{}", r + 1);
          rs.string("name", dr.name);
          if (const auto* pid = rs.get("publisher_id"); pid && pid->is_integer()) {
            if (pid->as_integer()->get() < 0) c_.error(*pid, rs.key("publisher_id"), "negative");
            dr.publisher_id = std::to_string(pid->as_integer()->get());
          } else if (rs.string("publisher_id", dr.publisher_id) && !udp && !dr.publisher_id.empty() &&
                     !pubsub_topic_level_ok(dr.publisher_id)) {
            c_.error(*rt.get("publisher_id"), rs.key("publisher_id"), "holds '/', '+' or '#' (it is a topic level)");
          }
          if (rs.string("writer_group", dr.writer_group)) {
            if (udp)
              c_.error(*rt.get("writer_group"), rs.key("writer_group"),
                       "UADP carries the WriterGroupId, not the name: use writer_group_id");
            else if (!dr.writer_group.empty() && !pubsub_topic_level_ok(dr.writer_group))
              c_.error(*rt.get("writer_group"), rs.key("writer_group"), "holds '/', '+' or '#' (it is a topic level)");
          }
          rs.integer("writer_group_id", 0, 65'535, dr.writer_group_id);
          rs.strings("fields", dr.fields);
          if (!uadp && rt.get("fields"))
            c_.error(*rt.get("fields"), rs.key("fields"), "JSON names its fields: fields is for UADP readers (opc.udp://, or encoding = \"uadp\")");
          rs.integer("writer_id", 0, 65'535, dr.writer_id);
          ms = dr.message_receive_timeout.count();
          if (rs.integer("message_receive_timeout_ms", 0, 86'400'000, ms)) dr.message_receive_timeout = std::chrono::milliseconds(ms);
          const auto* targets = table_array(rs, "targets", c_);
          if (!targets) {
            if (!rt.get("targets")) c_.error(rt.source(), rs.key("targets"), "missing (fields and the variables they go to)");
          } else {
            std::set<std::string, std::less<>> nodes;
            for (std::size_t k = 0; k < targets->size(); ++k) {
              const auto& tt = *(*targets)[k].as_table();
              section ts(c_, tt, fmt::format("pubsub.connections[{}].readers[{}].targets[{}]", i, r, k));
              pubsub::reader_target target;
              if (!ts.string("field", target.field) && !tt.get("field")) {
                c_.error(tt.source(), ts.key("field"), "missing (the field's name in the Payload)");
              } else if (uadp && tt.get("field") &&
                         std::find(dr.fields.begin(), dr.fields.end(), target.field) == dr.fields.end()) {
                // Part 14 §7.2.4.5.5: UADP places fields; the reader's `fields` says which place has this name.
                c_.error(*tt.get("field"), ts.key("field"),
                         dr.fields.empty() ? fmt::format("\"{}\": a UADP reader names its fields in `fields` (the publisher's order)", target.field)
                                           : fmt::format("\"{}\" is not one of the reader's fields", target.field));
              }
              if (!ts.string("node", target.node)) {
                if (!tt.get("node")) c_.error(tt.source(), ts.key("node"), "missing (the target variable's NodeId)");
              } else if (const auto id = node(target.node, *tt.get("node"), ts.key("node"))) {
                // Part 14 §6.2.10.2: a target variable only once in a reader.
                if (!nodes.insert(id->to_string()).second)
                  c_.error(*tt.get("node"), ts.key("node"), fmt::format("{} is a target of this reader already", id->to_string()));
                if (auto it = ids_.find(id->to_string()); it != ids_.end()) {
                  if (!it->second.variable) c_.error(*tt.get("node"), ts.key("node"), fmt::format("{} is not a variable", target.node));
                } else if (!left_to_server(*id)) {
                  c_.error(*tt.get("node"), ts.key("node"), fmt::format("{} is not a variable of this file", id->to_string()));
                } else if (server_space().ok && !server_variable(*id)) {
                  c_.error(*tt.get("node"), ts.key("node"), fmt::format("{} is not a variable", target.node));
                }
              }
              dr.targets.push_back(std::move(target));
            }
          }
          c.readers.push_back(std::move(dr));
        }
      }
      if (c.writer_groups.empty() && c.readers.empty())
        c_.error(ct.source(), cs.key("writer_groups"), "a connection with neither writer groups nor readers");
      out.push_back(std::move(c));
    }
  }

  void read_actors(section& top) {
    const toml::table* t = sub_table(top, "actors", c_);
    toml::table empty;
    section s(c_, t ? *t : empty, "actors");
    std::string host = server_.session_host;
    s.choice("session_host", {"multiplexer", "scheduler"}, host);
    p_.server.session_host = host;
    s.choice("writers", {"scheduler", "detached"}, p_.writer_placement);
    s.integer("threads", 1, 64, p_.threads);
    // docs/decisions/0022: where the channel and session crypto runs, and how much may wait.
    std::uint32_t workers = server_.crypto_workers;
    std::uint32_t queue = server_.crypto_queue;
    s.integer("crypto_workers", 0, 64, workers);
    s.integer("crypto_queue", 1, 1'000'000, queue);
    p_.server.crypto_workers = workers;
    p_.server.crypto_queue = queue;
  }

  void finish() {
    auto& plan = p_.server;
    plan.users_file = server_.users_file;
    plan.user_hashes = user_hashes_;
    plan.roles = roles_;
    plan.permissions = permissions_;
    if (!pki_dir_.empty()) plan.pki_dir = pki_dir_;
    plan.certificate_names = san_;
    plan.max_trust_list_size = max_trust_list_size_;
    plan.trust = trust_;
    // A secured policy needs the server certificate: in own/ already, or made there at start
    // (security::pki_store::load_or_create_own); found out now, not after the listeners opened.
    if (check_store_ && secured_at_ && !pki_dir_refused_) {
      const auto store = pki_dir_.empty() ? security::default_pki_dir() : pki_dir_;
      const place& at = !secured_at_->written && pki_dir_at_ ? *pki_dir_at_ : *secured_at_;
      if (auto why = security::own_identity_problem(store); !why.empty())
        c_.error(at.at, at.key,
                 fmt::format("a secured policy needs the server certificate, and the store {} cannot give one: {}", store,
                             why));
    }
  }

  checker& c_;
  bool check_ports_;
  bool check_store_;
  std::optional<place> secured_at_;
  std::optional<place> pki_dir_at_;
  bool pki_dir_refused_ = false;
  std::vector<std::string> san_;
  std::uint32_t max_trust_list_size_ = server_plan{}.max_trust_list_size;
  // [[roles]], [[users]] roles, [[permissions]] (docs/security.md "Roles and permissions").
  struct user_role {
    std::string role;
    std::string user;
    diagnostic at;
  };
  std::vector<user_role> user_roles_;
  std::set<std::string> role_names_;
  std::vector<role_plan> roles_;
  std::vector<permission_plan> permissions_;
  std::span<const nodeset_file> more_nodesets_;
  std::unique_ptr<server_nodes> space_;  // server_space(); null until asked
  plant p_;
  server_plan server_;
  bool application_uri_set_ = false;
  std::vector<std::string> user_hashes_;
  std::vector<std::string> trust_;
  std::string pki_dir_;
  std::unordered_map<std::string, node_entry> ids_;
  std::map<std::string, std::string> alarm_ids_;  // a condition's NodeId -> where it is defined
  std::set<std::string> alarm_groups_;            // [[alarm_groups]] ids
  std::set<std::string> event_sources_;            // "notifier input" pairs already referenced
};

}  // namespace

std::string node_change_id(const node_change& change) {
  return std::visit(
      [](const auto& n) -> std::string {
        if constexpr (requires { n.id; }) return n.id.to_string();
        else if constexpr (requires { n.source; }) return n.source.to_string();
        else return "?";
      },
      change);
}

std::string diagnostic::to_string() const {
  if (line == 0) return fmt::format("{}: {}{}{}", file, key, key.empty() ? "" : ": ", message);
  return fmt::format("{}:{}:{}: {}{}{}", file, line, column, key, key.empty() ? "" : ": ", message);
}

load_result load(std::string_view text, std::string_view file_name, std::string_view base_dir, bool check_ports,
                 bool check_store, std::span<const nodeset_file> more_nodesets) {
  load_result r;
  checker c{std::string(file_name), std::filesystem::path(base_dir)};
  toml::table root;
  try {
    root = toml::parse(text, file_name);
  } catch (const toml::parse_error& e) {
    const auto& at = e.source();
    r.errors.push_back({std::string(file_name), at.begin.line, at.begin.column, "", std::string(e.description())});
    return r;
  }
  plant_reader reader(c, check_ports, check_store, more_nodesets);
  r.value = reader.read(root);
  r.errors = c.take();
  return r;
}

load_result load_file(const std::string& path, bool check_ports, bool check_store,
                      std::span<const nodeset_file> more_nodesets) {
  std::ifstream in(path, std::ios::binary);
  std::error_code ec;
  if (!in || std::filesystem::is_directory(path, ec)) {
    load_result r;
    r.errors.push_back({path, 0, 0, "", fmt::format("cannot read the file: {}",
                                                    std::filesystem::is_directory(path, ec) ? "is a directory"
                                                                                            : std::strerror(errno))});
    return r;
  }
  std::stringstream buffer;
  buffer << in.rdbuf();
  const auto base = std::filesystem::path(path).parent_path();
  return load(buffer.str(), path, base.empty() ? "." : base.string(), check_ports, check_store, more_nodesets);
}

std::span<const std::string_view> known_keys() { return key_table; }

}  // namespace uactor::config
