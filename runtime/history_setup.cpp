#include "runtime/history_setup.hpp"

#include <string_view>

#include <spdlog/spdlog.h>

#include "history/postgres_store.hpp"
#include "history/sqlite_store.hpp"

namespace uactor {

std::shared_ptr<history::history_store> open_history_store(const history_plan& plan) {
  if (plan.backend == "postgresql") {
    auto store = std::make_shared<history::postgres_store>(plan.connection);
    try {
      store->connect();
    } catch (const history::store_unavailable& e) {
      // Not reachable now: the server opens all the same, values wait in the historian's queue
      // and reads answer Bad until the database is back (docs/history.md "When storage is down").
      spdlog::warn("{}; the server opens, the historian connects when it can", e.what());
    }
    return store;
  }
  if (plan.backend != "sqlite")
    throw history::store_error("history: backend \"" + plan.backend + "\" is not known (sqlite and postgresql are)");
  return std::make_shared<history::sqlite_store>(plan.path);
}

namespace {

bool matches(std::string_view pattern, std::string_view id) {
  if (!pattern.empty() && pattern.back() == '*') return id.starts_with(pattern.substr(0, pattern.size() - 1));
  return id == pattern;
}

}  // namespace

std::size_t historize_matching(ua::address_space& as, const std::vector<std::string>& patterns,
                               std::vector<std::string>& unmatched) {
  std::vector<bool> used(patterns.size(), false);
  std::size_t count = 0;
  for (ua::node_index n = 0; n < as.size(); ++n) {
    const ua::node& x = as.at(n);
    if (x.removed || x.cls != ua::node_class::variable) continue;
    const std::string id = x.id.to_node_id().to_string();
    for (std::size_t p = 0; p < patterns.size(); ++p) {
      if (!matches(patterns[p], id)) continue;
      used[p] = true;
      if (as.set_historizing(n, true).is_good()) ++count;
      break;
    }
  }
  for (std::size_t p = 0; p < patterns.size(); ++p)
    if (!used[p]) unmatched.push_back(patterns[p]);
  return count;
}

namespace history_setup_checks {

void check_collection(const history_configuration_plan& c, const std::string& where, std::vector<std::string>& out) {
  const auto bad = [&](std::string what) { out.push_back(where + ": " + std::move(what)); };
  constexpr double year_ms = 366.0 * 86'400'000.0;
  if (!(c.min_time_interval_ms >= 0 && c.min_time_interval_ms <= year_ms))
    bad("min_time_interval_ms is out of range 0..a year");
  if (!(c.max_time_interval_ms >= 0 && c.max_time_interval_ms <= year_ms))
    bad("max_time_interval_ms is out of range 0..a year");
  else if (c.max_time_interval_ms > 0 && c.max_time_interval_ms < 1'000)
    bad("max_time_interval_ms under 1000: the recorder repeats values on its tick of a second");
  else if (c.max_time_interval_ms > 0 && c.max_time_interval_ms < c.min_time_interval_ms)
    bad("max_time_interval_ms is shorter than min_time_interval_ms");
  const bool percent = c.exception_deviation_format != history_deviation_format::absolute_value;
  const auto format = static_cast<std::int32_t>(c.exception_deviation_format);
  if (format < 0 || format > 3) bad("exception_deviation_format is not one of Part 11's four (0..3)");
  if (!(c.exception_deviation >= 0 && c.exception_deviation <= (percent ? 100.0 : 1e300)))
    bad(percent ? "exception_deviation is out of range 0..100 (percent)" : "exception_deviation is negative or not a number");
}

}  // namespace history_setup_checks

std::vector<std::string> collection_errors(const history_plan& plan) {
  using history_setup_checks::check_collection;
  std::vector<std::string> out;
  check_collection(plan.defaults, "history.defaults", out);
  for (std::size_t i = 0; i < plan.configurations.size(); ++i)
    check_collection(plan.configurations[i], "history.configurations[" + std::to_string(i) + "]", out);
  return out;
}

actors::historical_configuration to_historical_configuration(const history_configuration_plan& p) {
  actors::historical_configuration c;
  c.aggregate.stepped = p.stepped;
  c.aggregate.treat_uncertain_as_bad = p.treat_uncertain_as_bad;
  c.aggregate.percent_data_bad = p.percent_data_bad;
  c.aggregate.percent_data_good = p.percent_data_good;
  c.aggregate.use_sloped_extrapolation = p.use_sloped_extrapolation;
  c.definition = p.definition;
  c.collection.min_time_interval_ms = p.min_time_interval_ms;
  c.collection.max_time_interval_ms = p.max_time_interval_ms;
  c.collection.exception_deviation = p.exception_deviation;
  c.collection.format = static_cast<actors::deviation_format>(p.exception_deviation_format);
  return c;
}

std::vector<std::pair<ua::node_id, actors::historical_configuration>> configured_variables(
    const ua::address_space& as, const std::vector<history_configuration_plan>& configurations,
    std::vector<std::string>& unmatched) {
  std::vector<std::pair<ua::node_id, actors::historical_configuration>> out;
  if (configurations.empty()) return out;
  std::vector<std::vector<bool>> used(configurations.size());
  for (std::size_t c = 0; c < configurations.size(); ++c) used[c].assign(configurations[c].nodes.size(), false);
  for (ua::node_index n = 0; n < as.size(); ++n) {
    const ua::node& x = as.at(n);
    if (x.removed || x.cls != ua::node_class::variable) continue;
    const ua::variable_data* var = as.variable(n);
    if (!var || !var->historizing) continue;
    const ua::node_id id = x.id.to_node_id();
    const std::string text = id.to_string();
    bool taken = false;
    for (std::size_t c = 0; c < configurations.size() && !taken; ++c) {
      for (std::size_t p = 0; p < configurations[c].nodes.size(); ++p) {
        if (!matches(configurations[c].nodes[p], text)) continue;
        used[c][p] = true;
        out.emplace_back(id, to_historical_configuration(configurations[c]));
        taken = true;
        break;
      }
    }
  }
  for (std::size_t c = 0; c < configurations.size(); ++c)
    for (std::size_t p = 0; p < configurations[c].nodes.size(); ++p)
      if (!used[c][p]) unmatched.push_back(configurations[c].nodes[p]);
  return out;
}

std::size_t allow_history_updates(ua::address_space& as) {
  std::size_t count = 0;
  for (ua::node_index n = 0; n < as.size(); ++n) {
    const ua::node& x = as.at(n);
    if (x.removed || x.cls != ua::node_class::variable) continue;
    const ua::variable_data* var = as.variable(n);
    if (var && var->historizing && as.set_history_writable(n, true).is_good()) ++count;
  }
  return count;
}

}  // namespace uactor
